import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { INTERNAL_HEADERS } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation } from '../support/stack.js';
import { CUSTOMER, VAT21, invoiceBody } from '../sales/helpers.js';

/*
 * The container image runs JavaScript, not TypeScript through a loader: `npm run build` bundles
 * each process into dist/. The built processes start on plain `node`, the sales service's
 * render worker (a forked child) renders from the built engine, and its PDF printer's thread
 * starts from the file beside the bundle.
 */
const root = path.resolve(import.meta.dirname, '../..');
const env = isolation();
const children: ChildProcess[] = [];
/** What each started process wrote to stderr, by name. */
const stderrOf = new Map<string, string>();

/**
 * Starts a built process on a free port and answers its URL once it listens (from `dist` unless
 * `dir` says where; `nodeArgs` before the module; its stderr kept under `label`, its name unless given).
 */
async function start(name: string, extra: Record<string, string> = {}, dir = path.join(root, 'dist'), { nodeArgs = [] as string[], label = name } = {}): Promise<string> {
  // no tsx anywhere: plain node on the built module
  const child = spawn(process.execPath, [...nodeArgs, path.join(dir, `${name}.mjs`)], {
    cwd: path.dirname(dir),
    env: { PATH: process.env.PATH, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stderr!.on('data', (chunk: Buffer) => stderrOf.set(label, (stderrOf.get(label) ?? '') + chunk.toString('utf8')));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const listening = /"msg":"[a-z]+ listening","url":"(http:\/\/[^"]+)"/.exec(buffered);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  await eventually(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 10_000, 100);
  return url;
}

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', '-s', 'build'], { cwd: root, timeout: 120_000 });
}, 150_000);
afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  await dropIsolation(env);
});

/** The files a built process loads: its bundle and the chunks it imports, transitively (decision 257). */
async function filesOf(name: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const visit = async (file: string) => {
    if (files.has(file)) return;
    const code = await readFile(path.join(root, 'dist', file), 'utf8');
    files.set(file, code);
    for (const m of code.matchAll(/(?:^import\s[^;]*?from\s*|^import\s*|\bimport\()"\.\/([^"]+)"/gm)) await visit(m[1]);
  };
  await visit(`${name}.mjs`);
  return files;
}

const packageOf = (specifier: string) => specifier.replace(/^(@[^/]+\/[^/]+|[^@/][^/]*).*$/, '$1');

/** The packages whose code a built process holds or imports: esbuild heads each module it bundles with its path. */
async function packagesIn(name: string): Promise<Set<string>> {
  const found = new Set<string>();
  for (const code of (await filesOf(name)).values()) {
    for (const m of code.matchAll(/^import\s[^;]*?from\s*"((?:@[\w.-]+\/)?\w[^"]*)"/gm)) if (!m[1].startsWith('node:')) found.add(packageOf(m[1]));
  }
  for (const code of (await filesOf(name)).values()) {
    for (const m of code.matchAll(/^\/\/ (?:.*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) found.add(m[1]);
  }
  return found;
}

/** An invoice of organisation `orgId` posted to a sales process (its figures checked) and rendered to HTML in its worker. */
async function postAndRender(sales: string, orgId: number) {
  const headers = { [INTERNAL_HEADERS.orgId]: String(orgId), [INTERNAL_HEADERS.scopes]: 'admin', 'content-type': 'application/json' };
  const res = await fetch(`${sales}/v1/sales/invoices`, { method: 'POST', headers, body: JSON.stringify(invoiceBody()) });
  expect(res.status).toBe(200);
  const invoice = (await res.json()) as { id: number; no: string; total_amount: number };
  expect(invoice.total_amount).toBe(298);
  const html = await fetch(`${sales}/v1/sales/invoices/${invoice.id}/html?culture=en-US`, { headers });
  expect(html.status).toBe(200);
  expect(await html.text()).toContain(invoice.no);
  return { invoice, headers };
}

describe('the built processes (dist/*.mjs)', () => {
  it('sales starts on plain node, posts an invoice, renders it in its worker and prints it; the gateway serves its documents', async () => {
    const sales = await start('sales', { CHROMIUM_FALLBACK: 'none' });
    const { invoice, headers } = await postAndRender(sales, 1);
    const pdf = await fetch(`${sales}/v1/sales/invoices/${invoice.id}/pdf`, { headers });
    expect(pdf.status).toBe(200);
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');

    const gateway = await start('gateway', { SALES_URL: sales });
    const doc = (await (await fetch(`${gateway}/openapi.json`)).json()) as { openapi: string };
    expect(doc.openapi).toBe('3.1.0');
    expect((await fetch(`${gateway}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
  }, 90_000);

  it("a built service enters no AsyncLocalStorage while it posts, lists and renders: MikroORM's stores are replaced in the bundle too (decisions 128, 268)", async () => {
    // Every entry into a store on the service's own thread is written to its stderr by a module
    // loaded first. The bundle's copy of MikroORM is esbuild's rewrite of the library; the kit
    // replaced its stores only where the code matched as installed, so a bundled process entered
    // one on every transaction and flush and ran with async hooks on for its life.
    const watch = pathToFileURL(path.join(root, 'tests/support/report-store-entries.mjs')).href;
    const sales = await start('sales', { CHROMIUM_FALLBACK: 'none' }, path.join(root, 'dist'), { nodeArgs: ['--import', watch], label: 'sales-watched' });
    const { headers } = await postAndRender(sales, 3);
    const credit = await fetch(`${sales}/v1/sales/credit-notes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ customer: CUSTOMER, currency: 'CZK', date_issued: '2026-11-22', items: [{ title: 'Refund', qty: 1, rate: 100, taxes: [VAT21] }] }),
    });
    expect(credit.status).toBe(200);
    for (const list of ['/v1/sales/invoices', '/v1/sales/credit-notes', '/v1/lists/items', '/v1/sales/numbering-series']) {
      expect((await fetch(`${sales}${list}`, { headers })).status, list).toBe(200);
    }
    const written = stderrOf.get('sales-watched') ?? '';
    expect(written.split('\n').filter((l) => l.startsWith('STORE ENTERED'))).toEqual([]);
  }, 60_000);

  it('the gateway loads no database layer: its bundle holds neither the ORM nor a Postgres driver', async () => {
    // Module code is live heap that every full collection marks: the database stack was about 14
    // of the gateway's 36 MB, for a process that never opens a database connection.
    const database = ['@mikro-orm/core', '@mikro-orm/postgresql', '@mikro-orm/knex', '@mikro-orm/migrations', 'knex', 'pg', 'decimal.js', 'fast-xml-parser'];
    const gateway = await packagesIn('gateway');
    expect(gateway).toContain('hono');
    expect(gateway).toContain('undici');
    expect(database.filter((p) => gateway.has(p))).toEqual([]);
    // the same reading finds them in a service's bundle, so it reads the files as esbuild writes them
    const sales = await packagesIn('sales');
    expect(sales).toContain('@mikro-orm/postgresql');
    expect(sales).toContain('pg');
  });

  it('a service runs from its bundle alone, with no node_modules above it (decision 257)', async () => {
    // as in its image: the bundle, the chunks and the workers beside it, and nothing installed
    // (the packages kept as files are the browser driver and the docs page's assets, which
    // neither the HTML nor an invoice needs)
    const alone = await mkdtemp(path.join(tmpdir(), 'ledgerline-dist-'));
    try {
      await cp(path.join(root, 'dist'), path.join(alone, 'dist'), { recursive: true });
      expect(existsSync(path.join(path.dirname(alone), 'node_modules'))).toBe(false);
      const sales = await start('sales', { CHROMIUM_FALLBACK: 'none' }, path.join(alone, 'dist'));
      await postAndRender(sales, 2);
    } finally {
      await rm(alone, { recursive: true, force: true });
    }
  }, 60_000);
});
