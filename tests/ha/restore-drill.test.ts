import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { PrivatePostgres } from '../support/private-postgres.js';
import { invoiceBody } from '../sales/helpers.js';
import { LoadClients } from './load.js';

/*
 * The restore drill of `npm run test:ha` (issue 72): `npm run backup -- --follow` while invoices
 * are written; `npm run restore` to two chosen moments — the documents' services to one, the
 * ledger's to an earlier one — into fresh databases, while writes go on in the running system.
 * Then: every invoice acknowledged before its moment is there once; the services started on the
 * restored databases converge (the ledger catches up on what the restored documents say, and the
 * ledger check reports clean, with no rebuild run by hand); the RPO and RTO measured are printed.
 */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const tsx = (script: string) => [process.execPath, ['--import', 'tsx', path.join(root, script)]] as const;

let db: PrivatePostgres;
let stack: Stack;
let restored: Stack | undefined;
let load: LoadClients | undefined;
const backupDir = mkdtempSync(path.join(os.tmpdir(), 'ledgerline-backup-'));

beforeAll(async () => {
  db = new PrivatePostgres('drill');
  await db.init();
  await db.start();
  stack = await startStack({ services: ['sales', 'accounting'], env: { DATABASE_URL: db.url } });
}, 180_000);
afterAll(async () => {
  await load?.stop();
  await restored?.close();
  await stack?.close();
  await db?.destroy();
  rmSync(backupDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rowsOf = async <T extends pg.QueryResultRow>(database: string, sql: string): Promise<T[]> => {
  const c = new pg.Client({ connectionString: db.url.replace(/\/postgres$/, `/${database}`) });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
};

describe('backup and point-in-time restore while writes go on', () => {
  it('restores every document acknowledged before the moment once, and the restored services converge', async () => {
    load = new LoadClients(8, (key) =>
      stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ notes: key, date_issued: '2031-09-10' }), headers: { 'idempotency-key': key } }),
    );
    load.start();
    await sleep(2000);

    const env = { ...process.env, DATABASE_URL: db.url, DATABASE_PREFIX: stack.env.DATABASE_PREFIX, NATS_URL: stack.env.NATS_URL, NATS_SUBJECT_PREFIX: stack.env.NATS_SUBJECT_PREFIX, LOG_LEVEL: 'error' };
    const [node, args] = tsx('scripts/backup.ts');
    const backup: ChildProcess = spawn(node, [...args, '--dir', backupDir, '--follow'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let backupOutput = '';
    backup.stdout!.on('data', (d) => (backupOutput += d));
    backup.stderr!.on('data', (d) => (backupOutput += d));
    await eventually(async () => backupOutput.includes('following the WAL until stopped') || backup.exitCode !== null, 120_000, 100);
    expect(backupOutput).toContain('following the WAL until stopped');

    // the ledger's moment, then the documents' one, a few seconds apart, under load all along
    await sleep(3000);
    const ledgerMoment = new Date();
    await sleep(3000);
    const documentsMoment = new Date();
    await sleep(2000);
    backup.kill('SIGTERM');
    await new Promise((r) => backup.once('exit', r));
    expect(backup.exitCode).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest.wal.until).not.toBeNull();
    expect(manifest.databases).toEqual(['sales', 'accounting', 'settings'].map((s) => `${stack.env.DATABASE_PREFIX}${s}`).sort());
    // the streams as they stood: the sales events of invoices acknowledged before the export began
    expect(manifest.streams[`${stack.env.NATS_SUBJECT_PREFIX.replace(/\W/g, '_').toUpperCase()}SALES`].messages).toBeGreaterThan(0);

    // restored while the running system goes on writing
    const prefix = `${stack.env.DATABASE_PREFIX}r_`;
    const [rnode, rargs] = tsx('scripts/restore.ts');
    const restoreStarted = Date.now();
    const documents = await run(rnode, [...rargs, '--from', backupDir, '--prefix', prefix, '--at', documentsMoment.toISOString(), '--services', 'settings,sales'], { cwd: root, env, timeout: 300_000 });
    const documentsRto = Date.now() - restoreStarted;
    const ledgerStarted = Date.now();
    const ledger = await run(rnode, [...rargs, '--from', backupDir, '--prefix', prefix, '--at', ledgerMoment.toISOString(), '--services', 'accounting'], { cwd: root, env, timeout: 300_000 });
    const ledgerRto = Date.now() - ledgerStarted;
    process.stdout.write(`${documents.stdout}${ledger.stdout}`);
    expect(documents.stdout).toMatch(/restored settings, sales to .* into .*r_\* in [\d.]+ s/);
    expect(ledger.stdout).toMatch(/restored accounting to .* into .*r_\* in [\d.]+ s/);
    // a fresh database only: the same restore again is refused and changes nothing
    const again = await run(rnode, [...rargs, '--from', backupDir, '--prefix', prefix, '--services', 'sales'], { cwd: root, env }).catch((e) => e);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`npm run restore: ${prefix}sales exist already: a restore writes into fresh databases only (choose another --prefix)\n`);
    await load.stop();

    // every invoice acknowledged before the documents' moment is there, once; nothing that was never sent is
    const stored = await rowsOf<{ notes: string; n: number }>(`${prefix}sales`, "select notes, count(*)::int as n from sales_documents where notes like 'ha-%' group by notes");
    const storedKeys = new Map(stored.map((r) => [r.notes, r.n]));
    const before = load.acknowledged().filter((a) => a.at <= documentsMoment.getTime());
    expect(before.length).toBeGreaterThan(50);
    expect(before.filter((a) => storedKeys.get(a.key) !== 1).map((a) => a.key)).toEqual([]);
    const sent = new Set(load.attempts.map((a) => a.key));
    expect(stored.filter((r) => !sent.has(r.notes) || r.n !== 1)).toEqual([]);
    // acknowledged after the moment: not there (bar those committed just before it, answered just after)
    const after = load.acknowledged().filter((a) => a.at > documentsMoment.getTime() + 1000);
    expect(after.filter((a) => storedKeys.has(a.key))).toEqual([]);
    const newestKept = Math.max(...load.acknowledged().filter((a) => storedKeys.has(a.key)).map((a) => a.at));

    // the services started on the restored databases, with streams of their own
    restored = await startStack({ services: ['sales', 'accounting'], env: { DATABASE_URL: db.url, DATABASE_PREFIX: prefix } });
    const invoiceIds = (await rowsOf<{ id: string }>(`${prefix}sales`, "select id from sales_documents where doc_type = 'sales_invoice'")).map((r) => Number(r.id)).sort((a, b) => a - b);
    const convergedAt = await eventually(async () => {
      const posted = await rowsOf<{ source_id: string; n: number }>(
        `${prefix}accounting`,
        "select source_id, count(*)::int as n from accounting_transactions where source_type = 'sales_invoice' and entry_kind = 'posting' group by source_id",
      );
      if (posted.length < invoiceIds.length) return undefined;
      expect(posted.filter((p) => p.n !== 1)).toEqual([]);
      expect(posted.map((p) => Number(p.source_id)).sort((a, b) => a - b)).toEqual(invoiceIds);
      return Date.now();
    }, 120_000, 500);
    const check = await run(node, [...tsx('apps/accounting/src/cli/rebuild-ledger.ts')[1], '--org', '1', '--check'], {
      cwd: root,
      env: { ...env, DATABASE_PREFIX: prefix, NATS_SUBJECT_PREFIX: restored.env.NATS_SUBJECT_PREFIX },
      timeout: 120_000,
    });
    expect(check.stdout).toMatch(/the ledger matches its streams: a rebuild would change nothing\n$/);

    process.stdout.write(
      [
        '',
        `restore drill: ${before.length} invoices acknowledged before ${documentsMoment.toISOString()}, all restored once`,
        `RPO: ${((documentsMoment.getTime() - newestKept) / 1000).toFixed(2)} s between the moment and the newest acknowledged invoice restored (WAL followed synchronously)`,
        `RTO: documents (settings, sales) ${(documentsRto / 1000).toFixed(1)} s, ledger (accounting, ${((documentsMoment.getTime() - ledgerMoment.getTime()) / 1000).toFixed(0)} s earlier) ${(ledgerRto / 1000).toFixed(1)} s, converged ${((convergedAt - restoreStarted) / 1000).toFixed(1)} s after the restore began`,
        '',
      ].join('\n'),
    );
  }, 600_000);
});
