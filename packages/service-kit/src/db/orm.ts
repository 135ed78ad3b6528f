import { MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import type { EntitySchema, MigrationObject } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';
import { kitMigrations } from './migrations.js';

export const TENANT_FILTER = 'tenant';

// bigint ids fit in a JS number (< 2^53); numeric amounts stay strings for the decimal library.
pg.types.setTypeParser(20, (v: string) => Number.parseInt(v, 10));

export interface OrmOptions {
  databaseUrl: string;
  databaseName: string;
  entities: EntitySchema<any, any>[];
  migrations: MigrationObject[];
  debug?: boolean;
  poolMax?: number;
  log?: (msg: string) => void;
}

/** Creates the service's own database when it does not exist yet (first boot, new test run). */
export async function ensureDatabase(databaseUrl: string, databaseName: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [databaseName]);
    if (found.rowCount === 0) {
      await client.query(`create database "${databaseName.replace(/"/g, '')}"`).catch((e: { code?: string }) => {
        if (e.code !== '42P04' && e.code !== '23505') throw e; // created concurrently by another process
      });
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(databaseUrl: string, databaseName: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${databaseName.replace(/"/g, '')}" with (force)`);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Boots MikroORM on the service's database: creates it if missing, applies the kit's and the
 * service's migrations, and registers the `tenant` filter on every entity with an `orgId`
 * property. The filter is on by default and needs its `orgId` argument, so a query that forgot
 * the tenant fails instead of reading another organisation's rows.
 */
export async function initOrm(opts: OrmOptions): Promise<MikroORM> {
  await ensureDatabase(opts.databaseUrl, opts.databaseName);
  const tenantEntities = opts.entities
    .filter((e) => Object.prototype.hasOwnProperty.call(e.meta.properties, 'orgId'))
    .map((e) => e.meta.className);
  const config: Options = {
    clientUrl: withDatabase(opts.databaseUrl, opts.databaseName),
    entities: opts.entities,
    discovery: { warnWhenNoEntities: false },
    debug: opts.debug ?? false,
    logger: (msg: string) => opts.log?.(msg),
    allowGlobalContext: false,
    forceUtcTimezone: true,
    pool: { min: 1, max: opts.poolMax ?? 10 },
    extensions: [Migrator],
    migrations: {
      migrationsList: [...kitMigrations, ...opts.migrations],
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      tableName: 'kit_migrations',
      silent: true,
    },
    filters: {
      [TENANT_FILTER]: {
        name: TENANT_FILTER,
        cond: (args: { orgId?: number }) => {
          if (args?.orgId === undefined) throw new Error('tenant filter used without an organisation');
          return { orgId: args.orgId };
        },
        default: true,
        entity: tenantEntities,
      },
    },
  };
  const orm = await MikroORM.init(config);
  await orm.getMigrator().up();
  return orm;
}

/**
 * Runs one SQL statement with bind parameters (`?` placeholders) in the entity manager's
 * transaction, if any, and returns its rows. Unlike `em.getConnection().execute()`, which inlines
 * every parameter into the query text as an escaped literal, the values travel as protocol
 * parameters: a large JSON document is neither escaped in JS nor parsed as SQL text.
 */
export async function sqlRows<T = Record<string, unknown>>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  const query = em.getConnection().getKnex().raw(sql, params as never);
  const trx = em.getTransactionContext();
  if (trx) query.transacting(trx);
  const res = (await query) as { rows: T[] };
  return res.rows;
}

/** A fresh entity manager scoped to one organisation. */
export function tenantEm(orm: MikroORM, orgId: number): EntityManager {
  const em = orm.em.fork({ clear: true });
  em.setFilterParams(TENANT_FILTER, { orgId });
  return em;
}
