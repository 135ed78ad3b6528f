import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { TestProject } from 'vitest/node';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

declare module 'vitest' {
  export interface ProvidedContext {
    runId: string;
  }
}

/**
 * One run id per `npm test`: every database and stream the tests create carries it, so runs on
 * the same machine never see each other's data, and teardown removes exactly what this run made.
 */
export default async function setup(project: TestProject) {
  const runId = `${Date.now().toString(36).slice(-5)}${randomBytes(2).toString('hex')}`;
  project.provide('runId', runId);

  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect().catch((e) => {
    throw new Error(`Tests need PostgreSQL at ${DATABASE_URL}: ${e.message}`);
  });
  await client.end();
  const nc = await connect({ servers: NATS_URL }).catch((e) => {
    throw new Error(`Tests need NATS with JetStream at ${NATS_URL}: ${e.message}`);
  });
  await nc.close();

  return async () => {
    const c = new pg.Client({ connectionString: DATABASE_URL });
    await c.connect();
    const dbs = await c.query(`select datname from pg_database where datname like $1`, [`lt\\_${runId}%`]);
    for (const row of dbs.rows) await c.query(`drop database if exists "${row.datname}" with (force)`).catch(() => undefined);
    await c.end();
    const n = await connect({ servers: NATS_URL });
    const jsm = await jetstreamManager(n);
    for await (const s of jsm.streams.list()) {
      if (s.config.name.startsWith(`LT${runId.toUpperCase()}`)) await jsm.streams.delete(s.config.name).catch(() => undefined);
    }
    await n.close();
  };
}
