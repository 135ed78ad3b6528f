import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { apiOf, invoiceBody } from './helpers.js';

/*
 * A machine without Debian's Chromium (CHROMIUM_PATH pointing nowhere) still prints PDFs, with
 * the Chromium that @sparticuz/chromium carries inside the npm package: `npm ci && npm start` is
 * enough on a fresh machine.
 */
const run = promisify(execFile);
let stack: Stack;
let dataDir: string;
const api = apiOf(() => stack);
const logs: string[] = [];
const original = process.stdout.write;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'ledgerline-bundled-'));
  process.stdout.write = ((chunk: unknown) => {
    logs.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  stack = await startStack({ services: ['sales'], env: { LOG_LEVEL: 'info', DATA_DIR: dataDir, CHROMIUM_PATH: path.join(dataDir, 'no-system-chromium') } });
}, 60_000);
afterAll(async () => {
  process.stdout.write = original;
  await stack?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('PDFs without a system Chromium', () => {
  it('says at start which browser prints, and prints an invoice and its e-mail attachment with the bundled one', async () => {
    expect(logs.join('')).toContain('no Chromium at CHROMIUM_PATH; PDFs print with the Chromium bundled in @sparticuz/chromium');
    const invoice = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
    const res = await api(`/v1/sales/invoices/${invoice.id}/pdf`);
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const file = path.join(dataDir, 'invoice.pdf');
    await writeFile(file, pdf);
    expect((await run('pdfinfo', [file])).stdout).toMatch(/Pages:\s+1\n/);
    expect((await run('pdftotext', [file, '-'])).stdout).toContain(invoice.no);

    const sent = await (await api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { include_attachment: true } })).json();
    const [record] = await (await api('/v1/CRM/emails?take=1')).json();
    expect(String(record.error ?? 'none')).toBe('none');
    expect(sent).toMatchObject({ success: true, no: invoice.no });
    const [eml] = await readdir(path.join(dataDir, 'mail'));
    expect(await readFile(path.join(dataDir, 'mail', eml), 'utf8')).toMatch(/Content-Type: application\/pdf/);
  }, 120_000);
});
