import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { apiOf, expectProblem, invoiceBody } from './helpers.js';

/** No SMTP_URL (mail is written as .eml files) and no Chromium at all, not even the bundled one (PDFs are unavailable). */
let stack: Stack;
let dataDir: string;
let invoice: any;
const api = apiOf(() => stack);

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'ledgerline-offline-'));
  stack = await startStack({ services: ['sales'], env: { DATA_DIR: dataDir, CHROMIUM_PATH: path.join(dataDir, 'no-chromium-here'), CHROMIUM_FALLBACK: 'none' } });
  invoice = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
  expect(invoice.no).toBeTruthy();
});
afterAll(async () => {
  await stack?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('delivery without an SMTP server or a browser', () => {
  it('writes the e-mail as an .eml file under DATA_DIR/mail and records it', async () => {
    const result = await (await api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { subject: 'Offline', include_attachment: false } })).json();
    expect(result).toMatchObject({ success: true, to: 'buyer@example.com', subject: 'Offline', no: invoice.no });
    const files = await readdir(path.join(dataDir, 'mail'));
    expect(files).toHaveLength(1);
    const eml = await readFile(path.join(dataDir, 'mail', files[0]), 'utf8');
    expect(eml).toContain('Subject: Offline');
    expect(eml).toContain('To: buyer@example.com');
    const [record] = await (await api('/v1/CRM/emails')).json();
    expect(record).toMatchObject({ id: result.id, status: 'written', error: null });
  });

  it('answers 503 with a problem when no browser can print the PDF; the HTML still works', async () => {
    const res = await api(`/v1/sales/invoices/${invoice.id}/pdf`);
    const problem = await expectProblem(res, 503, 'service_unavailable');
    expect(problem.detail).toMatch(/no browser is available/);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await api(`/v1/sales/invoices/${invoice.id}/html`)).status).toBe(200);
  });

  it('records an e-mail whose PDF cannot be printed as failed (success: false)', async () => {
    const result = await (await api(`/v1/sales/invoices/${invoice.id}/email`, { method: 'POST', json: { include_attachment: true } })).json();
    expect(result).toMatchObject({ success: false, no: invoice.no });
    const [record] = await (await api('/v1/CRM/emails?take=1')).json();
    expect(record).toMatchObject({ id: result.id, status: 'failed', include_attachment: true, attachments: [] });
    expect(record.error).toMatch(/PDF could not be printed/);
    expect(await readdir(path.join(dataDir, 'mail'))).toHaveLength(1);
  });
});
