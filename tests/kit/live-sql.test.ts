import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { applyLiveSql } from '@ledgerline/service-kit';
import { DATABASE_URL, isolation } from '../support/stack.js';
import { MODULE, liveSqlModule } from '../../scripts/live-sql.js';
import { readFileSync } from 'node:fs';

/*
 * Database functions kept as files (decision 233): applied when a file's text is new or changed,
 * not otherwise, each in a transaction of its own; one that fails names its file and leaves what
 * was in force.
 */
const name = `${isolation().DATABASE_PREFIX}livesql`;
let admin: pg.Client;
let db: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${name}`) });
  await db.connect();
  await db.query('create table kit_live_sql (name text primary key, checksum char(64) not null, applied_at timestamptz not null default now())');
});
afterAll(async () => {
  await db?.end();
  await admin?.query(`drop database if exists "${name}" with (force)`);
  await admin?.end();
});

const f = (n: number) => ({ name: 'answer.sql', sql: `create or replace function answer() returns int language sql as $$ select ${n} $$;` });
const answer = async () => (await db.query<{ a: number }>('select answer() as a')).rows[0].a;

describe('live SQL', () => {
  it('applies a new file, skips an unchanged one and applies a changed one again', async () => {
    expect(await applyLiveSql(db, [f(1)])).toEqual(['answer.sql']);
    expect(await answer()).toBe(1);
    expect(await applyLiveSql(db, [f(1)])).toEqual([]);
    expect(await applyLiveSql(db, [f(2)])).toEqual(['answer.sql']);
    expect(await answer()).toBe(2);
  });

  it('refuses a file that fails, naming it, and keeps the definition in force', async () => {
    await expect(applyLiveSql(db, [{ name: 'answer.sql', sql: 'create or replace function answer() returns int language sql as $$ select nope $$;' }])).rejects.toThrow(/^answer\.sql: /);
    expect(await answer()).toBe(2);
    expect(await applyLiveSql(db, [f(2)])).toEqual([]);
  });

  it('the ledger module is what the .sql files say (`npm run live-sql`)', () => {
    expect(readFileSync(MODULE, 'utf8') === liveSqlModule(), 'apps/accounting/src/db/live-sql.generated.ts: run `npm run live-sql`').toBe(true);
  });
});
