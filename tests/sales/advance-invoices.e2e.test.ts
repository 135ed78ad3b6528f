import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { accountBalances, expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { ISDOC_XSD, schemaErrors, xmlValues } from '../support/einvoice.js';
import { SELLER_PROFILE } from './einvoice-stack.js';
import { camt053File } from '../../apps/finance/src/domain/statements/statement-files.fixtures.js';

/*
 * Advance invoices (issue 75, decision 236) through the gateway, as a Czech accountant books them
 * (docs/advance-invoices.md): a proforma for 12 100 CZK (10 000 + 21 % VAT) is paid 2 100 on
 * 5 October and 11 000 on 3 November, then 100 too much on 4 November. Each payment is held on
 * 324 (Dr 221 / Cr 324) and gets a tax document whose VAT is due in the payment's month
 * (Dr 324 / Cr 343): 1 100 → 909.09 + 190.91, 11 000 → 9 090.91 + 1 909.09. The final invoice
 * of 20 November (11 000 + 2 310 VAT = 13 310) deducts the 12 200 paid: 1 110 is left to pay,
 * 324 is cleared and 343 holds the supply's 2 310 VAT once.
 */

const run = promisify(execFile);
let stack: Stack;
const dataDir = mkdtempSync(path.join(tmpdir(), 'advances-'));
const VAT21 = { tax_code: 'S21', tax_name: 'DPH 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
const CUSTOMER = { id: 7501, business_name: 'Stavebniny Novák s.r.o.', vat_no: 'CZ27082440', address: { city: 'Brno', country: 'CZ' } };

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (p: string, json: unknown, key?: string) => ok(await stack.api(p, { method: 'POST', json, key }));
const get = async (p: string, key?: string) => ok(await stack.api(p, { key }));
const proformaBody = (over: Record<string, unknown> = {}) => ({
  customer: CUSTOMER,
  currency: 'CZK',
  culture: 'cs-CZ',
  date_issued: '2026-10-01',
  date_due: '2026-10-15',
  bank_account: { account_number: '19-2000145399/0800' },
  items: [{ title: 'Stavební práce – záloha', qty: 1, rate: 10000, taxes: [VAT21] }],
  ...over,
});
const pay = (proformaId: number, amount: number, date: string, key?: string) =>
  post('/v1/finance/bank/transactions', { amount, currency: 'CZK', date_transaction: date, paid_record: { type: 'sales_proforma', id: proformaId } }, key);

const balances = (range: string, key?: string) => accountBalances(stack, range, key);

describe('advance invoices (issue 75)', () => {
  let proforma: any;
  let final: any;

  it('a proforma is numbered by its own series, asks for payment by its variable symbol and reaches no ledger and no receivable', async () => {
    proforma = await post('/v1/sales/proforma-invoices', proformaBody());
    expect(proforma).toMatchObject({ status: 'unpaid', total_amount: 12100, tax_amount: 2100, amount_due: 12100, amount_paid: 0, tax_documents: [], settled_by: null });
    expect(proforma.no).toMatch(/^PF269\d{5}$/);
    expect(proforma.variable_symbol).toBe(proforma.no.replace(/\D/g, ''));
    expect(await get(`/v1/sales/proforma-invoices/${proforma.id}`)).toEqual(proforma);
    // an invoice's number never shares the proforma's variable symbol
    const invoice = await post('/v1/sales/invoices', { ...proformaBody(), date_issued: '2026-09-20', date_due: '2026-09-30', bank_account: undefined });
    expect(invoice.no.replace(/\D/g, '')).not.toBe(proforma.variable_symbol);
    // not in the ledger, not owed: the aged receivables hold the invoice alone
    await eventually(async () => (await get('/v1/accounting/transactions?take=0')).total === 1, 10_000);
    const aged = await get('/v1/sales/reports/aged-receivables?as_of=2026-10-31');
    expect(aged.entities.map((l: any) => l.total)).toEqual([12100]);
    // listed by status
    expect((await get('/v1/sales/proforma-invoices?status=unpaid')).entities.map((p: any) => p.id)).toContain(proforma.id);
    expect((await get('/v1/sales/proforma-invoices?status=paid')).entities).toEqual([]);
    // GET changes nothing
    expect(await get(`/v1/sales/proforma-invoices/${proforma.id}`)).toEqual(proforma);
  });

  it('prints as "Zálohová faktura – není daňovým dokladem" with the QR payment code', async () => {
    const res = await stack.api(`/v1/sales/proforma-invoices/${proforma.id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const file = path.join(dataDir, 'proforma.pdf');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const text = (await run('pdftotext', ['-layout', file, '-'])).stdout;
    // the title wraps in the header: its words, in order
    expect(text).toMatch(/Zálohová faktura – není daňovým\s+(\S+\s+)?dokladem/);
    expect(text).toContain(proforma.no);
    expect(text).toMatch(/Variabilní symbol\s+\d+/);
    expect(text).not.toContain('Daňový doklad');
    // the QR Platba code asks for the proforma's amount by its variable symbol
    await run('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', '-singlefile', file, file.replace(/\.pdf$/, '')]);
    const qr = (await run('zbarimg', ['--raw', '-q', file.replace(/\.pdf$/, '.png')])).stdout.trim();
    expect(qr).toMatch(/^SPD\*1\.0\*ACC:CZ6508000000192000145399\*AM:12100\.00\*CC:CZK\*/);
    expect(qr).toContain(`X-VS:${proforma.variable_symbol}`);
  });

  it('each payment is held on 324 and gets a tax document whose VAT is due in its month', async () => {
    await pay(proforma.id, 1100, '2026-10-05');
    const partly = await eventually(async () => {
      const p = await get(`/v1/sales/proforma-invoices/${proforma.id}`);
      return p.tax_documents.length === 1 ? p : null;
    }, 10_000);
    expect(partly).toMatchObject({ status: 'partially_paid', amount_paid: 1100, amount_due: 11000 });
    const first = await get(`/v1/sales/advance-tax-documents/${partly.tax_documents[0].id}`);
    expect(first).toMatchObject({
      proforma_id: proforma.id,
      proforma_no: proforma.no,
      date_issued: '2026-10-05',
      date_taxable: '2026-10-05',
      total_amount: 1100,
      subtotal_amount: 909.09,
      tax_amount: 190.91,
      amount_due: 0,
      payment: { date: '2026-10-05', amount: 1100, accounted_amount: 1100, source: 'bank_transaction' },
      taxes: [expect.objectContaining({ tax_rate: 21, tax_base: 909.09, tax_amount: 190.91 })],
    });
    expect(first.no).toMatch(/^DZ2026\d{5}$/);
    // printed as the tax document it is, naming the proforma, asking for nothing
    const pdf = await stack.api(`/v1/sales/advance-tax-documents/${first.id}/pdf`);
    expect(pdf.status).toBe(200);
    const file = path.join(dataDir, 'tax-document.pdf');
    writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));
    const text = (await run('pdftotext', ['-layout', file, '-'])).stdout;
    expect(text).toMatch(/Daňový doklad k přijaté\s+(\S+\s+)?platbě/);
    expect(text.toLowerCase()).toContain(`platba k zálohové faktuře ${proforma.no.toLowerCase()}`);
    expect(text).toContain(`Platba k zálohové faktuře ${proforma.no}`); // the line's title
    expect(text).toMatch(/K úhradě\s+0,00/);

    await pay(proforma.id, 11000, '2026-11-03');
    await pay(proforma.id, 100, '2026-11-04'); // too much: held untaxed on 324
    const paid = await eventually(async () => {
      const p = await get(`/v1/sales/proforma-invoices/${proforma.id}`);
      return p.amount_paid === 12200 && p.tax_documents.length === 2 ? p : null;
    }, 10_000);
    expect(paid).toMatchObject({ status: 'paid', amount_due: -100 });
    expect(paid.tax_documents.map((t: any) => [t.date_issued, t.total_amount, t.tax_amount])).toEqual([
      ['2026-10-05', 1100, 190.91],
      ['2026-11-03', 11000, 1909.09],
    ]);
    const listed = await get(`/v1/sales/advance-tax-documents?proforma_id=${proforma.id}`);
    expect(listed.entities.map((t: any) => t.id).sort()).toEqual(paid.tax_documents.map((t: any) => t.id).sort());

    // October: 1 100 on 324, of which 190.91 is VAT on 343; the VAT return's row 1 and the control statement's A.5
    await eventually(async () => (await balances('[2026-10-01;2026-10-31]'))['343'] === '-190.91', 10_000);
    expect(await balances('[2026-10-01;2026-10-31]')).toMatchObject({ '221': '1100.00', '324': '-909.09', '343': '-190.91' });
    const october = await get('/v1/reporting/tax/vat-return?date_from=2026-10-01&date_to=2026-10-31');
    expect(october.rows).toEqual([{ row: '1', name: 'Domestic supplies, basic rate', base: 909.09, tax: 190.91 }]);
    const octoberKh = await get('/v1/reporting/tax/control-statement?date_from=2026-10-01&date_to=2026-10-31');
    expect(octoberKh.a4).toEqual([]);
    expect(octoberKh.a5).toMatchObject({ base_basic: 909.09, tax_basic: 190.91 });
  });

  it('the final invoice deducts what was paid with its VAT: 1 110 left, 324 cleared, the VAT of the supply once', async () => {
    final = await post('/v1/sales/invoices', {
      ...proformaBody(),
      date_issued: '2026-11-20',
      date_due: '2026-12-04',
      items: [
        { title: 'Stavební práce', qty: 1, rate: 10000, taxes: [VAT21] },
        { title: 'Vícepráce', qty: 1, rate: 1000, taxes: [VAT21] },
      ],
      advances: [{ proforma_id: proforma.id }],
    });
    expect(final).toMatchObject({
      total_amount: 13310,
      tax_amount: 2310,
      advance_amount: 12200,
      amount_paid: 12200,
      amount_due: 1110,
      payment_status: 'partially_paid',
      advances: [
        {
          proforma_id: proforma.id,
          proforma_no: proforma.no,
          amount: 12200,
          amount_leg: 12200,
          untaxed_amount: 100,
          taxes: [{ tax_rate: 21, tax_code: 'S21', tax_base: 10000, tax_amount: 2100, tax_base_leg: 10000, tax_amount_leg: 2100 }],
        },
      ],
    });
    expect(final.advances[0].tax_documents).toHaveLength(2);
    const settled = await get(`/v1/sales/proforma-invoices/${proforma.id}`);
    expect(settled).toMatchObject({ status: 'settled', settled_by: { invoice_id: final.id, invoice_no: final.no }, amount_due: 0 });

    // the ledger over both months: 324 cleared, 311 what is left, 343 the supply's VAT once
    await eventually(async () => (await balances('[2026-10-01;2026-11-30]'))['324'] === '0.00', 10_000);
    const both = await balances('[2026-10-01;2026-11-30]');
    expect(both['221']).toBe('12200.00');
    expect(both['343']).toBe('-2310.00');
    expect(both['311']).toBe('1110.00');
    const november = await get('/v1/reporting/tax/vat-return?date_from=2026-11-01&date_to=2026-11-30');
    expect(november.rows).toEqual([{ row: '1', name: 'Domestic supplies, basic rate', base: 10090.91, tax: 2119.09 }]);
    const twoMonths = await get('/v1/reporting/tax/vat-return?date_from=2026-10-01&date_to=2026-11-30');
    expect(twoMonths.rows).toEqual([{ row: '1', name: 'Domestic supplies, basic rate', base: 11000, tax: 2310 }]);
    // the control statement: the tax document of 11 000 in A.4 under its own number, the final invoice with the difference
    const kh = await get('/v1/reporting/tax/control-statement?date_from=2026-11-01&date_to=2026-11-30');
    const a4 = Object.fromEntries(kh.a4.map((r: any) => [r.document_no, [r.base_basic, r.tax_basic]]));
    expect(a4).toEqual({ [settled.tax_documents[1].no]: [9090.91, 1909.09], [final.no]: [1000, 210] });

    // the invoice prints the deduction per rate
    const res = await stack.api(`/v1/sales/invoices/${final.id}/pdf`);
    const file = path.join(dataDir, 'final.pdf');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const text = (await run('pdftotext', ['-layout', file, '-'])).stdout;
    // the deduction's row (its words wrap in the recap's first column)
    expect(text).toContain('Uhrazená záloha');
    expect(text).toMatch(new RegExp(`${proforma.no} 21 %`));
    expect(text).toMatch(/K úhradě\s+1\s110,00/);
    expect(text).toMatch(/-10\s?000,00/);
  });

  it('a proforma is deducted once, by an invoice of its customer and currency', async () => {
    const again = await stack.api('/v1/sales/invoices', { method: 'POST', json: { ...proformaBody(), date_issued: '2026-11-21', date_due: '2026-12-05', advances: [{ proforma_id: proforma.id }] } });
    const p = await expectProblem(again, 409, 'advance_already_deducted');
    expect(p.errors?.[0].path).toBe('advances.0.proforma_id');
    const unpaid = await post('/v1/sales/proforma-invoices', proformaBody());
    await expectProblem(await stack.api('/v1/sales/invoices', { method: 'POST', json: { ...proformaBody(), advances: [{ proforma_id: unpaid.id }] } }), 422, 'proforma_unpaid');
    await pay(unpaid.id, 500, '2026-11-10');
    await eventually(async () => (await get(`/v1/sales/proforma-invoices/${unpaid.id}`)).amount_paid === 500, 10_000);
    const other = { ...CUSTOMER, id: 7502, business_name: 'Jiný odběratel a.s.' };
    await expectProblem(await stack.api('/v1/sales/invoices', { method: 'POST', json: { ...proformaBody({ customer: other }), advances: [{ proforma_id: unpaid.id }] } }), 422, 'customer_mismatch');
    await expectProblem(await stack.api('/v1/sales/invoices', { method: 'POST', json: { ...proformaBody({ currency: 'EUR', fx_rate: 25 }), advances: [{ proforma_id: unpaid.id }] } }), 422, 'currency_mismatch');
    const small = [{ title: 'Drobnost', qty: 1, rate: 100, taxes: [VAT21] }];
    await expectProblem(await stack.api('/v1/sales/invoices', { method: 'POST', json: { ...proformaBody({ items: small }), advances: [{ proforma_id: unpaid.id }] } }), 422, 'advances_exceed_total');
    await expectProblem(await stack.api('/v1/sales/invoices', { method: 'POST', json: { ...proformaBody(), advances: [{ proforma_id: unpaid.id }, { proforma_id: unpaid.id }] } }), 400, 'validation_error');
    // none of these left a trace: the proforma is still open
    expect(await get(`/v1/sales/proforma-invoices/${unpaid.id}`)).toMatchObject({ status: 'partially_paid', settled_by: null });
  });

  it('replaced while unpaid, cancelled while nothing is held, refunded with a negative tax document', async () => {
    const draft = await post('/v1/sales/proforma-invoices', proformaBody());
    const replaced = await ok(await stack.api(`/v1/sales/proforma-invoices/${draft.id}`, { method: 'PUT', json: proformaBody({ items: [{ title: 'Menší záloha', qty: 2, rate: 1000, taxes: [VAT21] }] }) }));
    expect(replaced).toMatchObject({ id: draft.id, no: draft.no, total_amount: 2420, status: 'unpaid' });
    expect(replaced.edited_at).not.toBeNull();
    await expectProblem(await stack.api(`/v1/sales/proforma-invoices/${draft.id}`, { method: 'PUT', json: proformaBody({ no: 'OTHER-1' }) }), 409, 'number_immutable');
    const cancelled = await post(`/v1/sales/proforma-invoices/${draft.id}/cancel`, {});
    expect(cancelled).toMatchObject({ status: 'cancelled', amount_due: 0 });
    expect(cancelled.cancelled_at).toEqual(expect.any(String));
    await expectProblem(await stack.api(`/v1/sales/proforma-invoices/${draft.id}/cancel`, { method: 'POST', json: {} }), 409, 'proforma_cancelled');
    await expectProblem(await stack.api(`/v1/sales/proforma-invoices/${draft.id}`, { method: 'PUT', json: proformaBody() }), 409, 'proforma_cancelled');
    await expectProblem(await stack.api(`/v1/sales/proforma-invoices/${proforma.id}/cancel`, { method: 'POST', json: {} }), 409, 'proforma_settled');
    // a payment naming a cancelled proforma pays nothing: it waits in suspense
    const stray = await pay(draft.id, 2420, '2026-11-12');
    expect(stray.match_status).toBe('unmatched');

    const refunded = await post('/v1/sales/proforma-invoices', proformaBody({ items: [{ title: 'Záloha', qty: 1, rate: 1000, taxes: [VAT21] }] }));
    await pay(refunded.id, 1210, '2026-11-05');
    await eventually(async () => (await get(`/v1/sales/proforma-invoices/${refunded.id}`)).tax_documents.length === 1, 10_000);
    await expectProblem(await stack.api(`/v1/sales/proforma-invoices/${refunded.id}/cancel`, { method: 'POST', json: {} }), 409, 'proforma_paid');
    await expectProblem(await stack.api(`/v1/sales/proforma-invoices/${refunded.id}`, { method: 'PUT', json: proformaBody() }), 409, 'proforma_paid');
    await pay(refunded.id, -1210, '2026-11-25'); // money out: the refund
    const back = await eventually(async () => {
      const p = await get(`/v1/sales/proforma-invoices/${refunded.id}`);
      return p.tax_documents.length === 2 ? p : null;
    }, 10_000);
    expect(back).toMatchObject({ status: 'unpaid', amount_paid: 0 });
    expect(back.tax_documents.map((t: any) => [t.total_amount, t.tax_amount])).toEqual([
      [1210, 210],
      [-1210, -210],
    ]);
    expect((await post(`/v1/sales/proforma-invoices/${refunded.id}/cancel`, {})).status).toBe('cancelled');
  });

  it('a bank statement entry pays the proforma its variable symbol names, an open invoice of the same amount aside', async () => {
    const asked = await post('/v1/sales/proforma-invoices', proformaBody({ date_issued: '2026-11-10', date_due: '2026-11-24', items: [{ title: 'Záloha', qty: 1, rate: 2000, taxes: [VAT21] }] }));
    // an open invoice of the same amount: the variable symbol, not the amount, decides
    await post('/v1/sales/invoices', proformaBody({ date_issued: '2026-11-10', date_due: '2026-11-24', items: [{ title: 'Jiná služba', qty: 1, rate: 2000, taxes: [VAT21] }] }));
    const file = camt053File([
      {
        account: 'CZ6508000000192000145399',
        number: '7501',
        opening: '0.00',
        closing: '2420.00',
        from: '2026-11-12',
        to: '2026-11-12',
        movements: [{ amount: '2420.00', vs: asked.variable_symbol, name: CUSTOMER.business_name, message: `Záloha ${asked.no}` }],
      },
    ]);
    const imported = await ok(await stack.api('/v1/finance/bank/statements', { method: 'POST', body: file, headers: { 'content-type': 'application/xml' } }));
    expect(imported.transactions ?? imported.entries ?? imported).toBeDefined();
    const paid = await eventually(async () => {
      const p = await get(`/v1/sales/proforma-invoices/${asked.id}`);
      return p.tax_documents.length === 1 ? p : null;
    }, 10_000);
    expect(paid).toMatchObject({ status: 'paid', amount_due: 0 });
    expect(paid.tax_documents[0]).toMatchObject({ date_issued: '2026-11-12', total_amount: 2420, tax_amount: 420 });
    const matched = (await get('/v1/finance/bank/transactions?take=1000')).entities.filter((t: any) => t.statement_id != null && t.amount === 2420);
    expect(matched.map((t: any) => t.paid_record?.type)).toEqual(['sales_proforma']);
  });

  it("a non-VAT payer's payment is held on 324 and deducted without tax documents", async () => {
    const other = await secondOrganisation(stack, 'Živnostník Jan Malý');
    await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', key: other.key, json: { is_vat_payer: false } }));
    const noVat = { items: [{ title: 'Oprava', qty: 1, rate: 5000 }] };
    const theirs = await post('/v1/sales/proforma-invoices', proformaBody(noVat), other.key);
    // another organisation's proforma is unknown here, and theirs to them alone
    await expectProblem(await stack.api(`/v1/sales/proforma-invoices/${proforma.id}`, { key: other.key }), 404, 'proforma_not_found');
    await expectProblem(await stack.api('/v1/sales/invoices', { method: 'POST', key: other.key, json: { ...proformaBody(noVat), advances: [{ proforma_id: proforma.id }] } }), 422, 'proforma_not_found');
    await pay(theirs.id, 5000, '2026-11-06', other.key);
    await eventually(async () => (await get(`/v1/sales/proforma-invoices/${theirs.id}`, other.key)).status === 'paid', 10_000);
    const invoice = await post('/v1/sales/invoices', { ...proformaBody(noVat), date_issued: '2026-11-28', date_due: '2026-12-12', advances: [{ proforma_id: theirs.id }] }, other.key);
    expect(invoice).toMatchObject({ amount_due: 0, payment_status: 'paid', advances: [{ amount: 5000, untaxed_amount: 5000, taxes: [], tax_documents: [] }] });
    expect((await get('/v1/sales/advance-tax-documents', other.key)).entities).toEqual([]);
    await eventually(async () => (await balances('[2026-11-01;2026-11-30]', other.key))['311'] === '0.00', 10_000);
    expect(await balances('[2026-11-01;2026-11-30]', other.key)).toMatchObject({ '221': '5000.00', '324': '0.00', '311': '0.00' });
  });

  it('in euros: the advance keeps the rate of its payment day, only the rest is converted at the final invoice\'s (§ 37a, KV 390)', async () => {
    // a VAT payer of its own, so its October holds this case alone: 1 000 EUR + 21 % asked on 1 October,
    // half paid on 10 October at 25.50, the supply invoiced on 20 October at 24.50, the rest paid on 25 October
    const other = await secondOrganisation(stack, 'Exportér s.r.o.');
    for (const [day, rate] of [['2026-10-01', 25], ['2026-10-10', 25.5], ['2026-10-20', 24.5], ['2026-10-25', 24.5]] as const) {
      await ok(await stack.api(`/v1/settings/exchange-rates/EUR/${day}`, { method: 'PUT', key: other.key, json: { rate } }));
    }
    const euro = { currency: 'EUR', bank_account: undefined, items: [{ title: 'Dodávka – záloha', qty: 1, rate: 1000, taxes: [VAT21] }] };
    const asked = await post('/v1/sales/proforma-invoices', proformaBody(euro), other.key);
    expect(asked).toMatchObject({ currency: 'EUR', total_amount: 1210 });
    await post('/v1/finance/bank/transactions', { amount: 605, currency: 'EUR', date_transaction: '2026-10-10', paid_record: { type: 'sales_proforma', id: asked.id } }, other.key);
    const paid = await eventually(async () => {
      const p = await get(`/v1/sales/proforma-invoices/${asked.id}`, other.key);
      return p.tax_documents.length === 1 ? p : null;
    }, 10_000);
    // the tax document converts at the payment day's rate: 500 EUR → 12 750, VAT 105 EUR → 2 677.50
    const taxDocument = await get(`/v1/sales/advance-tax-documents/${paid.tax_documents[0].id}`, other.key);
    expect(taxDocument.taxes).toEqual([expect.objectContaining({ tax_base: 500, tax_amount: 105, tax_base_leg: 12750, tax_amount_leg: 2677.5 })]);

    const invoice = await post(
      '/v1/sales/invoices',
      { ...proformaBody(euro), date_issued: '2026-10-20', date_due: '2026-11-03', items: [{ title: 'Dodávka', qty: 1, rate: 1000, taxes: [VAT21] }], advances: [{ proforma_id: asked.id }] },
      other.key,
    );
    // 12 750 + the other 500 EUR at 24.50 (12 250); VAT 2 677.50 + 105 × 24.50 (2 572.50): not the whole supply at 24.50 (24 500 / 5 145)
    expect(invoice).toMatchObject({ total_amount: 1210, amount_due: 605, subtotal_amount_leg: 25000, tax_amount_leg: 5250, total_amount_leg: 30250 });
    expect(invoice.taxes).toEqual([expect.objectContaining({ tax_base: 1000, tax_amount: 210, tax_base_leg: 25000, tax_amount_leg: 5250 })]);
    expect(invoice.advances).toEqual([expect.objectContaining({ amount: 605, amount_leg: 15427.5, taxes: [expect.objectContaining({ tax_base_leg: 12750, tax_amount_leg: 2677.5 })] })]);

    // the rest paid at 24.50 clears 311 to the haléř: no exchange difference is made up by the deduction
    await post('/v1/finance/bank/transactions', { amount: 605, currency: 'EUR', date_transaction: '2026-10-25', paid_record: { type: 'sales_invoice', id: invoice.id } }, other.key);
    await eventually(async () => (await balances('[2026-10-01;2026-10-31]', other.key))['311'] === '0.00', 10_000);
    expect(await balances('[2026-10-01;2026-10-31]', other.key)).toMatchObject({ '221': '30250.00', '311': '0.00', '324': '0.00', '343': '-5250.00', '604': '-25000.00' });
    // the month declares the supply's VAT once: the tax document's and the final invoice's rest
    const october = await get('/v1/reporting/tax/vat-return?date_from=2026-10-01&date_to=2026-10-31', other.key);
    expect(october.rows).toEqual([{ row: '1', name: 'Domestic supplies, basic rate', base: 25000, tax: 5250 }]);
  });

  it('the final invoice as e-invoices: UBL states the advance as PrepaidAmount (BT-113), ISDOC its taxed deposit', async () => {
    const res = await stack.api('/v1/settings/organisation', { method: 'PUT', json: SELLER_PROFILE });
    expect(res.status).toBe(200);
    const buyer = { ...CUSTOMER, reg_no: '27082440', peppol_id: '9929:CZ27082440', address: { address1: 'Dlouhá 1', city: 'Brno', postal_code: '602 00', country: 'CZ' } };
    const body = (over: Record<string, unknown>) => proformaBody({ customer: buyer, buyer_reference: 'OBJ-75', bank_account: undefined, ...over });
    const asked = await post('/v1/sales/proforma-invoices', body({ date_issued: '2026-11-15', date_due: '2026-11-22' }));
    await pay(asked.id, 12100, '2026-11-16');
    await eventually(async () => (await get(`/v1/sales/proforma-invoices/${asked.id}`)).tax_documents.length === 1, 10_000);
    const items = [{ title: 'Stavební práce', qty: 1, rate: 15000, taxes: [VAT21] }];
    const settled = await post('/v1/sales/invoices', body({ date_issued: '2026-11-30', date_due: '2026-12-14', items, advances: [{ proforma_id: asked.id }] }));
    expect(settled).toMatchObject({ total_amount: 18150, amount_due: 6050 });
    // sales learns the Peppol profile from settings' event
    const ubl = await eventually(async () => {
      const r = await stack.api(`/v1/sales/invoices/${settled.id}/ubl`);
      return r.status === 200 ? r.text() : null;
    }, 10_000);
    expect(xmlValues(ubl, 'cbc:TaxInclusiveAmount')).toEqual(['18150.00']);
    expect(xmlValues(ubl, 'cbc:PrepaidAmount')).toEqual(['12100.00']);
    expect(xmlValues(ubl, 'cbc:PayableAmount')).toEqual(['6050.00']);
    const isdocRes = await stack.api(`/v1/sales/invoices/${settled.id}/isdoc`);
    const isdoc = await isdocRes.text();
    expect(isdocRes.status, isdoc).toBe(200);
    expect(schemaErrors(isdoc, ISDOC_XSD())).toEqual([]);
    expect(xmlValues(isdoc, 'TaxableDepositAmount')).toEqual(['10000.00']);
    expect(xmlValues(isdoc, 'TaxInclusiveDepositAmount')).toEqual(['12100.00']);
    expect(xmlValues(isdoc, 'AlreadyClaimedTaxInclusiveAmount')).toEqual(['12100.00', '12100.00']);
    expect(xmlValues(isdoc, 'DifferenceTaxInclusiveAmount')).toEqual(['6050.00', '6050.00']);
    expect(xmlValues(isdoc, 'PaidDepositsAmount')).toEqual(['0.00']);
    expect(xmlValues(isdoc, 'PayableAmount')).toEqual(['6050.00']);
  });

  it('needs the sales scopes, and refuses what is not a proforma request', async () => {
    const reader = (await post('/v1/settings/security/api-keys', { name: 'reader', scopes: ['sales:read'] })).key;
    await expectProblem(await stack.api('/v1/sales/proforma-invoices', { method: 'POST', key: reader, json: proformaBody() }), 403);
    await expectProblem(await stack.api(`/v1/sales/proforma-invoices/${proforma.id}/cancel`, { method: 'POST', key: reader, json: {} }), 403);
    expect((await get(`/v1/sales/proforma-invoices/${proforma.id}`, reader)).id).toBe(proforma.id);
    await expectProblem(await stack.api('/v1/sales/proforma-invoices', { method: 'POST', json: { ...proformaBody(), items: [] } }), 400, 'validation_error');
    await expectProblem(await stack.api('/v1/sales/proforma-invoices', { method: 'POST', json: { ...proformaBody(), date_issued: '2026-13-01' } }), 400, 'validation_error');
    await expectProblem(await stack.api('/v1/sales/proforma-invoices/99999999'), 404, 'proforma_not_found');
    await expectProblem(await stack.api('/v1/sales/advance-tax-documents/99999999'), 404, 'advance_tax_document_not_found');
    // an advance tax document is not a proforma, nor the other way round
    await expectProblem(await stack.api(`/v1/sales/advance-tax-documents/${proforma.id}`), 404);
  });
});
