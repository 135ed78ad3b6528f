import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import path from 'node:path';
import os from 'node:os';
import { promisify } from 'node:util';
import pg from 'pg';
import { eventually } from '../support/stack.js';
import { startSystem, type RunningSystem } from '../support/npm-start.js';
import { PrivatePostgres } from '../support/private-postgres.js';
import { NatsCluster } from '../support/nats-cluster.js';
import { invoiceBody } from '../sales/helpers.js';
import { LoadClients, faultReport, printReport, type FaultReport } from './load.js';

/*
 * `npm run test:ha` (issue 72): the system on infrastructure that fails over, all of it local
 * processes on loopback, started and stopped here:
 * - a NATS cluster of three nodes, the streams replicated on all three (NATS_STREAM_REPLICAS=3),
 *   every process given the three URLs;
 * - a Postgres primary with a synchronous streaming standby, the services given both in a
 *   multi-host DATABASE_URL (they use the one that takes writes);
 * - `npm start` with two replicas of every service behind the gateway.
 * Under steady load through the gateway (clients with Idempotency-Keys that retry as a client
 * would): one NATS node SIGKILLed; the Postgres primary SIGKILLed and the standby promoted; one
 * replica of each service SIGKILLed. For each: the documents acknowledged, those in the ledger
 * (every one, once), how long writes failed and the p99 around it.
 */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const SERVICES = ['settings', 'sales', 'purchase', 'finance', 'accounting'];

let nats: NatsCluster;
let primary: PrivatePostgres;
let standby: PrivatePostgres;
let system: RunningSystem;
let databaseUrl: string;

beforeAll(async () => {
  nats = new NatsCluster(3);
  await nats.start();
  primary = new PrivatePostgres('ha-primary');
  // every commit waits for the standby to have it: a failover loses no acknowledged write
  await primary.init({ synchronous_standby_names: "'*'", synchronous_commit: 'on', hot_standby: 'on', wal_keep_size: "'512MB'" });
  await primary.start();
  standby = new PrivatePostgres('ha-standby');
  // promoted, it runs alone: no standby of its own to wait for
  await standby.cloneFrom(primary, { synchronous_standby_names: "''" });
  await standby.start();
  await eventually(async () => {
    const c = new pg.Client({ connectionString: primary.url });
    await c.connect();
    try {
      const { rows } = await c.query<{ sync_state: string }>('select sync_state from pg_stat_replication');
      return rows.some((r) => r.sync_state === 'sync');
    } finally {
      await c.end();
    }
  }, 30_000, 200);
  databaseUrl = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres`;
  system = await startSystem(
    'ha',
    {
      DATABASE_URL: databaseUrl,
      NATS_URL: nats.url,
      NATS_STREAM_REPLICAS: '3',
      REPLICAS: '2',
      DATA_DIR: path.join(os.tmpdir(), `ledgerline-ha-${process.pid}`),
      // a client's rate, not a test's: the gateway's limits as deployed
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
    },
    180_000,
  );
}, 300_000);

afterAll(async () => {
  await system?.stop();
  await nats?.destroy();
  await standby?.destroy();
  await primary?.destroy();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('failover under load', () => {
  it('loses no acknowledged document and writes resume within bounds when a NATS node, the database primary and a replica of each service die', async () => {
    const load = new LoadClients(24, (key) =>
      fetch(`${system.gateway}/v1/sales/invoices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(invoiceBody({ notes: key, date_issued: '2031-07-08' })),
      }),
    );
    load.start();
    await sleep(8000);
    const steady = load.rate(Date.now() - 5000, Date.now());

    // 1. one NATS node (the first, whose URL every client tried first)
    const natsFault = Date.now();
    nats.kill(0);
    await sleep(10_000);
    nats.startNode(0);
    await sleep(5000);

    // 2. the database primary, and the standby promoted (what CloudNativePG does on its own)
    const dbFault = Date.now();
    await primary.stop('kill');
    await standby.promote();
    await eventually(async () => load.acknowledgedSince(Date.now() - 1000) > 0, 30_000, 100);
    await sleep(8000);

    // 3. one replica of every service (its supervisor starts it again). Until they are back the
    // other replicas carry the load alone, past their capacity at this load on a small machine:
    // they refuse early what they cannot take soon (decisions 243, 248), a 503 clients retry.
    // Five processes starting together under load took 7-9 s here, so the bound is on writes
    // resuming once the replicas answer again, and on how long that takes.
    const replicaFault = Date.now();
    for (const s of SERVICES) process.kill(system.pids[`${s}-2`], 'SIGKILL');
    const gatewayPort = Number(new URL(system.gateway).port);
    const secondReplicaPorts = [1, 2, 3, 4, 5].map((offset) => gatewayPort + offset + 100);
    await eventually(
      async () => (await Promise.all(secondReplicaPorts.map((p) => fetch(`http://127.0.0.1:${p}/healthz`).then((r) => r.ok, () => false)))).every(Boolean),
      30_000,
      100,
    );
    const replicasBackMs = Date.now() - replicaFault;
    await sleep(5000);
    await load.stop();
    const end = Date.now();

    // every acknowledged invoice in the ledger, once (on the promoted server, now the primary)
    const ledger = new pg.Client({ connectionString: standby.url.replace(/\/postgres$/, `/${system.env.DATABASE_PREFIX}accounting`) });
    await ledger.connect();
    let posted: Map<number, number>;
    try {
      posted = await eventually(async () => {
        const { rows } = await ledger.query<{ source_id: string; n: number }>(
          "select source_id, count(*)::int as n from accounting_transactions where source_type = 'sales_invoice' and entry_kind = 'posting' group by source_id",
        );
        const byId = new Map(rows.map((r) => [Number(r.source_id), r.n]));
        return load.acknowledged().every((a) => byId.has(a.id)) ? byId : undefined;
      }, 90_000, 500);
    } finally {
      await ledger.end();
    }

    const reports: FaultReport[] = [
      faultReport('NATS node SIGKILL', natsFault, dbFault, load, posted, 2000),
      faultReport('Postgres primary SIGKILL, standby promoted', dbFault, replicaFault, load, posted, 15_000),
      faultReport(`one replica of each service SIGKILL (back after ${(replicasBackMs / 1000).toFixed(1)} s)`, replicaFault, end, load, posted, replicasBackMs + 2000),
    ];
    printReport(steady, reports, load.acknowledged().length);

    // the faults must meet writes in flight; how fast this machine writes is the bench's to measure
    // (the same commit gave 75-120 documents/s one day and 27 on a slower one), not this test's
    expect(steady).toBeGreaterThanOrEqual(10);
    // the supervisor starts a killed replica again after its first back-off (0.5 s); five starting
    // together under load took 8-13 s here and in CI, and the wait above gives them 30 s
    expect(replicasBackMs).toBeLessThanOrEqual(30_000);
    // named in the assertion's own message: a failed one shows an array as its length ("[ …(3) ]"),
    // and CI's summary keeps only the message
    const unexpected = load.unexpectedAnswers().map((a) => `${a.key}: ${a.status} ${a.code ?? ''} ${a.detail ?? ''} at +${((a.end - natsFault) / 1000).toFixed(1)} s`);
    expect(unexpected, `answers no client should get: ${unexpected.slice(0, 10).join('; ')}`).toEqual([]);
    for (const r of reports) {
      expect(r.inLedgerOnce, r.fault).toBe(r.acknowledged);
      expect(r.failedWindowMs, r.fault).toBeLessThanOrEqual(r.boundMs);
    }
    expect([...posted.values()].filter((n) => n !== 1)).toEqual([]);
    const ids = load.acknowledged().map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);

    // the ledger re-derived from the streams is the ledger there is: nothing to rebuild
    const check = await run(process.execPath, ['--import', 'tsx', path.join(root, 'apps/accounting/src/cli/rebuild-ledger.ts'), '--org', '1', '--check'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, DATABASE_PREFIX: system.env.DATABASE_PREFIX, NATS_URL: nats.url, NATS_SUBJECT_PREFIX: system.env.NATS_SUBJECT_PREFIX, LOG_LEVEL: 'error' },
      timeout: 120_000,
    });
    expect(check.stdout).toMatch(/^ledger of organisation 1: (\d+) accounting transactions now; a rebuild from the \d+ events in the streams \((?:staged as a generation|replayed in order)\) would make \1\nthe ledger matches its streams: a rebuild would change nothing\n$/);
  }, 600_000);
});
