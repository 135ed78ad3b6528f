import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { decode as decodePayBySquare } from 'bysquare/pay';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { invoiceBody, plainSpaces } from './helpers.js';

/*
 * The payment QR code on a printed invoice, read back the way a banking app reads it: the PDF
 * rendered to an image (pdftoppm) and decoded (zbarimg), compared with the stored figures.
 */
const run = promisify(execFile);
let stack: Stack;
let dir: string;
const IBAN = 'CZ6508000000192000145399';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-qr-'));
  stack = await startStack({ services: ['sales'] });
  const res = await stack.api('/v1/settings/organisation', {
    method: 'PUT',
    json: { name: 'Dodavatel a.s.', bank_account: { account_number: '19-2000145399/0800', iban: IBAN, bic: 'GIBACZPX' } },
  });
  expect(res.status).toBe(200);
  await eventually(async () => {
    const [replica] = await sqlRows<{ iban: string }>(stack.services.sales!.deps.orm.em.fork(), "select profile->'bank_account'->>'iban' as iban from kit_organisations where org_id = 1");
    return replica?.iban === IBAN;
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The text of the QR code printed on page 1 of a PDF. */
async function decodeQr(pdf: Buffer): Promise<string> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  await writeFile(file, pdf);
  await run('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', '-singlefile', file, file.replace(/\.pdf$/, '')]);
  const { stdout } = await run('zbarimg', ['--raw', '-q', file.replace(/\.pdf$/, '.png')]);
  return stdout.replace(/\n$/, '');
}

async function printed(json: Record<string, unknown>) {
  const res = await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody(json) });
  expect(res.status).toBe(200);
  const invoice = await res.json();
  const pdf = await stack.api(`/v1/sales/invoices/${invoice.id}/pdf`);
  expect(pdf.status).toBe(200);
  return { invoice, pdf: Buffer.from(await pdf.arrayBuffer()) };
}

describe('payment QR codes on invoices', () => {
  it('a CZK invoice carries QR Platba with the account, the amount due, the variable symbol and the due date', async () => {
    const { invoice, pdf } = await printed({ bank_account: { account_number: '19-2000145399/0800' }, items: [{ title: 'Konzultace', qty: 3, rate: 100, taxes: [{ tax_code: 'S21', tax_rate: 21, rate_type: 'standard' }] }] });
    expect(invoice.amount_due).toBe(363);
    expect(await decodeQr(pdf)).toBe(`SPD*1.0*ACC:${IBAN}+GIBACZPX*AM:363.00*CC:CZK*X-VS:20261234*DT:20261204*MSG:${invoice.no}`);
    const html = plainSpaces(await (await stack.api(`/v1/sales/invoices/${invoice.id}/html`)).text());
    expect(html).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="QR Platba">/);
  });

  it('pays the account printed on the invoice: another Czech account as its IBAN, none for one that is no account', async () => {
    const { pdf } = await printed({ bank_account: { account_number: '2000145399/0800' } });
    expect(await decodeQr(pdf)).toMatch(/^SPD\*1\.0\*ACC:CZ7908000000002000145399\*AM:121\.00\*CC:CZK\*/);
    const invalid = await (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json(); // 123456789/0100
    expect(await (await stack.api(`/v1/sales/invoices/${invalid.id}/html`)).text()).not.toContain('<figure class="payment-qr"');
  });

  it('an EUR invoice carries the EPC code (SEPA credit transfer) with the payee', async () => {
    const { invoice, pdf } = await printed({ bank_account: null, currency: 'EUR', fx_rate: 25, payment_reference: null, items: [{ title: 'Work', qty: 1, rate: 1234.5, taxes: [] }] });
    const digits = String(invoice.no).replace(/\D/g, '').slice(-10);
    expect(await decodeQr(pdf)).toBe(['BCD', '002', '1', 'SCT', 'GIBACZPX', 'Dodavatel a.s.', IBAN, 'EUR1234.50', '', '', digits].join('\n'));
  });

  it('a Slovak organisation prints PAY by square on EUR invoices', async () => {
    // from here on in this file the organisation is Slovak
    expect((await stack.api('/v1/settings/organisation', { method: 'PUT', json: { country: 'SK' } })).status).toBe(200);
    await eventually(async () => {
      const [replica] = await sqlRows<{ country: string }>(stack.services.sales!.deps.orm.em.fork(), 'select country from kit_organisations where org_id = 1');
      return replica?.country === 'SK';
    });
    const { invoice, pdf } = await printed({ bank_account: null, currency: 'EUR', fx_rate: 25, payment_reference: '2026004', items: [{ title: 'Práca', qty: 2, rate: 50.25, taxes: [] }] });
    const decoded = decodePayBySquare(await decodeQr(pdf));
    expect(decoded.payments[0]).toMatchObject({
      type: 1,
      amount: 100.5,
      currencyCode: 'EUR',
      variableSymbol: '2026004',
      paymentDueDate: '20261204',
      paymentNote: invoice.no,
      bankAccounts: [{ iban: IBAN, bic: 'GIBACZPX' }],
      beneficiary: { name: 'Dodavatel a.s.' },
    });
  });

  it('a credit note and a USD invoice carry none', async () => {
    const usd = await (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ bank_account: null, currency: 'USD', fx_rate: 22 }) })).json();
    expect(await (await stack.api(`/v1/sales/invoices/${usd.id}/html`)).text()).not.toContain('<figure class="payment-qr"');
    const czk = await (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ bank_account: null }) })).json();
    const cn = await stack.api('/v1/sales/credit-notes', { method: 'POST', json: { ...invoiceBody(), credited_doc_id: czk.id } });
    expect(cn.status).toBe(200);
    const html = await (await stack.api(`/v1/sales/credit-notes/${(await cn.json()).id}/html`)).text();
    expect(html).not.toContain('<figure class="payment-qr"');
    expect(await (await stack.api(`/v1/sales/invoices/${czk.id}/html`)).text()).toContain('<figure class="payment-qr"');
  });
});
