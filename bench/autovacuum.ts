import pg from 'pg';

/*
 * What the server's autovacuum would do while a long benchmark runs, done by the bench when the
 * server's autovacuum is off (this machine's Postgres runs with `autovacuum = off`; decisions 122,
 * 126 and 261). Between benchmarks the bench vacuums everything; within the soak's five minutes a
 * deployment's autovacuum would also have visited the tables that crossed its thresholds, and
 * without it the soak measured a server nobody runs: a list page's count (an index-only scan) read
 * the heap of every page written since the soak began, and the audit chainer's partial index kept
 * every chained record's entry, so the answers slowed as the soak went on.
 *
 * Autovacuum's own rules, with the server's own settings (the per-table storage parameters are
 * not read: the services set none): every `autovacuum_naptime` a table is vacuumed when its dead
 * rows pass `autovacuum_vacuum_threshold + autovacuum_vacuum_scale_factor × reltuples` or the rows
 * inserted since its last vacuum pass `autovacuum_vacuum_insert_threshold +
 * autovacuum_vacuum_insert_scale_factor × reltuples`, and analyzed when the rows changed since its
 * last analyze pass `autovacuum_analyze_threshold + autovacuum_analyze_scale_factor × reltuples`;
 * the vacuum runs at autovacuum's cost delay and limit, not at a manual VACUUM's full speed, and
 * in one process: a manual VACUUM of a table with two indexes or more starts parallel workers for
 * them (`max_parallel_maintenance_workers`), which an autovacuum worker never does before
 * PostgreSQL 19, so `parallel 0` — the emulation's passes took a second core for the ledger's
 * tables while the soak ran.
 */

/**
 * The statement an autovacuum worker's visit to a table amounts to, or null for none: one process
 * (`parallel 0`, see above), the analyze in the same visit when both are due.
 */
export function autovacuumStatement(table: string, action: { vacuum: boolean; analyze: boolean }): string | null {
  if (action.vacuum) return `vacuum (parallel 0${action.analyze ? ', analyze' : ''}) ${table}`;
  return action.analyze ? `analyze ${table}` : null;
}

/** The server's autovacuum settings the emulation reads. */
export interface AutovacuumSettings {
  on: boolean;
  naptimeSeconds: number;
  vacuumThreshold: number;
  vacuumScaleFactor: number;
  insertThreshold: number;
  insertScaleFactor: number;
  analyzeThreshold: number;
  analyzeScaleFactor: number;
  /** As `SET vacuum_cost_delay` takes it (autovacuum's, or vacuum_cost_delay's when it is -1). */
  costDelay: string;
  costLimit: number;
}

/** A table's counters as `pg_stat_user_tables` and `pg_class` give them. */
export interface TableActivity {
  reltuples: number;
  deadRows: number;
  insertedSinceVacuum: number;
  changedSinceAnalyze: number;
}

/** What autovacuum would do to a table on this pass (pure: autovacuum's thresholds). */
export function autovacuumAction(s: AutovacuumSettings, t: TableActivity): { vacuum: boolean; analyze: boolean } {
  // a table never analyzed has reltuples -1 (Postgres 14 and later): autovacuum reads it as 0
  const tuples = Math.max(0, t.reltuples);
  const vacuum = t.deadRows > s.vacuumThreshold + s.vacuumScaleFactor * tuples || t.insertedSinceVacuum > s.insertThreshold + s.insertScaleFactor * tuples;
  const analyze = t.changedSinceAnalyze > s.analyzeThreshold + s.analyzeScaleFactor * tuples;
  return { vacuum, analyze };
}

export async function autovacuumSettings(client: pg.Client): Promise<AutovacuumSettings> {
  const names = [
    'autovacuum',
    'autovacuum_naptime',
    'autovacuum_vacuum_threshold',
    'autovacuum_vacuum_scale_factor',
    'autovacuum_vacuum_insert_threshold',
    'autovacuum_vacuum_insert_scale_factor',
    'autovacuum_analyze_threshold',
    'autovacuum_analyze_scale_factor',
    'autovacuum_vacuum_cost_delay',
    'autovacuum_vacuum_cost_limit',
    'vacuum_cost_delay',
    'vacuum_cost_limit',
  ];
  const { rows } = await client.query<{ name: string; setting: string; unit: string | null }>('select name, setting, unit from pg_settings where name = any($1)', [names]);
  const get = (n: string) => rows.find((r) => r.name === n);
  const num = (n: string) => Number(get(n)?.setting ?? 0);
  // -1: autovacuum takes the plain vacuum's setting
  const delay = num('autovacuum_vacuum_cost_delay') >= 0 ? get('autovacuum_vacuum_cost_delay')! : get('vacuum_cost_delay')!;
  const limit = num('autovacuum_vacuum_cost_limit') > 0 ? num('autovacuum_vacuum_cost_limit') : num('vacuum_cost_limit');
  return {
    on: get('autovacuum')?.setting === 'on',
    naptimeSeconds: num('autovacuum_naptime'),
    vacuumThreshold: num('autovacuum_vacuum_threshold'),
    vacuumScaleFactor: num('autovacuum_vacuum_scale_factor'),
    // -1 turns insert-triggered vacuum off
    insertThreshold: num('autovacuum_vacuum_insert_threshold') < 0 ? Infinity : num('autovacuum_vacuum_insert_threshold'),
    insertScaleFactor: num('autovacuum_vacuum_insert_scale_factor'),
    analyzeThreshold: num('autovacuum_analyze_threshold'),
    analyzeScaleFactor: num('autovacuum_analyze_scale_factor'),
    costDelay: `${delay.setting}${delay.unit ?? ''}`,
    costLimit: limit,
  };
}

/** What a pass did to a table. */
export interface TableVacuumed {
  table: string;
  vacuum: boolean;
  analyze: boolean;
  /** When the visit began (performance.now) and how long it took, cost delays included. */
  startedAt: number;
  ms: number;
}

/**
 * One autovacuum pass over a database: vacuums and analyzes what autovacuum would, one table at a
 * time on one connection (as one autovacuum worker would), and answers what it did.
 */
export async function autovacuumPass(databaseUrl: string, s: AutovacuumSettings): Promise<TableVacuumed[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ t: string; name: string; reltuples: string; dead: string; ins: string; mod: string }>(
      `select quote_ident(s.schemaname) || '.' || quote_ident(s.relname) as t, s.relname as name, c.reltuples::text as reltuples,
              s.n_dead_tup::text as dead, s.n_ins_since_vacuum::text as ins, s.n_mod_since_analyze::text as mod
         from pg_stat_user_tables s join pg_class c on c.oid = s.relid`,
    );
    await db.query(`set vacuum_cost_delay = '${s.costDelay}'`);
    await db.query(`set vacuum_cost_limit = ${Number(s.costLimit)}`);
    const done: TableVacuumed[] = [];
    for (const r of rows) {
      const action = autovacuumAction(s, { reltuples: Number(r.reltuples), deadRows: Number(r.dead), insertedSinceVacuum: Number(r.ins), changedSinceAnalyze: Number(r.mod) });
      const statement = autovacuumStatement(r.t, action);
      if (!statement) continue;
      const start = performance.now();
      await db.query(statement);
      done.push({ table: r.name, ...action, startedAt: start, ms: performance.now() - start });
    }
    return done;
  } finally {
    await db.end();
  }
}
