import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DATABASE_URL, isolation } from '../support/stack.js';
import { autovacuumAction, autovacuumPass, autovacuumSettings, autovacuumStatement, type AutovacuumSettings, type TableVacuumed } from '../../bench/autovacuum.js';

/*
 * The bench's stand-in for the server's autovacuum during the soak (decision 261): it must do what
 * autovacuum would — by Postgres' own thresholds, no more and no less — or the soak measures a
 * server nobody runs in one direction or the other.
 */

/** Postgres 15's defaults (postgresql.conf.sample), as a deployment's autovacuum runs with them. */
const DEFAULTS: AutovacuumSettings = {
  on: true,
  naptimeSeconds: 60,
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
  insertThreshold: 1000,
  insertScaleFactor: 0.2,
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1,
  costDelay: '2ms',
  costLimit: 200,
};
const table = (t: Partial<Parameters<typeof autovacuumAction>[1]>) => ({ reltuples: 0, deadRows: 0, insertedSinceVacuum: 0, changedSinceAnalyze: 0, ...t });

describe("autovacuum's thresholds", () => {
  it('vacuums past dead rows of 50 + 20 % of the table, or inserts of 1 000 + 20 %; analyzes past changes of 50 + 10 %', () => {
    expect(autovacuumAction(DEFAULTS, table({ reltuples: 10_000, deadRows: 2_050 }))).toEqual({ vacuum: false, analyze: false });
    expect(autovacuumAction(DEFAULTS, table({ reltuples: 10_000, deadRows: 2_051 }))).toEqual({ vacuum: true, analyze: false });
    expect(autovacuumAction(DEFAULTS, table({ reltuples: 10_000, insertedSinceVacuum: 3_000 }))).toEqual({ vacuum: false, analyze: false });
    expect(autovacuumAction(DEFAULTS, table({ reltuples: 10_000, insertedSinceVacuum: 3_001 }))).toEqual({ vacuum: true, analyze: false });
    expect(autovacuumAction(DEFAULTS, table({ reltuples: 10_000, changedSinceAnalyze: 1_050 }))).toEqual({ vacuum: false, analyze: false });
    expect(autovacuumAction(DEFAULTS, table({ reltuples: 10_000, changedSinceAnalyze: 1_051 }))).toEqual({ vacuum: false, analyze: true });
  });

  it('reads a table never analyzed (reltuples -1) as empty, and an insert threshold of -1 as never', () => {
    expect(autovacuumAction(DEFAULTS, table({ reltuples: -1, insertedSinceVacuum: 1_001, changedSinceAnalyze: 51 }))).toEqual({ vacuum: true, analyze: true });
    expect(autovacuumAction({ ...DEFAULTS, insertThreshold: Infinity }, table({ reltuples: -1, insertedSinceVacuum: 1e9 }))).toEqual({ vacuum: false, analyze: false });
  });
});

describe("a worker's visit to a table", () => {
  it('vacuums in one process, as autovacuum does: a manual VACUUM would start parallel workers for the indexes', () => {
    expect(autovacuumStatement('public.t', { vacuum: true, analyze: false })).toBe('vacuum (parallel 0) public.t');
    expect(autovacuumStatement('public.t', { vacuum: true, analyze: true })).toBe('vacuum (parallel 0, analyze) public.t');
    expect(autovacuumStatement('public.t', { vacuum: false, analyze: true })).toBe('analyze public.t');
    expect(autovacuumStatement('public.t', { vacuum: false, analyze: false })).toBeNull();
  });
});

describe('a pass over a database', () => {
  const name = `${isolation().DATABASE_PREFIX}autovacuum`;
  const url = DATABASE_URL.replace(/\/[^/]*$/, `/${name}`);
  let admin: pg.Client;
  let db: pg.Client;
  let settings: AutovacuumSettings;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    db = new pg.Client({ connectionString: url });
    await db.connect();
    // the server's own autovacuum (where it runs) leaves these tables to the pass under test
    await db.query('create table counted (id bigserial primary key, day date not null, body text not null) with (autovacuum_enabled = false)');
    await db.query('create index counted_day on counted (day, id)');
    await db.query('create table quiet (id int) with (autovacuum_enabled = false)');
    // the server's cost settings as read, the thresholds as a deployment's defaults
    const server = await autovacuumSettings(admin);
    settings = { ...DEFAULTS, costDelay: server.costDelay, costLimit: server.costLimit };
  });
  afterAll(async () => {
    await db?.end();
    await admin?.query(`drop database if exists "${name}" with (force)`);
    await admin?.end();
  });

  const flushStats = () => db.query('select pg_stat_force_next_flush()');
  /** What each visit did, its timing checked and left off. */
  const visits = (done: TableVacuumed[]) =>
    done.map(({ table, vacuum, analyze, startedAt, ms }) => {
      expect(ms).toBeGreaterThan(0);
      expect(startedAt).toBeLessThanOrEqual(performance.now() - ms);
      return { table, vacuum, analyze };
    });
  /** How many rows an index-only count of the day read from the table's pages rather than the visibility map. */
  const heapFetches = async () => {
    const { rows } = await db.query(`explain (analyze, format json) select count(*) from counted where day = '2032-02-02'`);
    const find = (n: { 'Node Type': string; 'Heap Fetches'?: number; Plans?: unknown[] }): number | undefined =>
      n['Node Type'] === 'Index Only Scan' ? n['Heap Fetches'] : (n.Plans as (typeof n)[] | undefined)?.map(find).find((x) => x !== undefined);
    return find(rows[0]['QUERY PLAN'][0].Plan);
  };

  it("reads the server's own settings: whether autovacuum runs, its naptime, its cost delay", async () => {
    const server = await autovacuumSettings(admin);
    const setting = async (name: string) => (await admin.query<{ setting: string }>('select setting from pg_settings where name = $1', [name])).rows[0].setting;
    expect(server.on).toBe((await setting('autovacuum')) === 'on');
    expect(server.naptimeSeconds).toBe(Number(await setting('autovacuum_naptime')));
    expect(server.vacuumScaleFactor).toBe(Number(await setting('autovacuum_vacuum_scale_factor')));
    // as SET takes it: a number and its unit (2ms by default)
    expect(server.costDelay).toMatch(/^\d+(\.\d+)?(ms|us|s)$/);
    expect(server.costLimit).toBeGreaterThan(0);
  });

  it('vacuums and analyzes the table past its thresholds, leaves the one below them, and then has nothing to do', async () => {
    await db.query(`insert into counted (day, body) select '2032-02-02', repeat('x', 200) from generate_series(1, 5000)`);
    await db.query('insert into quiet select generate_series(1, 10)');
    await flushStats();
    await db.query('set enable_seqscan = off');
    await db.query('set enable_bitmapscan = off');
    // unvacuumed, the count reads every row's page: what the soak's list pages paid without it
    expect(await heapFetches()).toBe(5000);

    expect(visits(await autovacuumPass(url, settings))).toEqual([{ table: 'counted', vacuum: true, analyze: true }]);
    const { rows } = await db.query<{ relpages: number; relallvisible: number; reltuples: number }>(`select relpages, relallvisible, reltuples from pg_class where relname = 'counted'`);
    expect(rows[0].reltuples).toBe(5000);
    expect(rows[0].relallvisible).toBe(rows[0].relpages);
    expect(await heapFetches()).toBe(0);
    expect(visits(await autovacuumPass(url, settings))).toEqual([]);
  });

  it('vacuums after deletes past 50 + 20 % of the table, not before', async () => {
    await db.query('delete from counted where id <= 1000'); // 1 000 dead of 5 000: under 1 050
    await flushStats();
    expect(visits(await autovacuumPass(url, settings))).toEqual([{ table: 'counted', vacuum: false, analyze: true }]);
    await db.query('delete from counted where id <= 1100'); // 100 more dead since the analyze
    await flushStats();
    expect(visits(await autovacuumPass(url, settings))).toEqual([{ table: 'counted', vacuum: true, analyze: false }]);
    const { rows } = await db.query<{ dead: string }>(`select n_dead_tup::text as dead from pg_stat_user_tables where relname = 'counted'`);
    expect(rows[0].dead).toBe('0');
  });
});
