import { INTERNAL_HEADERS } from '@ledgerline/service-kit';
import { OVERLOADED_HEADER } from '@ledgerline/service-kit/errors';
import type { Benchmark, BenchContext, Figure } from './context.js';
import { load, percentile, postEach } from './load.js';
import { pacedLoad, stallNote, stallProbe, type PacedResult } from './paced.js';
import { POSTGRES_SHARE_PREFIX, cpuSnapshot, spawnProc } from './stack.js';
import { monotonicUs } from './profiles.js';
import { scale } from './scale.js';
import { templateSandbox } from './template-sandbox.js';
import { PlainRowWriter, tableWrites, writesPerDocument } from './same-rows.js';
import { retainedHeapGrowth, type HeapReading } from './heap-growth.js';

export type { Benchmark } from './context.js';

async function waitReadyHello(port: number) {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/hello`)).ok) return;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('hello server did not start');
}

/**
 * The same fixed rate offered to the gateway path and straight to the service, in alternating
 * short runs: a stall of the machine lands in one run, not in one path's whole measurement, and
 * the figure is the median of the runs' p99 differences.
 */
/** Full ("major") collections V8 has run in a process so far, from its /metrics. */
async function fullCollections(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(/^nodejs_gc_collections_total\{kind="major"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

/**
 * Paced runs of both paths, alternated. Each run also counts the full collections the gateway and
 * settings ran meanwhile: a 20–40 ms one puts a run's p99 in its stall (decision 127), so the note
 * gives the p99 of the runs that had none as well.
 */
async function pacedComparison(opts: {
  rate: number;
  pairs: number;
  seconds: number;
  via: { url: string; headers: Record<string, string> };
  direct: { url: string; headers: Record<string, string> };
  processes: { gateway: string; settings: string };
}) {
  const collections = async () => ({ gateway: await fullCollections(opts.processes.gateway), settings: await fullCollections(opts.processes.settings) });
  const paced = async (path: { url: string; headers: Record<string, string> }) => {
    const before = await collections();
    const result = await pacedLoad({ ...path, rate: opts.rate, seconds: opts.seconds });
    const after = await collections();
    return { result, full: after.gateway - before.gateway + after.settings - before.settings };
  };
  const runs: Array<{ via: PacedResult; direct: PacedResult; viaFull: number; directFull: number }> = [];
  for (let i = 0; i < opts.pairs; i++) {
    const direct = await paced(opts.direct);
    const via = await paced(opts.via);
    runs.push({ via: via.result, direct: direct.result, viaFull: via.full, directFull: direct.full });
  }
  const median = (xs: number[]) => percentile(xs, 50);
  const lost = runs.reduce((n, r) => n + r.via.errors + r.via.unsent + r.via.unanswered + r.direct.errors + r.direct.unsent + r.direct.unanswered, 0);
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
  const quiet = (side: 'via' | 'direct') => runs.filter((r) => (side === 'via' ? r.viaFull : r.directFull) === 0).map((r) => r[side].p99);
  const quietNote = (side: 'via' | 'direct') => (quiet(side).length ? `${fmt(quiet(side))} ms` : 'none');
  return {
    overhead: median(runs.map((r) => r.via.p99 - r.direct.p99)),
    lost,
    note:
      `${opts.rate} req/s offered to each path (open loop), ${opts.pairs} alternating runs of ${opts.seconds} s; ` +
      `p99 through the gateway ${fmt(runs.map((r) => r.via.p99))} ms, straight to settings ${fmt(runs.map((r) => r.direct.p99))} ms; ` +
      `p50 ${median(runs.map((r) => r.via.p50)).toFixed(2)} vs ${median(runs.map((r) => r.direct.p50)).toFixed(2)} ms; ` +
      `full collections in the gateway and settings per run ${runs.map((r) => r.viaFull).join(', ')} through the gateway, ${runs.map((r) => r.directFull).join(', ')} straight; ` +
      `p99 of the runs without one ${quietNote('via')} through the gateway, ${quietNote('direct')} straight` +
      (lost ? `; ${lost} requests failed or unanswered` : ''),
  };
}

/** 1. Gateway overhead: the same authenticated GET through the gateway, straight to the service, and a bare Hono app. */
const gatewayOverhead: Benchmark = {
  title: 'Gateway overhead (GET /v1/settings/organisation)',
  run: async (ctx) => {
    const seconds = ctx.quick ? 5 : 15;
    const directHeaders = {
      [INTERNAL_HEADERS.orgId]: '1',
      [INTERNAL_HEADERS.scopes]: 'admin',
      [INTERNAL_HEADERS.token]: ctx.stack.internalToken,
    };
    // its `/row` reads settings' own organisation row, as the GET below does, and its `/forward`
    // sends the GET on to settings as a proxy with nothing of ours would
    const hello = spawnProc('hello', 'bench/hello-hono.ts', 18090, {
      ROW_DATABASE_URL: ctx.stack.dbUrl('settings'),
      FORWARD_URL: ctx.stack.url('settings'),
      FORWARD_HEADERS: JSON.stringify(directHeaders),
    });
    try {
      await waitReadyHello(18090);
      // warm-up (JIT, connection pools, credential cache)
      await load({ url: `${ctx.stack.gateway}/v1/settings/organisation`, seconds: 2, headers: ctx.auth });
      const bareCpu = () => quickCpu(ctx, { 'bare Hono': cpuSnapshot([{ name: 'bare Hono', pid: hello.child.pid }])['bare Hono'] });
      const bareBefore = bareCpu();
      const bare = await load({ url: 'http://127.0.0.1:18090/hello', seconds });
      const bareAfter = bareCpu();
      await load({ url: 'http://127.0.0.1:18090/row', seconds: 1 });
      const rowBefore = bareCpu();
      const row = await load({ url: 'http://127.0.0.1:18090/row', seconds });
      const rowAfter = bareCpu();
      const directCpu = quickCpu(ctx);
      const direct = await load({ url: `${ctx.stack.url('settings')}/v1/settings/organisation`, seconds, headers: directHeaders });
      const viaCpu = quickCpu(ctx);
      const via = await load({ url: `${ctx.stack.gateway}/v1/settings/organisation`, seconds, headers: ctx.auth });
      const endCpu = quickCpu(ctx);
      const proxyUrl = 'http://127.0.0.1:18090/forward/v1/settings/organisation';
      await load({ url: proxyUrl, seconds: 1 });
      const proxyBefore = bareCpu();
      const proxied = await load({ url: proxyUrl, seconds });
      const proxyAfter = bareCpu();
      // The issue's overhead figure: both paths offered the same fixed rate, half of what the
      // closed loop got straight from settings, by an open-loop generator (latency from when each
      // request was due, so a stall is charged to every request it delays).
      const paths = {
        via: { url: `${ctx.stack.gateway}/v1/settings/organisation`, headers: ctx.auth },
        direct: { url: `${ctx.stack.url('settings')}/v1/settings/organisation`, headers: directHeaders },
        processes: { gateway: ctx.stack.gateway, settings: ctx.stack.url('settings') },
      };
      const pairs = ctx.quick ? 3 : 5;
      const runSeconds = ctx.quick ? 2 : 3;
      // with the machine's stalls read over the same runs (the paced runs' tails are those stalls)
      const [half, stalls] = await Promise.all([
        pacedComparison({ ...paths, rate: Math.max(100, Math.round(direct.rps / 2)), pairs, seconds: runSeconds }),
        stallProbe(pairs * 2 * runSeconds),
      ]);
      // and at a quarter, where the two cores are not yet the queue
      const quarter = await pacedComparison({ ...paths, rate: Math.max(50, Math.round(direct.rps / 4)), pairs, seconds: runSeconds });
      // CPU per request of each path from /proc (`--profile` reads the profiles over the same windows)
      pushCpuPer(ctx, 'bare Hono hello-world', bareBefore, bareAfter, bare.total, 'requests');
      pushCpuPer(ctx, 'bare Hono reading one row', rowBefore, rowAfter, row.total, 'requests');
      pushCpuPer(ctx, 'GET straight to settings', directCpu, viaCpu, direct.total, 'requests');
      pushCpuPer(ctx, 'GET through the gateway', viaCpu, endCpu, via.total, 'requests');
      pushCpuPer(ctx, 'GET through a bare Hono proxy', proxyBefore, proxyAfter, proxied.total, 'requests');
      ctx.figures.push(
        { name: 'bare Hono hello-world', value: bare.rps, unit: 'req/s', note: `p50 ${bare.p50} ms, p99 ${bare.p99} ms` },
        {
          // the issue's ceiling with one database read added and nothing of ours: what bounds any
          // GET that reads a row (decision 172)
          name: 'bare Hono reading one row (pg)',
          value: row.rps,
          unit: 'req/s',
          ceiling: bare.rps,
          ceilingName: 'bare Hono',
          ratio: row.rps / bare.rps,
          note: `p50 ${row.p50} ms, p99 ${row.p99} ms, non-2xx ${row.non2xx}; the same organisation row by settings' own statement through a plain pg pool of 10`,
        },
        {
          name: 'service direct (settings)',
          value: direct.rps,
          unit: 'req/s',
          ceiling: bare.rps,
          ceilingName: 'bare Hono',
          ratio: direct.rps / bare.rps,
          target: '≥ 25 % of bare Hono',
          met: direct.rps / bare.rps >= 0.25,
          note: `p50 ${direct.p50} ms, p99 ${direct.p99} ms; ${Math.round((direct.rps / row.rps) * 100)} % of bare Hono reading one row`,
        },
        {
          name: 'through gateway (API key)',
          value: via.rps,
          unit: 'req/s',
          ceiling: direct.rps,
          ceilingName: 'direct',
          ratio: via.rps / direct.rps,
          target: '≥ 70 % of direct',
          met: via.rps / direct.rps >= 0.7,
          note: `p50 ${via.p50} ms, p99 ${via.p99} ms, non-2xx ${via.non2xx}; ${Math.round((via.rps / proxied.rps) * 100)} % of a bare Hono proxy's`,
        },
        {
          // the same hop with nothing of ours (no authentication, rate limit, routing table, access
          // log or request id): what bounds the gateway's share of the direct rate on this machine
          name: 'through a bare Hono proxy (undici)',
          value: proxied.rps,
          unit: 'req/s',
          ceiling: direct.rps,
          ceilingName: 'direct',
          ratio: proxied.rps / direct.rps,
          note: `p50 ${proxied.p50} ms, p99 ${proxied.p99} ms, non-2xx ${proxied.non2xx}; a Hono app with one route sending the GET on to settings through an undici pool, its answer read whole`,
        },
        {
          name: 'gateway p99 overhead',
          value: half.overhead,
          unit: 'ms',
          target: '≤ 2 ms at half the direct rate',
          met: half.overhead <= 2 && half.lost === 0,
          note: half.note,
        },
        { name: 'longest machine stall during those runs', value: stalls.max, unit: 'ms', note: stallNote(stalls) },
        {
          name: 'gateway p99 overhead at a quarter of it',
          value: quarter.overhead,
          unit: 'ms',
          note: quarter.note,
        },
        {
          name: 'gateway p99 overhead, closed loop',
          value: via.p99 - direct.p99,
          unit: 'ms',
          note: `gateway p99 ${via.p99} ms vs direct ${direct.p99} ms (same connection count, 16)`,
        },
      );
    } finally {
      hello.child.kill('SIGTERM');
    }
  },
};

export const benchmarks: Benchmark[] = [gatewayOverhead, templateSandbox];

// --- document writes ---------------------------------------------------------------------------

export function creditNoteBody(lines = 10) {
  return {
    customer: { id: 42, business_name: 'Bench Customer s.r.o.', vat_no: 'CZ12345678', address: { city: 'Praha', country: 'CZ' } },
    currency: 'CZK',
    date_issued: new Date().toISOString().slice(0, 10),
    items: Array.from({ length: lines }, (_, i) => ({
      title: `Line ${i + 1}`,
      qty: (i % 3) + 1,
      rate: 100 + i * 7.5,
      taxes: [{ tax_code: 'S', tax_rate: i % 2 ? 12 : 21 }],
    })),
  };
}

export function invoiceBody(lines = 2) {
  return { ...creditNoteBody(lines), customer: { id: 43, business_name: 'Bench Buyer a.s.', address: { country: 'CZ' } } };
}

interface CpuReading {
  at: number;
  /** `at` on the monotonic clock the CPU profiles use, in µs. */
  atUs: number;
  ms: Record<string, number>;
  /** CPU ms per wall ms of each process while idle (timers, polls, heartbeats), from the last quiet seconds. */
  idle: Record<string, number>;
}

const LOAD_GENERATOR = 'load generator';

/**
 * CPU of every process now, the load generator (this process) included, with no idle rate: for
 * windows of steady load too short for the idle processes' timers to matter.
 */
function quickCpu(ctx: BenchContext, extra: Record<string, number> = {}): CpuReading {
  const own = process.cpuUsage();
  return { at: Date.now(), atUs: monotonicUs(), ms: { ...ctx.stack.cpuMs(), ...extra, [LOAD_GENERATOR]: (own.user + own.system) / 1000 }, idle: {} };
}

/** Keys of a CPU reading that are the system's own processes, each counted once. */
const summed = (k: string) => k !== LOAD_GENERATOR && !k.startsWith(POSTGRES_SHARE_PREFIX);

/** CPU ms per wall ms of every process between two snapshots. */
function ratesBetween(from: Record<string, number>, to: Record<string, number>, wallMs: number): Record<string, number> {
  return Object.fromEntries(Object.keys(to).map((k) => [k, (to[k] - (from[k] ?? 0)) / Math.max(1, wallMs)]));
}

const totalOf = (rates: Record<string, number>) => Object.entries(rates).reduce((a, [k, v]) => (summed(k) ? a + v : a), 0);

/**
 * What the system spends with nothing to do (relay polls, consumer heartbeats, timers): the level
 * a settled system comes back to, read before the first benchmark loads it. On a slow hour the
 * processes' idle work alone came to more than any fixed threshold, so a settle waited its full
 * minute and the documents were charged the minute's idle CPU. Each process's floor is the least
 * of three 4 s readings: the processes' start (compilation, first collections) fades over them.
 */
export async function measureIdleFloor(ctx: BenchContext): Promise<Record<string, number>> {
  await new Promise((r) => setTimeout(r, 3000));
  // the machine's own stalls, read meanwhile: what every latency figure below sits on
  const stalls = stallProbe(12);
  const readings: Array<Record<string, number>> = [];
  for (let i = 0; i < 3; i++) {
    const from = ctx.stack.cpuMs();
    const fromAt = Date.now();
    await new Promise((r) => setTimeout(r, 4000));
    readings.push(ratesBetween(from, ctx.stack.cpuMs(), Date.now() - fromAt));
  }
  const idleStalls = await stalls;
  ctx.figures.push({ name: 'longest machine stall, idle system', value: idleStalls.max, unit: 'ms', note: stallNote(idleStalls) });
  const floor = Object.fromEntries(Object.keys(readings[2]).map((k) => [k, Math.min(...readings.map((r) => r[k] ?? 0))]));
  ctx.idleFloor = floor;
  const parts = Object.entries(floor)
    .filter(([k]) => summed(k))
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v * 1000).toFixed(1)}`)
    .join(', ');
  ctx.figures.push({ name: 'CPU of the idle system', value: totalOf(floor) * 1000, unit: 'ms/s', note: `the least of three 4 s readings before the first benchmark; ms/s each: ${parts}` });
  return floor;
}

/**
 * CPU of every process once it has stopped moving (the system has finished what it was given):
 * a second in which the whole system spent no more than half again its idle floor and 3 % of a
 * core. The idle rates are then read over two more seconds (over one second a process's 10 ms
 * ticks read as 0 or 10 ms/s); when it never settles, the floor stands for them.
 */
async function settledCpu(ctx: BenchContext, maxMs = 60_000): Promise<CpuReading> {
  const floor = ctx.idleFloor ?? (await measureIdleFloor(ctx));
  const quiet = totalOf(floor) * 1.5 + 0.03;
  let lastAt = Date.now();
  let last = ctx.stack.cpuMs();
  const until = lastAt + maxMs;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const at = Date.now();
    const atUs = monotonicUs();
    const now = ctx.stack.cpuMs();
    if (totalOf(ratesBetween(last, now, at - lastAt)) <= quiet) {
      await new Promise((r) => setTimeout(r, 2000));
      return { at, atUs, ms: now, idle: ratesBetween(last, ctx.stack.cpuMs(), Date.now() - lastAt) };
    }
    if (at > until) {
      process.stdout.write(`  (the system did not settle within ${Math.round(maxMs / 1000)} s; its idle floor stands for its idle rates)\n`);
      return { at, atUs, ms: now, idle: floor };
    }
    last = now;
    lastAt = at;
  }
}

/**
 * CPU milliseconds per document (or request), per process and in total, over a window (issue 15:
 * measure first). Each process's idle CPU over the window is subtracted when the readings carry
 * it, so the figure is what the documents or requests cost.
 */
function pushCpuPer(ctx: BenchContext, what: string, before: CpuReading, after: CpuReading, count: number, counted: 'documents' | 'requests') {
  // the issue's target is per posted document; a request's figure is for comparison only
  const target = counted === 'documents';
  const wall = after.at - before.at;
  const per = Object.fromEntries(
    Object.keys(after.ms).map((k) => {
      const idleRate = Math.max(0, Math.min(before.idle[k] ?? 0, after.idle[k] ?? 0));
      const spent = after.ms[k] - (before.ms[k] ?? 0) - idleRate * wall;
      // a backend that ended moved its CPU into the server's share: its own share may fall below zero
      return [k, (k.startsWith(POSTGRES_SHARE_PREFIX) ? spent : Math.max(0, spent)) / Math.max(1, count)];
    }),
  );
  // the load generator shares the machine but is not the system's cost, and Postgres's split by
  // database repeats its total: both shown, not summed
  const total = totalOf(per);
  // `--profile` reads the processes' profiles over the same window, per unit counted
  ctx.windows.push({ label: `CPU per ${what}`, fromUs: before.atUs, toUs: after.atUs, per: { what, count: Math.max(1, count) } });
  const parts = Object.entries(per)
    .filter(([k]) => !k.startsWith(POSTGRES_SHARE_PREFIX))
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => {
      if (k !== 'postgres') return `${k} ${v.toFixed(2)}`;
      const shares = Object.entries(per)
        .filter(([s, ms]) => s.startsWith(POSTGRES_SHARE_PREFIX) && Math.abs(ms) >= 0.005)
        .sort((a, b) => b[1] - a[1])
        .map(([s, ms]) => `${s.slice(POSTGRES_SHARE_PREFIX.length)} ${ms.toFixed(2)}`);
      return `${k} ${v.toFixed(2)}${shares.length ? ` (${shares.join(', ')})` : ''}`;
    })
    .join(', ');
  const figure: Figure = {
    name: `CPU per ${what}, all processes`,
    value: total,
    unit: 'ms',
    ...(target ? { target: '≤ 3 ms', met: total <= 3 } : {}),
    note: `${count} ${counted}; ms each: ${parts}`,
  };
  ctx.figures.push(figure);
  return figure;
}

/** A settled reading with this process's own CPU (the plain clients' side of a ceiling). */
function withOwnCpu(r: CpuReading): CpuReading {
  const own = process.cpuUsage();
  return { ...r, ms: { ...r.ms, [LOAD_GENERATOR]: (own.user + own.system) / 1000 } };
}

/**
 * A document's CPU beside its ceiling (issue 79: "≤ 1.5× plain pg's CPU for the same rows on any
 * hour"): copies of the rows the last credit note made in sales and in accounting (bench/same-rows.ts),
 * written by 16 plain clients for as long as the documents were sent, and what Postgres and the
 * clients (this process) spent per document. The figure carries it as its ceiling, so a slow
 * hour reads as a fast one does: as a ratio.
 */
async function cpuOfTheSameRows(ctx: BenchContext, figure: Figure, rows: string, seconds: number): Promise<void> {
  const { default: pg } = await import('pg');
  const sales = new pg.Pool({ connectionString: ctx.stack.dbUrl('sales'), max: 16 });
  const accounting = new pg.Pool({ connectionString: ctx.stack.dbUrl('accounting'), max: 16 });
  try {
    const writer = await PlainRowWriter.of(sales, accounting, 'sales_credit_note');
    for (let i = 0; i < 16; i++) await writer.write(); // the pools' connections open, the tables' pages cached
    const before = withOwnCpu(await settledCpu(ctx));
    let n = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        await writer.write();
        n++;
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    stop = true;
    await Promise.all(workers);
    const after = withOwnCpu(await settledCpu(ctx));
    const wall = after.at - before.at;
    const spent = (k: string) => Math.max(0, after.ms[k] - (before.ms[k] ?? 0) - Math.max(0, Math.min(before.idle[k] ?? 0, after.idle[k] ?? 0)) * wall) / Math.max(1, n);
    const ceiling = spent('postgres') + spent(LOAD_GENERATOR);
    figure.ceiling = ceiling;
    figure.ceilingName = 'plain pg writing the same rows (Postgres and its client)';
    figure.ratio = figure.value === null ? null : figure.value / ceiling;
    figure.target = '≤ 3 ms on a fast hour; ≤ 1.5× plain pg on any';
    figure.met = figure.ratio !== null && figure.ratio <= 1.5;
    figure.note =
      `${figure.note}; rows each: ${rows}; plain pg: ${n} documents' rows, ms each: Postgres ${spent('postgres').toFixed(2)}, ` +
      `its client ${spent(LOAD_GENERATOR).toFixed(2)}`;
  } finally {
    await sales.end();
    await accounting.end();
  }
}

/** 2. Credit notes with 10 lines through the gateway vs the same rows inserted with plain pg. */
const documentWrites: Benchmark = {
  title: 'Document writes (credit notes, 10 lines)',
  run: async (ctx) => {
    const seconds = ctx.quick ? 6 : 20;
    const body = JSON.stringify(creditNoteBody(10));
    const headers = { ...ctx.auth, 'content-type': 'application/json' };
    await load({ url: `${ctx.stack.gateway}/v1/sales/credit-notes`, method: 'POST', seconds: 2, headers, body, connections: 8 });
    const cpuBefore = await settledCpu(ctx);
    const writesBefore = await Promise.all([tableWrites(ctx.stack.dbUrl('sales')), tableWrites(ctx.stack.dbUrl('accounting'))]);
    const api = await load({ url: `${ctx.stack.gateway}/v1/sales/credit-notes`, method: 'POST', seconds, headers, body, connections: 16 });
    // the ledger and the rest catch up after the load stops: their work for these documents counts too
    const cpuAfter = await settledCpu(ctx);
    const writesAfter = await Promise.all([tableWrites(ctx.stack.dbUrl('sales')), tableWrites(ctx.stack.dbUrl('accounting'))]);
    const documents = api.total - api.non2xx - api.errors;
    const perNote = pushCpuPer(ctx, 'credit note', cpuBefore, cpuAfter, documents, 'documents');
    const rows = `sales: ${writesPerDocument(writesBefore[0], writesAfter[0], documents)}; accounting: ${writesPerDocument(writesBefore[1], writesAfter[1], documents)}`;
    await cpuOfTheSameRows(ctx, perNote, rows, seconds);

    // The database's ceiling: the same rows (counter upsert, document row with its stored body,
    // outbox event) in one transaction per document, from 16 concurrent connections.
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: ctx.stack.dbUrl('sales'), max: 16 });
    const sample = (await pool.query(`select * from sales_documents where doc_type = 'sales_credit_note' order by id desc limit 1`)).rows[0];
    const outbox = (await pool.query('select subject, type, envelope from kit_outbox order by id desc limit 1')).rows[0];
    let n = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const c = await pool.connect();
        try {
          await c.query('begin');
          const i = ++n;
          const counter = await c.query(
            `insert into number_series_counters (series_id, period_key, last_value) values ($1, 'bench', 1)
             on conflict (series_id, period_key) do update set last_value = number_series_counters.last_value + 1 returning last_value`,
            [sample.counter_id],
          );
          await c.query(
            `insert into sales_documents (uid, org_id, doc_type, no, counter_id, customer_id, customer_name, currency, precision, date_issued,
               subtotal_amount, tax_amount, total_amount, amount_paid, amount_due, payment_status, body)
             values (gen_random_uuid(), $1, 'sales_credit_note', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, $11, 'unpaid', $12)`,
            [sample.org_id, `PG${counter.rows[0].last_value}-${i}`, sample.counter_id, sample.customer_id, sample.customer_name, sample.currency,
              sample.precision, sample.date_issued, sample.subtotal_amount, sample.tax_amount, sample.total_amount, sample.body],
          );
          await c.query(
            `insert into kit_outbox (event_id, subject, type, org_id, envelope, sent_at) values (gen_random_uuid(), $1, $2, $3, $4, now())`,
            [outbox.subject, outbox.type, sample.org_id, outbox.envelope],
          );
          await c.query('commit');
        } finally {
          c.release();
        }
      }
    };
    const started = Date.now();
    const workers = Array.from({ length: 16 }, worker);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    stop = true;
    await Promise.all(workers);
    const ceiling = n / ((Date.now() - started) / 1000);
    await pool.end();
    ctx.figures.push({
      name: 'credit notes via gateway',
      value: api.rps,
      unit: 'docs/s',
      ceiling,
      ceilingName: 'plain pg',
      ratio: api.rps / ceiling,
      target: '≥ 40 % of ceiling, ≥ 300/s',
      met: api.rps / ceiling >= 0.4 && api.rps >= 300,
      note: `p50 ${api.p50} ms, p99 ${api.p99} ms, non-2xx ${api.non2xx}, errors ${api.errors}`,
    });
  },
};

benchmarks.push(documentWrites);

/**
 * 2b. What a credit note crediting an invoice, and a bank transaction paying one, cost across
 * all processes, the ledger entries they cause included: paths the credit notes above (which
 * credit nothing) do not take — the credited invoice's check (decision 113), the payment's
 * match and the paid invoice's figures (decision 114).
 */
const creditsAndPayments: Benchmark = {
  title: 'Credits and payments of invoices',
  run: async (ctx) => {
    const n = ctx.quick ? 300 : 1000;
    const headers = { ...ctx.auth, 'content-type': 'application/json' };
    const ids = await createInvoices(ctx, 2 * n, 'Credits and payments');
    await ctx.stack.vacuumIfNoAutovacuum();
    const credited = ids.slice(0, n);
    const paid = ids.slice(n);
    const { total_amount: total } = (await (await fetch(`${ctx.stack.gateway}/v1/sales/invoices/${paid[0]}`, { headers: ctx.auth })).json()) as { total_amount: number };
    const day = new Date().toISOString().slice(0, 10);

    const before = await settledCpu(ctx);
    const credits = await postEach({
      url: `${ctx.stack.gateway}/v1/sales/credit-notes`,
      count: n,
      headers,
      // the invoice's own customer and lines: each credit note credits one invoice in full
      body: (i) => JSON.stringify({ ...invoiceBody(2), credited_doc_id: credited[i] }),
    });
    const between = await settledCpu(ctx);
    pushCpuPer(ctx, 'credit note crediting an invoice', before, between, credits.total - credits.non2xx - credits.errors, 'documents');

    const payments = await postEach({
      url: `${ctx.stack.gateway}/v1/finance/bank/transactions`,
      count: n,
      headers,
      body: (i) =>
        JSON.stringify({
          account_number: '2400999999/2010',
          statement_id: 77,
          order: i + 1,
          amount: total,
          currency: 'CZK',
          date_transaction: day,
          paid_record: { type: 'sales_invoice', id: paid[i] },
        }),
    });
    const after = await settledCpu(ctx);
    pushCpuPer(ctx, 'bank transaction paying an invoice', between, after, payments.total - payments.non2xx - payments.errors, 'documents');
    const settled = (await (await fetch(`${ctx.stack.gateway}/v1/sales/invoices/${paid[n - 1]}`, { headers: ctx.auth })).json()) as { payment_status?: string };
    ctx.figures.push(
      { name: 'credit notes crediting an invoice', value: credits.rps, unit: 'docs/s', note: `${n} sent, p50 ${credits.p50} ms, p99 ${credits.p99} ms, non-2xx ${credits.non2xx}, errors ${credits.errors}` },
      {
        name: 'bank transactions paying an invoice',
        value: payments.rps,
        unit: 'docs/s',
        note: `${n} sent, p50 ${payments.p50} ms, p99 ${payments.p99} ms, non-2xx ${payments.non2xx}, errors ${payments.errors}; the last invoice paid: ${settled.payment_status}`,
      },
    );
  },
};
benchmarks.push(creditsAndPayments);

/**
 * 3. One numbering series at full tilt through the kit's group commit: each writer takes the next
 * number, writes its document and outbox event in its own savepoint, and concurrent writers share
 * one commit. The same rows as the plain-pg ceiling above, where every document holds the series
 * lock through its own commit.
 */
const groupCommitNumbering: Benchmark = {
  title: 'Numbering: one series, group commit',
  run: async (ctx) => {
    const seconds = ctx.quick ? 5 : 15;
    const { CommitGroups, initOrm, sqlRows } = await import('@ledgerline/service-kit');
    const url = new URL(ctx.stack.dbUrl('sales'));
    const databaseName = url.pathname.slice(1);
    url.pathname = '/postgres';
    const orm = await initOrm({ databaseUrl: url.toString(), databaseName, entities: [], migrations: [], poolMax: 4 });
    const groups = new CommitGroups(orm);
    const em = orm.em.fork();
    // a credit note to copy (the document-writes benchmark leaves many; alone, this one makes one)
    const created = await fetch(`${ctx.stack.gateway}/v1/sales/credit-notes`, { method: 'POST', headers: { ...ctx.auth, 'content-type': 'application/json' }, body: JSON.stringify(creditNoteBody(10)) });
    if (!created.ok) throw new Error(`cannot create a credit note: ${created.status}`);
    const [sample] = await sqlRows<Record<string, any>>(em, `select * from sales_documents where doc_type = 'sales_credit_note' order by id desc limit 1`);
    const [outbox] = await sqlRows<Record<string, any>>(em, 'select subject, type, envelope from kit_outbox order by id desc limit 1');
    const period = `group-${Date.now()}`;
    const statement = `with c as (
        insert into number_series_counters (series_id, period_key, last_value) values (?, ?, 1)
        on conflict (series_id, period_key) do update set last_value = number_series_counters.last_value + 1 returning last_value
      ), d as (
        insert into sales_documents (uid, org_id, doc_type, no, counter_id, customer_id, customer_name, currency, precision, date_issued,
          subtotal_amount, tax_amount, total_amount, amount_paid, amount_due, payment_status, body)
        select gen_random_uuid(), ?, 'sales_credit_note', ? || last_value, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 'unpaid', ?::jsonb from c returning id
      ) insert into kit_outbox (event_id, subject, type, org_id, envelope, sent_at) select gen_random_uuid(), ?, ?, ?, ?, now() from d`;
    const params = [sample.counter_id, period, sample.org_id, `GC${period}-`, sample.counter_id, sample.customer_id, sample.customer_name, sample.currency,
      sample.precision, sample.date_issued, sample.subtotal_amount, sample.tax_amount, sample.total_amount, sample.total_amount, JSON.stringify(sample.body),
      outbox.subject, outbox.type, sample.org_id, outbox.envelope];
    // The ceiling: the same statements back to back on one connection in one transaction (what
    // a group does at best), with plain pg and $n placeholders, rolled back afterwards.
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: ctx.stack.dbUrl('sales') });
    await client.connect();
    let i$ = 0;
    const positional = statement.replace(/\?/g, () => `$${++i$}`);
    const ceilingParams = [...params];
    ceilingParams[1] = `${period}-ceiling`;
    await client.query('begin');
    const c0 = performance.now();
    const ceilingCount = ctx.quick ? 1000 : 3000;
    for (let k = 0; k < ceilingCount; k++) {
      await client.query(k === 0 ? 'savepoint m' : 'release savepoint m; savepoint m');
      await client.query({ name: 'ceiling', text: positional, values: ceilingParams });
    }
    const ceiling = ceilingCount / ((performance.now() - c0) / 1000);
    await client.query('rollback');
    await client.end();

    let n = 0;
    let stop = false;
    const latencies: number[] = [];
    const writer = async () => {
      while (!stop) {
        const t0 = performance.now();
        const member = await groups.join('bench', Number(sample.org_id));
        try {
          await sqlRows(member.em, statement, params, { prepared: true });
        } catch (err) {
          await member.abort();
          throw err;
        }
        await member.finish();
        latencies.push(performance.now() - t0);
        n++;
      }
    };
    const started = Date.now();
    const writers = Array.from({ length: 64 }, writer);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    stop = true;
    await Promise.all(writers);
    const rate = n / ((Date.now() - started) / 1000);
    const [check] = await sqlRows<{ n: number; max: number }>(em, `select count(*)::int as n, max(last_value)::int as max from sales_documents, number_series_counters
      where no like ? and series_id = ? and period_key = ?`, [`GC${period}-%`, sample.counter_id, period]);
    await orm.close(true);
    latencies.sort((a, b) => a - b);
    ctx.figures.push({
      name: 'numbered documents, one series (group commit)',
      value: rate,
      unit: 'docs/s',
      ceiling,
      ceilingName: 'same SQL back to back',
      ratio: rate / ceiling,
      target: '≥ 1000/s',
      met: rate >= 1000,
      note: `64 writers; p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; ${check.n} rows numbered 1…${check.max}${check.n === check.max ? ', gap-free' : ', GAPS'}`,
    });
  },
};

benchmarks.push(groupCommitNumbering);

// --- compliance ----------------------------------------------------------------------------------

async function createInvoices(ctx: BenchContext, count: number, notes = 'bench'): Promise<number[]> {
  const headers = { ...ctx.auth, 'content-type': 'application/json' };
  // marked by their notes, so a figure reads back its own invoices and no earlier figure's
  const mark = `${notes} ${Date.now().toString(36)}`;
  const r = await (await import('autocannon')).default({
    url: `${ctx.stack.gateway}/v1/sales/invoices`,
    method: 'POST',
    headers,
    body: JSON.stringify({ ...invoiceBody(2), notes: mark }),
    connections: 8,
    amount: count,
  });
  if (r.non2xx > 0) throw new Error(`${r.non2xx} invoice creations failed`);
  const ids: number[] = [];
  for (let from = 0; ids.length < count; from += 1000) {
    const page = (await (await fetch(`${ctx.stack.gateway}/v1/sales/invoices?take=1000&from=${from}`, { headers: ctx.auth })).json()) as {
      entities?: Array<{ id: number; notes?: string | null }>;
    };
    if (!page.entities?.length) break;
    ids.push(...page.entities.filter((e) => e.notes === mark).map((e) => e.id));
  }
  return ids.slice(0, count);
}

/** 5. A batch of 1000 invoice ids through the gateway. */
const complianceBatch: Benchmark = {
  title: 'Compliance evaluation (1000-id batch)',
  run: async (ctx) => {
    const ids = await createInvoices(ctx, 1000);
    const times: number[] = [];
    for (let i = 0; i < (ctx.quick ? 3 : 10); i++) {
      const t0 = performance.now();
      const res = await fetch(`${ctx.stack.gateway}/v1/sales/invoices/compliance/evaluate`, {
        method: 'POST',
        headers: { ...ctx.auth, 'content-type': 'application/json' },
        body: JSON.stringify(ids),
      });
      const body = (await res.json()) as unknown[];
      times.push(performance.now() - t0);
      if (res.status !== 202 || body.length !== ids.length) throw new Error(`evaluate answered ${res.status}`);
    }
    const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
    ctx.figures.push({
      name: 'compliance 1000 ids (median)',
      value: median,
      unit: 'ms',
      target: '≤ 1000 ms',
      met: median <= 1000,
      note: `runs: ${times.map((t) => t.toFixed(0)).join(', ')} ms`,
    });
  },
};
benchmarks.push(complianceBatch);

/**
 * 6. List reads through the gateway: a page of 100 invoices (about 300 KB), a day's 20 (the
 * soak's read) and a page of 100 ledger entries, each with the CPU its service and Postgres
 * spent per page; each first page beside its ceiling on the same hour, the same rows (or stored
 * bodies) read by a plain pool and answered as they are by a bare Hono app (bench/hello-hono.ts
 * `/invoice-page`, `/ledger-page`).
 */
const listReads: Benchmark = {
  title: 'Lists (invoices and ledger, through the gateway)',
  run: async (ctx) => {
    const { total } = (await (await fetch(`${ctx.stack.gateway}/v1/sales/invoices?take=0`, { headers: ctx.auth })).json()) as { total: number };
    if (total < 1000) {
      await createInvoices(ctx, 1000 - total);
      // Run alone (`--only=Lists`), the lists' tables were empty at the bench's vacuum before this
      // benchmark and never analyzed: the planner took 1 000 entries for two and read and sorted
      // them all for a page (2.5 ms against 0.9 by the index, EXPLAIN ANALYZE). A server's
      // autovacuum analyzes them within a naptime of the seeding; so does the bench, once the
      // ledger has posted what was seeded.
      await settledCpu(ctx);
      await ctx.stack.vacuumIfNoAutovacuum();
    }
    const day = (await (await fetch(`${ctx.stack.gateway}/v1/sales/invoices?take=1`, { headers: ctx.auth })).json()) as { entities: Array<{ date_issued: string }> };
    const seconds = ctx.quick ? 4 : 10;
    const perPage: Record<string, number> = {};
    for (const [name, service, path] of [
      ['invoice list, 100 per page', 'sales', '/v1/sales/invoices?take=100'],
      ["a day's invoices, 20 per page", 'sales', `/v1/sales/invoices?take=20&date_issued=${day.entities[0].date_issued}`],
      ['ledger, 100 entries per page', 'accounting', '/v1/accounting/transactions?take=100'],
    ] as const) {
      const url = `${ctx.stack.gateway}${path}`;
      await load({ url, seconds: 2, headers: ctx.auth });
      const before = ctx.stack.cpuMs();
      const fromUs = monotonicUs();
      const r = await load({ url, seconds, headers: ctx.auth });
      // `--profile` reads each list's own stretch, per page
      ctx.windows.push({ label: name, fromUs, toUs: monotonicUs(), per: { what: 'page', count: Math.max(1, r.total) } });
      const after = ctx.stack.cpuMs();
      const per = (proc: string) => ((after[proc] - before[proc]) / Math.max(1, r.total)).toFixed(2);
      ctx.figures.push({
        name,
        value: r.rps,
        unit: 'req/s',
        note: `p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}; CPU per page: ${service} ${per(service)} ms, Postgres ${per('postgres')} ms, gateway ${per('gateway')} ms`,
      });
      perPage[service] ??= (after[service] - before[service]) / Math.max(1, r.total);
    }
    // each first page beside its ceiling on this hour: the same rows read by a plain pool and
    // answered as they are by a bare Hono app, with nothing of ours
    const hello = spawnProc('hello', 'bench/hello-hono.ts', 18091, { LEDGER_DATABASE_URL: ctx.stack.dbUrl('accounting'), SALES_DATABASE_URL: ctx.stack.dbUrl('sales') });
    const bareCpu = (): Record<string, number> => ({ ...ctx.stack.cpuMs(), 'bare Hono': cpuSnapshot([{ name: 'bare Hono', pid: hello.child.pid }])['bare Hono'] });
    try {
      await waitReadyHello(18091);
      for (const [name, service, path, what] of [
        ['invoice page, its bodies by plain pg', 'sales', '/invoice-page', 'the same invoices\' stored bodies read through a plain pool and answered as one array'],
        ['ledger page, its rows by plain pg', 'accounting', '/ledger-page', 'the same entries, rows, tax rows and accounts read by the same four statements through a plain pool and answered as they are'],
      ] as const) {
        const url = `http://127.0.0.1:18091${path}?org=${await busiestOrganisation(ctx, service)}&take=100`;
        await load({ url, seconds: 2 });
        const before = bareCpu();
        const fromUs = monotonicUs();
        const r = await load({ url, seconds });
        ctx.windows.push({ label: name, fromUs, toUs: monotonicUs(), per: { what: 'page', count: Math.max(1, r.total) } });
        const after = bareCpu();
        const bare = (after['bare Hono'] - before['bare Hono']) / Math.max(1, r.total);
        ctx.figures.push({
          name,
          value: perPage[service],
          unit: 'ms CPU',
          ceiling: bare,
          ceilingName: 'bare Hono + pg',
          ratio: perPage[service] / Math.max(0.001, bare),
          note: `${service}'s CPU per page of 100 above beside a bare Hono app with ${what} (${r.rps.toFixed(0)} pages/s, Postgres ${((after.postgres - before.postgres) / Math.max(1, r.total)).toFixed(2)} ms a page)`,
        });
      }
    } finally {
      hello.child.kill('SIGTERM');
    }
  },
};

/** The organisation with the most rows in the service's list table: the one the bench's lists read. */
async function busiestOrganisation(ctx: BenchContext, service: 'sales' | 'accounting'): Promise<number> {
  const { default: pg } = await import('pg');
  const db = new pg.Client({ connectionString: ctx.stack.dbUrl(service) });
  await db.connect();
  try {
    const table = service === 'sales' ? 'sales_documents' : 'accounting_transactions';
    return (await db.query(`select org_id from ${table} group by org_id order by count(*) desc limit 1`)).rows[0]?.org_id ?? 1;
  } finally {
    await db.end();
  }
}
benchmarks.push(listReads);

// --- ledger lag ----------------------------------------------------------------------------------

/**
 * 3. From invoice POST to its accounting transaction being readable, at a steady offered rate
 * (the issue's two: p99 ≤ 250 ms at 100 documents/s, ≤ 1 s at 400).
 * The moment of "readable" is taken from `accounting.transaction.posted`, which the accounting
 * service writes in the same transaction as the ledger entry (so the entry is committed when the
 * event leaves); polling the list endpoint 50 times a second would load the system it measures.
 * A sample of entries is then read back through the gateway to confirm.
 */
/**
 * The hour's document capacity: invoices a second through the gateway from 16 connections in a
 * closed loop (each answered before the next is sent), measured once per run. The lag and the
 * soak offer fractions of it (issue 59): a fixed rate is light on a fast hour and past the
 * capacity of a slow one, where any system's queue, not its design, sets the latency.
 */
export async function documentCapacity(ctx: BenchContext): Promise<number> {
  if (ctx.capacity) return ctx.capacity;
  const headers = { ...ctx.auth, 'content-type': 'application/json' };
  const body = JSON.stringify({ ...invoiceBody(2), date_issued: '2031-01-14' });
  const url = `${ctx.stack.gateway}/v1/sales/invoices`;
  // warm: a figure that follows starts on code the processes have run, given capacity or not
  await load({ url, method: 'POST', seconds: 2, headers, body, connections: 16 });
  // a capacity given rather than measured: runs compared on one hour offer the same rates (an A/B of the soak or the lag)
  const given = Number(process.env.BENCH_CAPACITY ?? '');
  if (given > 0) {
    ctx.capacity = given;
    ctx.figures.push({ name: 'document capacity (invoices through the gateway, closed loop)', value: given, unit: 'docs/s', note: 'given by BENCH_CAPACITY, not measured (the processes warmed by 2 s of invoices); the lag and the soak offer fractions of it' });
    await settledCpu(ctx);
    return given;
  }
  const r = await load({ url, method: 'POST', seconds: ctx.quick ? 5 : 10, headers, body, connections: 16 });
  ctx.capacity = r.rps;
  ctx.figures.push({ name: 'document capacity (invoices through the gateway, closed loop)', value: r.rps, unit: 'docs/s', note: `16 connections; p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}; the lag and the soak offer fractions of it` });
  // what the burst left behind (ledger postings, relays) is done before anything else is measured
  await settledCpu(ctx);
  return r.rps;
}

const ledgerLagAtHalfCapacity: Benchmark = {
  title: 'Ledger lag at half the document capacity',
  run: async (ctx) => {
    const capacity = await documentCapacity(ctx);
    await ledgerLagAt(Math.max(10, Math.round(capacity / 2)), 250, '2031-01-17', `half the ${capacity.toFixed(0)} documents/s measured`).run(ctx);
  },
};

/**
 * Twice the hour's capacity (issue 79, part 3): past the capacity on every hour, where the fixed
 * 400 /s is past it only on a slow one. Half of what is offered cannot be taken; what the
 * platform's gates refuse they must refuse early, and what they accept must stay fast.
 */
const ledgerLagAtTwiceCapacity: Benchmark = {
  title: 'Ledger lag at twice the document capacity',
  run: async (ctx) => {
    const capacity = await documentCapacity(ctx);
    await ledgerLagAt(Math.max(20, Math.round(capacity * 2)), 1000, '2031-01-18', `twice the ${capacity.toFixed(0)} documents/s measured`, true).run(ctx);
  },
};

/**
 * `overload`: the rate is past the hour's capacity, so what the system cannot take soon it refuses
 * early (decision 243): a 503 is the figure working, not failing. Its target is then the accepted
 * documents' lag, every one of them in the ledger, and nothing but 503s refused; the refusals'
 * own latency is printed (refused early is refused in milliseconds, not after the queue).
 */
const ledgerLagAt = (rate: number, targetMs: number, day: string, why?: string, overload = false): Benchmark => ({
  title: `Ledger lag at ${rate} documents/s`,
  run: async (ctx) => {
    const seconds = ctx.quick ? 10 : 30;
    const body = JSON.stringify({ ...invoiceBody(2), date_issued: day });
    const headers = { ...ctx.auth, 'content-type': 'application/json' };
    const posted = new Map<string, number>();
    const early = new Map<string, number>();
    const lags: number[] = [];
    const postLatency: number[] = [];
    const refusedLatency: number[] = [];
    let failures = 0;
    const { connect } = await import('@nats-io/transport-node');
    const nc = await connect({ servers: ctx.stack.env.NATS_URL });
    const sub = nc.subscribe(`${ctx.stack.env.NATS_SUBJECT_PREFIX}accounting.transaction.posted.*`, {
      callback: (_err, msg) => {
        const at = performance.now();
        try {
          const data = (JSON.parse(Buffer.from(msg.data).toString('utf8')) as { data: { no?: string; type?: string } }).data;
          if (data.type !== 'sales_invoice' || !data.no) return;
          const start = posted.get(data.no);
          if (start === undefined) early.set(data.no, at);
          else lags.push(at - start);
        } catch {
          /* not ours */
        }
      },
    });
    const inflight: Promise<void>[] = [];
    const failedWith = new Map<number, number>();
    const begin = performance.now();
    for (let i = 0; i < seconds * rate; i++) {
      const due = begin + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const t0 = performance.now();
      inflight.push(
        fetch(`${ctx.stack.gateway}/v1/sales/invoices`, { method: 'POST', headers, body })
          .then(async (res) => {
            if (res.status !== 200) {
              failures++;
              failedWith.set(res.status, (failedWith.get(res.status) ?? 0) + 1);
              if (res.status === 503) refusedLatency.push(performance.now() - t0);
              await res.body?.cancel();
              return;
            }
            const doc = (await res.json()) as { no: string };
            postLatency.push(performance.now() - t0);
            posted.set(doc.no, t0);
            const seen = early.get(doc.no); // the entry can be posted before the answer arrives
            if (seen !== undefined) lags.push(seen - t0);
          })
          .catch(() => {
            failures++;
          }),
      );
    }
    await Promise.all(inflight);
    const achieved = (seconds * rate) / ((performance.now() - begin) / 1000);
    const until = performance.now() + 30_000;
    while (lags.length < posted.size && performance.now() < until) await new Promise((r) => setTimeout(r, 100));
    sub.unsubscribe();
    await nc.close();
    const check = (await (
      await fetch(`${ctx.stack.gateway}/v1/accounting/transactions?date_posting=${day}&take=0&exact_total=true`, { headers: ctx.auth })
    ).json()) as { total: number };
    const sorted = [...lags].sort((a, b) => a - b);
    const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    ctx.figures.push(
      {
        name: `ledger lag p50 at ${rate}/s`,
        value: p(0.5),
        unit: 'ms',
        note: `${why ? `${why}; ` : ''}${lags.length}/${posted.size} entries seen, ${check.total} readable through the gateway, ${failures} failed POSTs${failedWith.size ? ` (${[...failedWith].map(([st, n]) => `${n} × ${st}`).join(', ')})` : ''}${refusedLatency.length ? `, refused in p50 ${percentile(refusedLatency, 50).toFixed(0)} ms p99 ${percentile(refusedLatency, 99).toFixed(0)} ms` : ''}, offered ${achieved.toFixed(0)} docs/s, POST p50 ${percentile(postLatency, 50).toFixed(0)} ms p99 ${percentile(postLatency, 99).toFixed(0)} ms`,
      },
      {
        name: `ledger lag p99 at ${rate}/s`,
        value: p(0.99),
        unit: 'ms',
        target: `≤ ${targetMs} ms`,
        // past the capacity only refusals may fail, and a refused document is not in the ledger:
        // it holds exactly what was answered 200
        met: p(0.99) <= targetMs && lags.length === posted.size && check.total === posted.size && failures === (overload ? refusedLatency.length : 0),
      },
    );
  },
});
benchmarks.splice(2, 0, ledgerLagAtHalfCapacity, ledgerLagAt(100, 250, '2031-01-15'), ledgerLagAt(400, 1000, '2031-01-16', undefined, true), ledgerLagAtTwiceCapacity);

// --- trial balance over 1,000,000 rows -----------------------------------------------------------

/** 4. #25 through the gateway over a million ledger rows vs the hand-written SQL aggregate. */
const trialBalance: Benchmark = {
  title: 'Trial balance over 1,000,000 ledger rows',
  run: async (ctx) => {
    const { default: pg } = await import('pg');
    const db = new pg.Client({ connectionString: ctx.stack.dbUrl('accounting') });
    db.on('error', () => undefined); // the stack drops its databases at the end
    await db.connect();
    try {
    const rows = ctx.quick ? 200_000 : 1_000_000;
    // Balanced two-row entries over three years for organisation 1, loaded directly (the posting
    // path is measured by the ledger-lag figure); the balance trigger is bypassed for the bulk load.
    await db.query(`set session_replication_role = replica`);
    await db.query(
      `insert into accounting_transactions (uid, org_id, book_id, type, source_type, source_id, date_posting, currency, legal_currency, total)
       select gen_random_uuid(), 1, 1, 'sales_invoice', 'bench_invoice', g, date '2023-01-01' + (g % 1095), 'CZK', 'CZK', 121.37
         from generate_series(1, $1::int) g`,
      [rows / 2],
    );
    await db.query(
      `insert into ledger_rows (org_id, transaction_id, book_id, ord, role, date_posting, gl_account_number, debit, credit)
       select t.org_id, t.id, 1, k, 'bench', t.date_posting,
              case when k = 1 then (array['311','221','321','504'])[1 + t.id % 4] else (array['604','343','602','518'])[1 + t.id % 4] end,
              case when k = 1 then 121.37 else 0 end, case when k = 2 then 121.37 else 0 end
         from accounting_transactions t, generate_series(1, 2) k where t.source_type = 'bench_invoice'`,
    );
    await db.query(`set session_replication_role = origin`);
    await db.query('select ledger_day_balances_refresh(1)'); // the triggers were off for the load
    await db.query('vacuum analyze ledger_rows');
    const count = Number((await db.query(`select count(*) from ledger_rows where org_id = 1`)).rows[0].count);

    const range = '[2025-01-01;2025-06-30]';
    const handSql = `
      select gl_account_number,
             coalesce(sum(debit - credit) filter (where date_posting < $2), 0) as ob,
             coalesce(sum(debit) filter (where date_posting >= $2), 0) as debit,
             coalesce(sum(credit) filter (where date_posting >= $2), 0) as credit,
             coalesce(sum(debit) filter (where date_posting >= $4), 0) as ytd_debit,
             coalesce(sum(credit) filter (where date_posting >= $4), 0) as ytd_credit
        from ledger_rows
       where org_id = $1 and book_id = 1 and date_posting <= $3
       group by gl_account_number order by gl_account_number`;
    const runs = ctx.quick ? 3 : 5;
    const sqlTimes: number[] = [];
    const apiTimes: number[] = [];
    let apiRows = 0;
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      await db.query(handSql, [1, '2025-01-01', '2025-06-30', '2025-01-01']);
      sqlTimes.push(performance.now() - t);
      t = performance.now();
      const res = await fetch(`${ctx.stack.gateway}/v1/reporting/financial/trial-balance/1/export/json?date_posting=${range}`, {
        method: 'POST',
        headers: { ...ctx.auth, 'content-type': 'application/json' },
        body: '[]',
      });
      const tb = (await res.json()) as { rows: unknown[] };
      apiTimes.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`trial balance answered ${res.status}`);
      apiRows = tb.rows.length;
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const api = med(apiTimes);
    const sql = med(sqlTimes);
    ctx.figures.push({
      name: `trial balance, ${count.toLocaleString('en')} rows`,
      value: api,
      unit: 'ms',
      ceiling: sql,
      ceilingName: 'hand-written SQL',
      ratio: api / sql,
      target: '≤ 2× SQL and ≤ 1000 ms',
      met: api <= 2 * sql && api <= 1000,
      note: `${apiRows} accounts; gateway runs ${apiTimes.map((x) => x.toFixed(0)).join(', ')} ms; SQL ${sqlTimes.map((x) => x.toFixed(0)).join(', ')} ms`,
    });
    } finally {
      await db.end().catch(() => undefined);
    }
  },
};
benchmarks.push(trialBalance);

// --- soak ------------------------------------------------------------------------------------------

/**
 * What the soak reads off a process's /metrics: V8's heap as its last full collection left it
 * (the heap in use, garbage included, before its first), the event loop's longest lag, the
 * admission gate's refusals.
 */
interface ProcessReading {
  heapMb: number;
  /** Whether `heapMb` is what a full collection left (false: the heap in use, no full collection yet). */
  heapRetained: boolean;
  /** Full collections the process has made since it started. */
  majorCollections: number;
  loopLagMaxMs: number | null;
  shed: Record<string, number>;
}

/** A process's reading from its /metrics (null when it does not answer). */
async function readProcess(baseUrl: string): Promise<ProcessReading | null> {
  try {
    const text = await (await fetch(`${baseUrl}/metrics`)).text();
    const heap = /^nodejs_heap_used_bytes (\d+(?:\.\d+)?)$/m.exec(text);
    if (!heap) return null;
    const lag = /^nodejs_eventloop_lag_max_seconds ([\d.e+-]+)$/m.exec(text);
    const shed: Record<string, number> = {};
    for (const m of text.matchAll(/^\w+_http_requests_shed_total\{reason="(\w+)"\} (\d+)$/gm)) shed[m[1]] = Number(m[2]);
    // what a process retains (decision 262): with the memory reducer off an idle process keeps its
    // garbage for minutes, so the heap in use reads where it is in its sawtooth, not what it holds
    const retained = /^nodejs_heap_used_after_major_gc_bytes (\d+(?:\.\d+)?)$/m.exec(text);
    const majors = /^nodejs_gc_collections_total\{kind="major"\} (\d+)$/m.exec(text);
    return { heapMb: Number((retained ?? heap)[1]) / 1024 / 1024, heapRetained: retained !== null, majorCollections: majors ? Number(majors[1]) : 0, loopLagMaxMs: lag ? Number(lag[1]) * 1000 : null, shed };
  } catch {
    return null;
  }
}

/** A stall of the event loop this long or longer is named in the soak's note. */
const SOAK_LOOP_STALL_MS = 50;

/**
 * The soak's account of its 5xx and of the stalls beside them: the seconds the 5xx came in, who
 * answered them (a service's gate or the gateway's own limit, decision 259), each
 * process whose event loop's longest lag rose past SOAK_LOOP_STALL_MS (and when), and each
 * process's admission-gate refusals by reason over the soak.
 */
function soakDiagnosis(
  fivexxSeconds: Map<number, number>,
  fivexxKinds: Map<string, number>,
  watched: Map<string, { first: ProcessReading; last: ProcessReading; lagRises: Array<{ second: number; ms: number }> }>,
): string {
  const parts: string[] = [];
  if (fivexxSeconds.size) {
    parts.push(`5xx in second ${[...fivexxSeconds].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s} (${n})`).join(', ')}`);
    parts.push(`by whom: ${[...fivexxKinds].map(([kind, n]) => `${n} × ${kind}`).join(', ')}`);
  }
  const stalls = [...watched].flatMap(([name, w]) => w.lagRises.filter((r) => r.ms >= SOAK_LOOP_STALL_MS).map((r) => `${name} ${r.ms.toFixed(0)} ms by second ${r.second}`));
  parts.push(stalls.length ? `event loop held: ${stalls.join(', ')}` : `no event loop held ${SOAK_LOOP_STALL_MS} ms or more`);
  for (const [name, w] of watched) {
    const shed = Object.entries(w.last.shed)
      .map(([reason, n]) => [reason, n - (w.first.shed[reason] ?? 0)] as const)
      .filter(([, n]) => n > 0);
    if (shed.length) parts.push(`${name} refused ${shed.map(([reason, n]) => `${n} ${reason}`).join(', ')}`);
  }
  return `; ${parts.join('; ')}`;
}

/** What the bench did in autovacuum's place during the soak, when the server's own is off. */
function autovacuumNote(
  emulation: { naptimeSeconds: number } | null,
  passes: number,
  done: Map<string, { vacuumed: number; analyzed: number; longestMs: number; second: number }>,
): string {
  if (!emulation) return '';
  const times = (n: number, what: string) => (n ? `${what} ${n}×` : '');
  const tables = [...done]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([t, n]) => `${t} ${[times(n.vacuumed, 'vacuumed'), times(n.analyzed, 'analyzed')].filter(Boolean).join(', ')}`)
    .join('; ');
  // the visits that took longest, and when: beside the 5xx seconds, they say which table's vacuum a burst came with
  const longest = [...done]
    .sort(([, a], [, b]) => b.longestMs - a.longestMs)
    .slice(0, 4)
    .map(([t, n]) => `${t} ${(n.longestMs / 1000).toFixed(1)} s (second ${n.second})`)
    .join(', ');
  return `; the server's autovacuum off, the bench's passes in its place every ${emulation.naptimeSeconds} s (decision 261): ${passes}${tables ? ` — ${tables}; the longest visits: ${longest}` : ', nothing past its thresholds'}`;
}

/** The share of the hour's document capacity the soak's writes are offered at (issue 59). */
const SOAK_SHARE_OF_CAPACITY = 0.4;

/**
 * 7. A steady mixed load (invoices, credit notes, payments, reads) for 5 minutes (20 s quick) at
 * a set share of the hour's measured capacity: no 5xx, every posted document ends up in the
 * ledger, memory (RSS and V8's heap in use) stays flat.
 */
const soak: Benchmark = {
  title: 'Soak: steady mixed load',
  run: async (ctx) => {
    const seconds = ctx.quick ? 20 : 300;
    const capacity = await documentCapacity(ctx);
    // a round is 3 invoices, 1 credit note, 1 payment and 5 reads; rounds a second from the share
    const roundsPerSecond = (capacity * SOAK_SHARE_OF_CAPACITY) / 5;
    const day = '2032-02-02';
    const headers = { ...ctx.auth, 'content-type': 'application/json' };
    const counts = { invoices: 0, creditNotes: 0, payments: 0, reads: 0, fivexx: 0, other: 0 };
    const invoices: Array<{ id: number; total: number }> = [];
    // When the 5xx came (whole seconds into the soak), and what each process's /metrics said then:
    // a stall of its event loop (the longest lag rising) and its gate's refusals, read once a
    // second, name the process and the moment of a burst of 503s.
    const fivexxSeconds = new Map<number, number>();
    const fivexxKinds = new Map<string, number>();
    const watched = new Map<string, { first: ProcessReading; last: ProcessReading; lagRises: Array<{ second: number; ms: number }> }>();
    const watchProcess = (name: string, second: number, r: ProcessReading) => {
      const w = watched.get(name);
      if (!w) return void watched.set(name, { first: r, last: r, lagRises: [] });
      if (r.loopLagMaxMs !== null && w.last.loopLagMaxMs !== null && r.loopLagMaxMs > w.last.loopLagMaxMs) w.lagRises.push({ second, ms: r.loopLagMaxMs });
      w.last = r;
    };
    const call = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${ctx.stack.gateway}${path}`, { ...init, headers });
      if (res.status >= 500) {
        counts.fivexx++;
        const second = Math.floor((performance.now() - begin) / 1000);
        fivexxSeconds.set(second, (fivexxSeconds.get(second) ?? 0) + 1);
        // a service's early refusal carries its mark through the gateway; the gateway's own does not
        const kind = res.status === 503 ? (res.headers.has(OVERLOADED_HEADER) ? "503 the service's gate" : '503 the gateway') : String(res.status);
        fivexxKinds.set(kind, (fivexxKinds.get(kind) ?? 0) + 1);
      }
      else if (res.status >= 300) counts.other++;
      return res;
    };
    ctx.stack.sampleMemory();
    // Each process's RSS once a second over the second half. A collector's sawtooth moves a single
    // reading by tens of MB (a process whose garbage piled up before a full collection), so the
    // figure compares troughs: the lowest reading of the first and of the last tenth of the half
    // (at least 3 s each), which retained memory raises and the sawtooth does not.
    const rssSeconds: Record<string, number[]> = {};
    const heapSeconds: Record<string, HeapReading[]> = {};
    const processUrl = (name: string) => (name === 'gateway' ? ctx.stack.gateway : ctx.stack.url(name));
    const { rssMb } = await import('./stack.js');
    const inflight = new Set<Promise<unknown>>();
    const track = (p: Promise<unknown>) => {
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    };
    // A deployment's autovacuum visits the tables the soak fills while it runs; on a server whose
    // autovacuum is off the bench does what it would, by its thresholds, every naptime (decision
    // 261), its CPU inside the soak's window as a real autovacuum's would be. One pass at a time.
    const autovacuum = await ctx.stack.autovacuumEmulation();
    const autovacuumDone = new Map<string, { vacuumed: number; analyzed: number; longestMs: number; second: number }>();
    let autovacuumPasses = 0;
    let autovacuumRunning = false;
    const begin = performance.now();
    let statement = 1;
    let rounds = 0;
    for (let tick = 0; tick < seconds * 10; tick++) {
      const due = begin + tick * 100;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (autovacuum && tick > 0 && tick % (autovacuum.naptimeSeconds * 10) === 0 && !autovacuumRunning) {
        autovacuumRunning = true;
        autovacuumPasses++;
        track(
          autovacuum
            .pass()
            .then((done) => {
              for (const d of done) {
                const n = autovacuumDone.get(d.table) ?? { vacuumed: 0, analyzed: 0, longestMs: 0, second: 0 };
                const longest = d.ms > n.longestMs;
                autovacuumDone.set(d.table, {
                  vacuumed: n.vacuumed + Number(d.vacuum),
                  analyzed: n.analyzed + Number(d.analyze),
                  longestMs: longest ? d.ms : n.longestMs,
                  second: longest ? Math.floor((d.startedAt - begin) / 1000) : n.second,
                });
              }
            })
            .finally(() => (autovacuumRunning = false)),
        );
      }
      if (tick % 10 === 0) {
        const second = tick / 10;
        for (const p of ctx.stack.procs) {
          if (tick >= seconds * 5) (rssSeconds[p.name] ??= []).push(rssMb(p.child.pid));
          track(
            readProcess(processUrl(p.name)).then((r) => {
              if (!r) return;
              if (tick >= seconds * 5) (heapSeconds[p.name] ??= []).push({ mb: r.heapMb, retained: r.heapRetained, majors: r.majorCollections });
              watchProcess(p.name, second, r);
            }),
          );
        }
      }
      // the rounds due by the end of this tick
      for (; rounds < ((tick + 1) * roundsPerSecond) / 10; rounds++) soakRound(tick);
    }
    function soakRound(tick: number) {
      for (let i = 0; i < 3; i++) {
        track(
          call('/v1/sales/invoices', { method: 'POST', body: JSON.stringify({ ...invoiceBody(3), date_issued: day }) }).then(async (res) => {
            if (res.status === 200) {
              const inv = (await res.json()) as { id: number; total_amount: number };
              invoices.push({ id: inv.id, total: inv.total_amount });
              counts.invoices++;
            }
          }),
        );
      }
      track(
        call('/v1/sales/credit-notes', { method: 'POST', body: JSON.stringify({ ...creditNoteBody(2), date_issued: day }) }).then((res) => {
          if (res.status === 200) counts.creditNotes++;
        }),
      );
      const target = invoices[tick % Math.max(1, invoices.length)];
      if (target) {
        track(
          call('/v1/finance/bank/transactions', {
            method: 'POST',
            body: JSON.stringify({
              account_number: '2400123456/2010',
              statement_id: 9,
              order: statement++,
              amount: target.total,
              currency: 'CZK',
              date_transaction: day,
              date_accounting: day,
              paid_record: { type: 'sales_invoice', id: target.id },
            }),
          }).then((res) => {
            if (res.status === 200) counts.payments++;
          }),
        );
      }
      for (let i = 0; i < 5; i++) {
        const path = i % 2 ? `/v1/sales/invoices?take=20&date_issued=${day}` : target ? `/v1/sales/invoices/${target.id}` : '/v1/settings/organisation';
        track(call(path).then(async (res) => {
          await res.arrayBuffer();
          counts.reads++;
        }));
      }
    }
    await Promise.all([...inflight]);
    const offered = (rounds * 5) / seconds;
    const windowSeconds = Math.max(3, Math.round(seconds / 20));
    const trough = (readings: number[]) => Math.min(...readings);
    const rssStart: Record<string, number> = {};
    const rssEnd: Record<string, number> = {};
    for (const [name, readings] of Object.entries(rssSeconds)) {
      rssStart[name] = trough(readings.slice(0, windowSeconds));
      rssEnd[name] = trough(readings.slice(-windowSeconds));
    }
    // Every posted document and payment must reach the ledger.
    const expected = counts.invoices + counts.creditNotes + counts.payments;
    let inLedger = 0;
    const until = performance.now() + 30_000;
    while (performance.now() < until) {
      const page = (await (await fetch(`${ctx.stack.gateway}/v1/accounting/transactions?date_posting=${day}&take=0&exact_total=true`, { headers: ctx.auth })).json()) as { total: number };
      inLedger = page.total;
      if (inLedger >= expected) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const growth = Object.keys(rssEnd).map((k) => `${k} ${rssStart[k]?.toFixed(0)}→${rssEnd[k].toFixed(0)}`).join(', ');
    const maxGrowth = Math.max(...Object.keys(rssEnd).map((k) => (rssEnd[k] - (rssStart[k] ?? rssEnd[k])) / (rssStart[k] || 1)));
    // V8's heap as a full collection made under the soak's load left it, compared the same way
    const heaps = Object.entries(heapSeconds).map(([k, r]) => [k, retainedHeapGrowth(r, windowSeconds, watched.get(k)?.first.majorCollections ?? 0)] as const);
    const compared = heaps.flatMap(([, h]) => ('growth' in h ? [h.growth] : []));
    const heapGrowth = Math.max(0, ...compared);
    const heapNote = heaps.map(([k, h]) => ('growth' in h ? `${k} ${h.start.toFixed(0)}→${h.end.toFixed(0)}` : `${k} not compared (${h.notCompared})`)).join(', ');
    ctx.figures.push(
      {
        name: `soak ${seconds} s: 5xx answers`,
        value: counts.fivexx,
        unit: '',
        target: '0',
        met: counts.fivexx === 0,
        note: `writes offered at ${offered.toFixed(0)}/s, ${(SOAK_SHARE_OF_CAPACITY * 100).toFixed(0)} % of the ${capacity.toFixed(0)} documents/s measured, reads at the same rate; ${counts.invoices} invoices, ${counts.creditNotes} credit notes, ${counts.payments} payments, ${counts.reads} reads, ${counts.other} 4xx${soakDiagnosis(fivexxSeconds, fivexxKinds, watched)}${autovacuumNote(autovacuum, autovacuumPasses, autovacuumDone)}`,
      },
      { name: 'soak: documents missing from the ledger', value: expected - inLedger, unit: '', target: '0', met: inLedger === expected, note: `${inLedger} of ${expected} in the ledger` },
      {
        name: 'soak: RSS growth, second half',
        value: maxGrowth * 100,
        unit: '%',
        target: 'stable (≤ 15 %)',
        met: maxGrowth <= 0.15,
        note: `MB, the lowest reading of the half's first and last ${windowSeconds} s: ${growth}`,
      },
      {
        name: 'soak: V8 heap retained, growth over the second half',
        value: heapGrowth * 100,
        unit: '%',
        target: 'stable (≤ 15 %)',
        met: compared.length > 0 && heapGrowth <= 0.15,
        note: `MB as the last full collection made under the soak's load left it, troughs as for RSS: ${heapNote}`,
      },
    );
  },
};
benchmarks.push(soak);

/** How long the stall benchmark's lock holds sales' documents table, and when in its load it is taken. */
const STALL_HOLD_MS = [700, 1500];
const STALL_LOAD_SECONDS = 4;

/**
 * 8. A stall of sales' database under the soak's load (decision 269): invoices and reads at 40 %
 * of the hour's capacity, and another session holding sales' documents table for a while, as a
 * disk holding commits or an operator's statement would. A stall is not an overload: what comes
 * in meanwhile waits and is answered once it is over, not refused. Two holds, each in a load of
 * its own: one the gate waits out in full, and one near its longest wait.
 */
const stall: Benchmark = {
  title: "Stall: sales' database held under the soak's load",
  run: async (ctx) => {
    const capacity = await documentCapacity(ctx);
    const rate = Math.max(10, Math.round(capacity * SOAK_SHARE_OF_CAPACITY));
    const headers = { ...ctx.auth, 'content-type': 'application/json' };
    const { default: pg } = await import('pg');
    const holder = new pg.Client({ connectionString: ctx.stack.dbUrl('sales') });
    holder.on('error', () => undefined);
    await holder.connect();
    try {
      for (const [n, holdMs] of STALL_HOLD_MS.entries()) {
        const day = `2032-03-0${n + 1}`;
        const answers: Array<Promise<{ status: number; ms: number; gate: boolean; write: boolean }>> = [];
        const begin = performance.now();
        const count = STALL_LOAD_SECONDS * rate * 2;
        const hold = (async () => {
          await new Promise((r) => setTimeout(r, 1000));
          await holder.query('begin');
          await holder.query('lock table sales_documents in access exclusive mode');
          await new Promise((r) => setTimeout(r, holdMs));
          await holder.query('commit');
        })();
        for (let i = 0; i < count; i++) {
          const due = begin + (i * 1000) / (rate * 2);
          const wait = due - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const write = i % 2 === 0;
          const t0 = performance.now();
          const request = write
            ? fetch(`${ctx.stack.gateway}/v1/sales/invoices`, { method: 'POST', headers, body: JSON.stringify({ ...invoiceBody(2), date_issued: day }) })
            : fetch(`${ctx.stack.gateway}/v1/sales/invoices?take=20&date_issued=${day}`, { headers: ctx.auth });
          answers.push(
            request.then(async (res) => {
              await res.arrayBuffer();
              return { status: res.status, ms: performance.now() - t0, gate: res.headers.has(OVERLOADED_HEADER), write };
            }),
          );
        }
        await hold;
        const done = await Promise.all(answers);
        const fivexx = done.filter((a) => a.status >= 500);
        const written = done.filter((a) => a.write && a.status === 200).length;
        let inLedger = 0;
        const until = performance.now() + 30_000;
        while (performance.now() < until) {
          inLedger = ((await (await fetch(`${ctx.stack.gateway}/v1/accounting/transactions?date_posting=${day}&take=0&exact_total=true`, { headers: ctx.auth })).json()) as { total: number }).total;
          if (inLedger >= written) break;
          await new Promise((r) => setTimeout(r, 250));
        }
        const longest = Math.max(...done.map((a) => a.ms));
        ctx.figures.push({
          name: `stall: sales' documents held ${(holdMs / 1000).toFixed(1)} s at 40 % of the capacity, 5xx answers`,
          value: fivexx.length,
          unit: '',
          target: '0',
          met: fivexx.length === 0 && inLedger === written,
          note: `${rate} invoices/s and as many reads for ${STALL_LOAD_SECONDS} s, ${(capacity * SOAK_SHARE_OF_CAPACITY).toFixed(0)} of the ${capacity.toFixed(0)} documents/s measured; the table held at second 1; ${done.length} requests, ${fivexx.length ? `${fivexx.filter((a) => a.gate).length} refused by sales' gate, ${fivexx.filter((a) => !a.gate).length} by the gateway` : 'none refused'}; the longest answer ${longest.toFixed(0)} ms, p99 ${percentile(done.map((a) => a.ms), 99).toFixed(0)} ms; ${inLedger} of ${written} invoices in the ledger`,
        });
      }
    } finally {
      await holder.end().catch(() => undefined);
    }
  },
};
benchmarks.push(stall);

// --- a large organisation ------------------------------------------------------------------------

// last: it leaves organisation 1 with a million invoices and ten million ledger rows
benchmarks.push(scale);
