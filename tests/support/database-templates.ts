import pg from 'pg';
import { inject } from 'vitest';
import type { ServiceDefinition } from '@ledgerline/service-kit';

/*
 * A stack's databases cloned from a migrated template rather than migrated one by one. Each
 * service's migrations (a hundred statements of DDL, each committed) took 0.6–0.7 s of a stack's
 * start, and a run starts a couple of hundred stacks; `create database … template` copies the
 * migrated files in about a tenth of that, and the service's boot then finds every migration and
 * every live SQL file applied, exactly as on a database it migrated itself (the same code ran on
 * the template, in this run). The templates carry the run's id, so the run's teardown drops them
 * with the rest.
 */

const STATE_IN_USE = '55006'; // the template had a session open (its builder's, just closing)
const DUPLICATE_DATABASE = '42P04';

/** The template of one service in this run: `lt_<run>_tpl_<service>`. */
export const templateName = (service: string) => `lt_${inject('runId')}_tpl_${service}`;

async function exists(client: pg.Client, name: string): Promise<boolean> {
  return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
}

/**
 * The template of `def` migrated, made by the first stack of the run that needs it: test files
 * run in several processes at once, so one makes it under an advisory lock while the others wait.
 */
async function ensureTemplate(client: pg.Client, databaseUrl: string, def: ServiceDefinition<any, any>): Promise<string> {
  const name = templateName(def.name);
  // taken even when the template is listed: it is listed from its `create database` on, before
  // its migrations have run, and only the lock says its builder is done
  await client.query('select pg_advisory_lock(hashtext($1))', [name]);
  try {
    if (!(await exists(client, name))) {
      const { initOrm, serviceMigrations } = await import('@ledgerline/service-kit');
      const orm = await initOrm({ databaseUrl, databaseName: name, entities: def.entities, migrations: serviceMigrations(def), liveSql: def.liveSql });
      await orm.close(true);
    }
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', [name]);
  }
  return name;
}

/**
 * Creates `databaseName` for `def` as a copy of the run's migrated template of the service, unless
 * it exists already (a restarted service keeps its database).
 */
export async function cloneServiceDatabase(databaseUrl: string, def: ServiceDefinition<any, any>, databaseName: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    if (await exists(client, databaseName)) return;
    const template = await ensureTemplate(client, databaseUrl, def);
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`create database "${databaseName.replace(/"/g, '')}" template "${template}"`);
        return;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === DUPLICATE_DATABASE) return;
        if (code !== STATE_IN_USE || attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  } finally {
    await client.end();
  }
}
