import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { bundleForRun } from '../scripts/bundle.js';
import { SOURCE_MAPS_FOLDER } from './profiles.js';
import { jetstreamManager } from '@nats-io/jetstream';
import { generateSecret } from '@ledgerline/service-kit';
import { nodeFlagsOf } from '../scripts/node-flags.js';
import { autovacuumPass, autovacuumSettings, type TableVacuumed } from './autovacuum.js';

export const root = path.resolve(import.meta.dirname, '..');
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export interface Proc {
  name: string;
  port: number;
  child: ChildProcess;
  peakRssMb: number;
}

export interface BenchStack {
  procs: Proc[];
  gateway: string;
  adminKey: string;
  operatorToken: string;
  internalToken: string;
  env: Record<string, string>;
  url(name: string): string;
  dbUrl(service: string): string;
  sampleMemory(): void;
  /** CPU time so far, in milliseconds, of each process of the system, Postgres (all its processes) and nats-server. */
  cpuMs(): Record<string, number>;
  /**
   * Does for every service database what autovacuum would have done when the server's autovacuum
   * is off (this machine's Postgres runs with `autovacuum = off`, so a database the bench fills is
   * otherwise never vacuumed or analyzed): current statistics for the planner, and visibility maps
   * that let index-only scans (a list's count) skip the table. Answers whether it had to.
   */
  vacuumIfNoAutovacuum(): Promise<boolean>;
  /**
   * When the server's autovacuum is off, what it would do during a long benchmark: its naptime and
   * a pass over every service database by its own thresholds (bench/autovacuum.ts), answering the
   * tables it vacuumed or analyzed (named `sales.sales_documents`); null when the server's own
   * autovacuum runs.
   */
  autovacuumEmulation(): Promise<{ naptimeSeconds: number; pass(): Promise<TableVacuumed[]> } | null>;
  close(): Promise<void>;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU ticks of one process and of its children that ended, with its command name. */
function procCpu(pid: number | string): { comm: string; ticks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // after "pid (comm) ": state is field 3, utime 14, stime 15, cutime 16, cstime 17 → indices 11–14
    // here; the children's share keeps the CPU of Postgres backends that ended (the postmaster reaps them)
    return { comm, ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) };
  } catch {
    return null;
  }
}

/**
 * The database a Postgres backend serves, from its process title (`postgres: 15/main: user db
 * host(port) state`), with the bench's database prefix left off; null for the postmaster and the
 * server's own workers (checkpointer, WAL writer, autovacuum), which serve none.
 */
function backendDatabase(pid: string, prefix: string): string | null {
  try {
    const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    const m = /^postgres: [^:]+: \S+ (\S+) \S+\(\d+\)/.exec(title);
    if (!m) return null;
    return m[1].startsWith(prefix) ? m[1].slice(prefix.length) : 'other';
  } catch {
    return null;
  }
}

/** Keys of a CPU snapshot that split another key up (Postgres by database): shown, never summed. */
export const POSTGRES_SHARE_PREFIX = 'postgres: ';

/**
 * The backends a bench has seen, with the database each served and its CPU when last seen: a
 * pool closes idle connections, and the CPU of a backend that ended passes into the postmaster's
 * children time, where no database could be told from another.
 */
export type BackendMemory = Map<string, { share: string; ms: number }>;

/**
 * CPU milliseconds of `pids` by name, plus every process called postgres or nats-server on the
 * machine; with `backends`, Postgres is also split by the database each backend serves
 * (`postgres: sales`, …, backends that ended counted at their last reading) and `postgres: server`
 * for the rest: WAL writer, checkpointer, autovacuum and the postmaster.
 */
export function cpuSnapshot(pids: Array<{ name: string; pid: number | undefined }>, backends?: { prefix: string; memory: BackendMemory }): Record<string, number> {
  const out: Record<string, number> = { postgres: 0, 'nats-server': 0 };
  for (const p of pids) out[p.name] = ((p.pid && procCpu(p.pid)?.ticks) || 0) * (1000 / TICKS_PER_SECOND);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cpu = procCpu(entry);
    if (!cpu || (cpu.comm !== 'postgres' && cpu.comm !== 'nats-server')) continue;
    const ms = cpu.ticks * (1000 / TICKS_PER_SECOND);
    out[cpu.comm] += ms;
    if (backends && cpu.comm === 'postgres') {
      const db = backendDatabase(entry, backends.prefix);
      if (db) backends.memory.set(entry, { share: `${POSTGRES_SHARE_PREFIX}${db}`, ms });
    }
  }
  if (backends) {
    let served = 0;
    for (const { share, ms } of backends.memory.values()) {
      out[share] = (out[share] ?? 0) + ms;
      served += ms;
    }
    out[`${POSTGRES_SHARE_PREFIX}server`] = out.postgres - served;
  }
  return out;
}

export function rssMb(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function ready(port: number, timeoutMs = 90_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`process on port ${port} did not become ready`);
}

/**
 * The processes run with the same node flags as `npm start` (scripts/node-flags.ts), plus extra
 * flags for profiling, e.g.
 * `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` (`--cpu-prof` is refused in NODE_OPTIONS).
 * What such flags print (`--trace-gc`) goes to `BENCH_STDOUT_DIR/<process>.log` when that folder is
 * given; otherwise the processes' stdout is dropped (their logs are on stderr).
 */
const extraNodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const stdoutOf = (name: string) => {
  const dir = process.env.BENCH_STDOUT_DIR;
  if (!dir) return 'ignore';
  mkdirSync(dir, { recursive: true });
  return openSync(path.join(dir, `${name}.log`), 'w');
};

/**
 * Starts one process: a built bundle (`.mjs`, what the system runs) on plain node, or a TypeScript
 * file (the bare Hono app) through tsx.
 */
export function spawnProc(name: string, file: string, port: number, env: Record<string, string>): Proc {
  // `--profile`: each process writes its CPU profile into a folder of its own when it stops
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.BENCH_PROFILE_DIR, name)}`] : [];
  const entry = file.endsWith('.mjs') ? [file] : ['--import', 'tsx', path.join(root, file)];
  const child = spawn(process.execPath, [...nodeFlagsOf(name), ...extraNodeArgs, ...profile, ...entry], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', stdoutOf(name), 'inherit'],
  });
  return { name, port, child, peakRssMb: 0 };
}

async function keepSourceMaps(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const f of await readdir(from)) if (f.endsWith('.map')) await copyFile(path.join(from, f), path.join(to, f));
}

/** The whole system as separate processes on bench ports, with its own databases and subject prefix. */
export async function startBenchStack(basePort = 18080): Promise<BenchStack> {
  const tag = `bench_${Date.now().toString(36)}_`;
  const backends: BackendMemory = new Map();
  const adminKey = generateSecret('ak');
  const operatorToken = randomBytes(24).toString('hex');
  const internalToken = randomBytes(24).toString('hex');
  const env: Record<string, string> = {
    DATABASE_URL,
    NATS_URL,
    DATABASE_PREFIX: tag,
    NATS_SUBJECT_PREFIX: `${tag.replace(/_/g, '')}.`,
    BOOTSTRAP_API_KEY: adminKey,
    OPERATOR_TOKEN: operatorToken,
    INTERNAL_TOKEN: internalToken,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    NODE_ENV: 'production',
    SECRETS_KEY: randomBytes(32).toString('base64'),
  };
  const ports: Record<string, number> = {
    gateway: basePort,
    sales: basePort + 1,
    purchase: basePort + 2,
    finance: basePort + 3,
    accounting: basePort + 4,
    settings: basePort + 5,
  };
  const urls = {
    SALES_URL: `http://127.0.0.1:${ports.sales}`,
    PURCHASE_URL: `http://127.0.0.1:${ports.purchase}`,
    FINANCE_URL: `http://127.0.0.1:${ports.finance}`,
    ACCOUNTING_URL: `http://127.0.0.1:${ports.accounting}`,
    SETTINGS_URL: `http://127.0.0.1:${ports.settings}`,
  };
  const procs: Proc[] = [];
  // measured as the image and `npm start` run them: built JavaScript on plain node (decision 135)
  const bundles = await bundleForRun('bench');
  const settings = spawnProc('settings', bundles.entry('settings'), ports.settings, env);
  procs.push(settings);
  await ready(ports.settings);
  for (const name of ['sales', 'purchase', 'finance', 'accounting'] as const) procs.push(spawnProc(name, bundles.entry(name), ports[name], env));
  procs.push(spawnProc('gateway', bundles.entry('gateway'), ports.gateway, { ...env, ...urls }));
  await Promise.all(procs.map((p) => ready(p.port)));

  /** The run's service databases, named by their service (the run's prefix left off), in name order. */
  const runDatabases = async (c: pg.Client): Promise<string[]> =>
    (await c.query<{ datname: string }>('select datname from pg_database where datname like $1 order by datname', [`${tag.replace(/_/g, '\\_')}%`])).rows.map((r) => r.datname.slice(tag.length));

  const stack: BenchStack = {
    procs,
    gateway: `http://127.0.0.1:${ports.gateway}`,
    adminKey,
    operatorToken,
    internalToken,
    env,
    url: (name) => `http://127.0.0.1:${ports[name]}`,
    dbUrl: (service) => {
      const u = new URL(DATABASE_URL);
      u.pathname = `/${tag}${service}`;
      return u.toString();
    },
    sampleMemory: () => {
      for (const p of procs) p.peakRssMb = Math.max(p.peakRssMb, rssMb(p.child.pid));
    },
    cpuMs: () => cpuSnapshot(procs.map((p) => ({ name: p.name, pid: p.child.pid })), { prefix: tag, memory: backends }),
    vacuumIfNoAutovacuum: async () => {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      try {
        if ((await c.query('show autovacuum')).rows[0].autovacuum === 'on') return false;
        for (const service of await runDatabases(c)) {
          const db = new pg.Client({ connectionString: stack.dbUrl(service) });
          await db.connect();
          try {
            // only tables that hold rows: an empty table analyzed stays "empty" to the planner as it fills
            const tables = await db.query("select quote_ident(schemaname) || '.' || quote_ident(relname) as t from pg_stat_user_tables where n_live_tup > 0");
            for (const t of tables.rows) await db.query(`vacuum (analyze) ${t.t}`);
          } finally {
            await db.end();
          }
        }
        return true;
      } finally {
        await c.end();
      }
    },
    autovacuumEmulation: async () => {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      try {
        const settings = await autovacuumSettings(c);
        if (settings.on) return null;
        const dbs = await runDatabases(c);
        return {
          naptimeSeconds: settings.naptimeSeconds,
          // one database after another, as one worker at a time would
          pass: async () => {
            const done: TableVacuumed[] = [];
            for (const service of dbs) for (const d of await autovacuumPass(stack.dbUrl(service), settings)) done.push({ ...d, table: `${service}.${d.table}` });
            return done;
          },
        };
      } finally {
        await c.end();
      }
    },
    close: async () => {
      for (const p of procs) p.child.kill('SIGTERM');
      // a profiled process writes its profile while it exits, which takes seconds after a long run
      const grace = process.env.BENCH_PROFILE_DIR ? 30_000 : 1500;
      const exited = (p: Proc) => (p.child.exitCode !== null || p.child.signalCode !== null ? Promise.resolve() : new Promise((r) => p.child.once('exit', r)));
      await Promise.race([Promise.all(procs.map(exited)), new Promise((r) => setTimeout(r, grace))]);
      for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      // a profiled run's frames are named from the bundles' source maps after the bundles are gone
      if (process.env.BENCH_PROFILE_DIR) await keepSourceMaps(bundles.dir, path.join(process.env.BENCH_PROFILE_DIR, SOURCE_MAPS_FOLDER));
      await bundles.remove().catch(() => undefined);
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      const dbs = await runDatabases(c);
      // BENCH_KEEP_DATABASES=1 leaves them for a look afterwards (EXPLAIN, sizes, a rebuild run again)
      if (process.env.BENCH_KEEP_DATABASES !== '1') for (const service of dbs) await c.query(`drop database if exists "${tag}${service}" with (force)`).catch(() => undefined);
      await c.end();
      // and their streams: a rebuild can be run against them again (`rebuild-ledger` with the stack's env)
      if (process.env.BENCH_KEEP_DATABASES === '1') return;
      const n = await connect({ servers: NATS_URL });
      const jsm = await jetstreamManager(n);
      const streamPrefix = env.NATS_SUBJECT_PREFIX.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase();
      for await (const s of jsm.streams.list()) if (s.config.name.startsWith(streamPrefix)) await jsm.streams.delete(s.config.name).catch(() => undefined);
      await n.close();
    },
  };
  return stack;
}
