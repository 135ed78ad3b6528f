import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type pg from 'pg';
import { SUBJECTS } from '@ledgerline/contracts';
import type { BenchContext, Figure } from './context.js';
import { percentile } from './load.js';
import { POSTGRES_SHARE_PREFIX, root } from './stack.js';

/*
 * A full ledger rebuild (`npm run rebuild-ledger -- --org N`) of an organisation whose ledger the
 * live consumers built from its events, timed with the API up and read from meanwhile. A rebuild
 * replays the streams, so the organisation's documents must be events in JetStream: the template
 * invoice and payment the scale benchmark posted through the API are read back from their streams
 * and published again for another organisation, `documents` times each with their own ids. The
 * figure states the rate and what 10 000 000 rows would take at it.
 */

const REBUILD_ORG = 2;
const TEN_MILLION = 10_000_000;

/** The last event on a subject of the bench's prefix, as JSON. */
async function lastEvent(jsm: Awaited<ReturnType<typeof jetstreamManager>>, subject: string): Promise<Record<string, any>> {
  const stream = await jsm.streams.find(subject);
  const m = await jsm.streams.getMessage(stream, { last_by_subj: subject });
  if (!m) throw new Error(`no event on ${subject}`);
  return m.json<Record<string, any>>();
}

/** `documents` invoices of the rebuild organisation and a payment of each, published as the services publish them. */
async function publishDocuments(ctx: BenchContext, documents: number): Promise<void> {
  const prefix = ctx.stack.env.NATS_SUBJECT_PREFIX;
  const nc = await connect({ servers: ctx.stack.env.NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const invoice = await lastEvent(jsm, `${prefix}${SUBJECTS.salesInvoicePosted}.1`);
    const payment = await lastEvent(jsm, `${prefix}${SUBJECTS.financeBankTransactionRecorded}.1`);
    const copies = function* () {
      for (let g = 1; g <= documents; g++) {
        const id = 1_000_000 + g;
        const no = `RB${String(g).padStart(8, '0')}`;
        yield { subject: SUBJECTS.salesInvoicePosted, event: { ...invoice, id: randomUUID(), orgid: String(REBUILD_ORG), subject: String(id), data: { ...invoice.data, id, no, uid: randomUUID() } } };
        yield {
          subject: SUBJECTS.financeBankTransactionRecorded,
          event: { ...payment, id: randomUUID(), orgid: String(REBUILD_ORG), subject: String(id), data: { ...payment.data, id, paid_record: { ...payment.data.paid_record, id, no } } },
        };
      }
    };
    // many in flight at once: a publish waits for the stream's acknowledgement
    let inFlight: Array<Promise<unknown>> = [];
    for (const c of copies()) {
      inFlight.push(js.publish(`${prefix}${c.subject}.${REBUILD_ORG}`, JSON.stringify(c.event), { msgID: c.event.id }));
      if (inFlight.length >= 1000) {
        await Promise.all(inFlight);
        inFlight = [];
      }
    }
    await Promise.all(inFlight);
  } finally {
    await nc.close();
  }
}

interface LedgerSize {
  entries: number;
  rows: number;
  debit: string;
}

async function ledgerSize(accounting: pg.Client, orgId: number): Promise<LedgerSize> {
  const r = await accounting.query(
    `select (select count(*) from accounting_transactions where org_id = $1)::int as entries,
            (select count(*) from ledger_rows where org_id = $1)::int as rows,
            (select coalesce(sum(debit), 0)::text from ledger_rows where org_id = $1) as debit`,
    [orgId],
  );
  return r.rows[0];
}

/** Runs the command-line rebuild against the bench's stack; answers its wall-clock seconds and output. */
function runRebuild(ctx: BenchContext, orgId: number, args: string[] = [], onOutput?: (stdout: string) => void): Promise<{ seconds: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('npx', ['tsx', 'apps/accounting/src/cli/rebuild-ledger.ts', '--org', String(orgId), ...args], {
      cwd: root,
      env: { ...process.env, ...ctx.stack.env, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      onOutput?.(stdout);
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve({ seconds: (performance.now() - t0) / 1000, stdout }) : reject(new Error(`rebuild-ledger exited ${code}: ${stderr.slice(-500)}`))));
  });
}

/** The tables a rebuild writes, in the order their rows depend on each other. */
const LEDGER_TABLES = ['accounting_transactions', 'ledger_rows', 'ledger_tax_rows'] as const;

/**
 * The ceiling a rebuild is read against: the organisation's rebuilt rows (headers, rows, tax rows)
 * written out by the server, then loaded by plain `COPY` into tables made like the ledger's
 * (`like … including all`: the same columns, defaults and indexes, no triggers or foreign keys)
 * in one transaction. Answers the load's seconds; the tables and files are removed.
 */
async function copyCeiling(accounting: pg.Client, orgId: number): Promise<number> {
  const file = (table: string) => `/tmp/ledgerline-bench-copy-${process.pid}-${table}`;
  const scratch = (table: string) => `bench_copy_${table}`;
  try {
    for (const table of LEDGER_TABLES) {
      await accounting.query(`copy (select * from ${table} where org_id = ${Number(orgId)}) to '${file(table)}'`);
      await accounting.query(`drop table if exists ${scratch(table)}`);
      await accounting.query(`create table ${scratch(table)} (like ${table} including all)`);
    }
    const t0 = performance.now();
    await accounting.query('begin');
    for (const table of LEDGER_TABLES) await accounting.query(`copy ${scratch(table)} from '${file(table)}'`);
    await accounting.query('commit');
    return (performance.now() - t0) / 1000;
  } finally {
    await accounting.query('rollback').catch(() => undefined);
    for (const table of LEDGER_TABLES) {
      await accounting.query(`drop table if exists ${scratch(table)}`).catch(() => undefined);
      rmSync(file(table), { force: true });
    }
  }
}

/** The rebuild figures: the time, the rate and what ten million rows would take at it, beside a plain COPY of the same rows; the API's answers meanwhile. */
export async function measureRebuild(ctx: BenchContext, accounting: pg.Client, documents: number): Promise<Figure[]> {
  const published = performance.now();
  await publishDocuments(ctx, documents);
  const publishSeconds = (performance.now() - published) / 1000;
  // the live consumers post them first, as they would have over the organisation's life
  const expected = documents * 2;
  const live = performance.now();
  for (;;) {
    if ((await ledgerSize(accounting, REBUILD_ORG)).entries >= expected) break;
    if (performance.now() - live > 30 * 60_000) throw new Error('the live ledger did not take the rebuild organisation’s events within 30 minutes');
    await new Promise((r) => setTimeout(r, 500));
  }
  const liveSeconds = (performance.now() - live) / 1000;
  const before = await ledgerSize(accounting, REBUILD_ORG);

  // the API read meanwhile, as users would: list pages of the large organisation, 20 a second
  // (a closed loop would measure how the two share the cores, not whether the API stays up)
  let reading = true;
  const times: number[] = [];
  let failed = 0;
  const reader = (async () => {
    const paths = ['/v1/sales/invoices?take=100', '/v1/accounting/transactions?take=100&sort=-date_posting&sort=-id'];
    for (let i = 0; reading; i++) {
      const t0 = performance.now();
      const res = await fetch(`${ctx.stack.gateway}${paths[i % 2]}`, { headers: ctx.auth });
      await res.arrayBuffer();
      const ms = performance.now() - t0;
      times.push(ms);
      if (res.status !== 200) failed++;
      await new Promise((r) => setTimeout(r, Math.max(0, 50 - ms)));
    }
  })();
  // Postgres' CPU for the accounting database while it ran, read each second so the rebuild's
  // backend is counted before it ends with the command
  const postgres = `${POSTGRES_SHARE_PREFIX}accounting`;
  const cpuBefore = ctx.stack.cpuMs()[postgres] ?? 0;
  let cpuAfter = cpuBefore;
  let cpuBetween = cpuBefore;
  const sampler = setInterval(() => (cpuAfter = ctx.stack.cpuMs()[postgres] ?? cpuAfter), 1000);
  let run: { seconds: number; stdout: string };
  let rebuiltAt: number | undefined;
  // the same rebuild replaying every event in order (as before generations, decision 245), first,
  // under the same reader: the generation's figure beside it on the same hour
  let inOrder: { seconds: number; stdout: string };
  try {
    inOrder = await runRebuild(ctx, REBUILD_ORG, ['--in-order']);
    cpuBetween = ctx.stack.cpuMs()[postgres] ?? cpuAfter;
    // Postgres' CPU up to the rebuild's own line: what the command does after it (statistics, views) is apart
    run = await runRebuild(ctx, REBUILD_ORG, [], (out) => {
      if (rebuiltAt === undefined && /^ledger of organisation \d+ rebuilt .*\n/m.test(out)) rebuiltAt = ctx.stack.cpuMs()[postgres] ?? cpuAfter;
    });
  } finally {
    clearInterval(sampler);
    reading = false;
    await reader;
  }
  cpuAfter = ctx.stack.cpuMs()[postgres] ?? cpuAfter;
  const after = await ledgerSize(accounting, REBUILD_ORG);
  if (after.entries !== before.entries || after.rows !== before.rows || after.debit !== before.debit) {
    throw new Error(`the rebuilt ledger differs: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
  }
  // the rebuild's own time, as the command reports it (its start-up is not the rebuild's)
  const said = / in (\d+(?:\.\d+)?) s \(staging (\d+(?:\.\d+)?) s(?: with \d+ drafting threads?)?, (?:deleting the old ledger|comparing the old ledger and deleting what differs) (\d+(?:\.\d+)?) s; this process's CPU (\d+(?:\.\d+)?) s\)$/m.exec(run.stdout);
  const seconds = Number(said?.[1] ?? run.seconds);
  const stageSeconds = Number(said?.[2] ?? NaN);
  const clearSeconds = Number(said?.[3] ?? NaN);
  const commandCpu = Number(said?.[4] ?? NaN);
  // the views the command writes after its commit (decision 260): apart from the rebuild's figure,
  // since the rebuilt ledger answers meanwhile (its pages build the entries not yet filled)
  const filled = /^stored views of (\d+) entries written in (\d+(?:\.\d+)?) s$/m.exec(run.stdout);
  const analyzed = /^statistics of the ledger's tables refreshed in (\d+(?:\.\d+)?) s$/m.exec(run.stdout);
  const viewsNote = (analyzed ? `then the planner's statistics refreshed in ${analyzed[1]} s, ` : '') + (filled
    ? `the stored views of ${filled[1]} entries written in ${filled[2]} s (${Math.round(Number(filled[1]) / Math.max(0.001, Number(filled[2])))} entries/s, the API answering meanwhile); `
    : 'the command named no stored views written; ');
  const inOrderSeconds = Number(/ in (\d+(?:\.\d+)?) s \(/.exec(inOrder.stdout)?.[1] ?? inOrder.seconds);
  const postgresCpu = ((rebuiltAt ?? cpuAfter) - cpuBetween) / 1000;
  // CPU a row, of the command and of Postgres: what ten million rows cost whatever the cores
  const cpuPerRow = ((commandCpu + postgresCpu) / after.rows) * 1e6;
  const rowsPerSecond = after.rows / seconds;
  const projected = TEN_MILLION / rowsPerSecond;
  // the same rows by plain COPY, once the API's reader has stopped: what bulk loading alone reaches
  const copySeconds = await copyCeiling(accounting, REBUILD_ORG);
  const copyRowsPerSecond = after.rows / copySeconds;
  return [
    {
      name: `ledger rebuild of an organisation (${after.entries} entries, ${after.rows} rows), projected to 10 000 000 rows`,
      value: projected,
      unit: 's',
      ceiling: TEN_MILLION / copyRowsPerSecond,
      ceilingName: 'plain COPY of the same rows',
      ratio: copyRowsPerSecond > 0 ? rowsPerSecond / copyRowsPerSecond : null,
      target: '≤ 300 s for 10 000 000 rows',
      met: projected <= 300,
      note:
        `${seconds.toFixed(1)} s for ${after.rows} rows (${Math.round(rowsPerSecond)} rows/s, ${Math.round(after.entries / seconds)} entries/s; the command ran ${run.seconds.toFixed(1)} s with its start); ` +
        viewsNote +
        `replaying every event in order instead (--in-order, just before, the same reader) ${inOrderSeconds.toFixed(1)} s; ` +
        `staging the generation ${stageSeconds.toFixed(1)} s of it (the API's ledger untouched meanwhile), comparing the old ledger and deleting what differs ${clearSeconds.toFixed(1)} s; CPU: the command ${commandCpu.toFixed(1)} s, Postgres' accounting backends ${postgresCpu.toFixed(1)} s (the API's ledger reads among them), ` +
        `${cpuPerRow.toFixed(0)} µs a row together, so 10 000 000 rows need ${((cpuPerRow * TEN_MILLION) / 1e6).toFixed(0)} CPU-seconds; ` +
        `the rebuilt ledger equals the live one (entries, rows, Σ debit); ${expected} events published in ${publishSeconds.toFixed(0)} s, posted live in ${liveSeconds.toFixed(0)} s; ` +
        `a plain COPY of the same rows (headers, rows, tax rows into tables like the ledger's, indexes included, no triggers or foreign keys, one transaction) ${copySeconds.toFixed(1)} s, ${Math.round(copyRowsPerSecond)} rows/s`,
    },
    {
      name: 'API during the rebuild: list pages of the large organisation, p99',
      value: percentile(times, 99),
      unit: 'ms',
      target: 'answers throughout (no 5xx)',
      met: failed === 0 && times.length > 0,
      note: `${times.length} pages read while it ran, ${failed} not 200; p50 ${percentile(times, 50).toFixed(1)} ms`,
    },
  ];
}
