import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { INTERNAL_HEADERS } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation } from '../support/stack.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * The container image runs JavaScript, not TypeScript through a loader: `npm run build` bundles
 * each process into dist/. The built processes start on plain `node`, the sales service's
 * render worker (a forked child) renders from the built engine, and its PDF printer's thread
 * starts from the file beside the bundle.
 */
const root = path.resolve(import.meta.dirname, '../..');
const env = isolation();
const children: ChildProcess[] = [];

/** Starts a built process on a free port and answers its URL once it listens. */
async function start(name: string, extra: Record<string, string> = {}): Promise<string> {
  // no tsx anywhere: plain node on the built module
  const child = spawn(process.execPath, [path.join(root, 'dist', `${name}.mjs`)], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
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

describe('the built processes (dist/*.mjs)', () => {
  it('sales starts on plain node, posts an invoice, renders it in its worker and prints it; the gateway serves its documents', async () => {
    const sales = await start('sales', { CHROMIUM_FALLBACK: 'none' });
    const headers = { [INTERNAL_HEADERS.orgId]: '1', [INTERNAL_HEADERS.scopes]: 'admin', 'content-type': 'application/json' };
    const res = await fetch(`${sales}/v1/sales/invoices`, { method: 'POST', headers, body: JSON.stringify(invoiceBody()) });
    expect(res.status).toBe(200);
    const invoice = (await res.json()) as { id: number; no: string; total_amount: number };
    expect(invoice.total_amount).toBe(298);
    const html = await fetch(`${sales}/v1/sales/invoices/${invoice.id}/html?culture=en-US`, { headers });
    expect(html.status).toBe(200);
    expect(await html.text()).toContain(invoice.no);
    const pdf = await fetch(`${sales}/v1/sales/invoices/${invoice.id}/pdf`, { headers });
    expect(pdf.status).toBe(200);
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');

    const gateway = await start('gateway', { SALES_URL: sales });
    const doc = (await (await fetch(`${gateway}/openapi.json`)).json()) as { openapi: string };
    expect(doc.openapi).toBe('3.1.0');
    expect((await fetch(`${gateway}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
  }, 90_000);

  it('the gateway loads no database layer: its bundle imports neither the ORM nor a Postgres driver', async () => {
    // Module code is live heap that every full collection marks: the database stack was about 14
    // of the gateway's 36 MB, for a process that never opens a database connection.
    const imported = async (name: string) => {
      const code = await readFile(path.join(root, 'dist', `${name}.mjs`), 'utf8');
      return new Set([...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gm)].map((m) => (m[1] ?? m[2]).replace(/^(@[^/]+\/[^/]+|[^@/][^/]*).*$/, '$1')));
    };
    const database = ['@mikro-orm/core', '@mikro-orm/postgresql', '@mikro-orm/knex', '@mikro-orm/migrations', 'knex', 'pg', 'decimal.js', 'fast-xml-parser'];
    const gateway = await imported('gateway');
    expect(gateway).toContain('hono');
    expect(gateway).toContain('undici');
    expect(database.filter((p) => gateway.has(p))).toEqual([]);
    // the same reading finds them in a service's bundle, so it reads imports as esbuild writes them
    const sales = await imported('sales');
    expect(sales).toContain('@mikro-orm/postgresql');
    expect(sales).toContain('pg');
  });
});
