import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { accountBalances, expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { camt053File } from '../../apps/finance/src/domain/statements/statement-files.fixtures.js';
import { PURCHASE_TYPE, VAT21 } from './fixtures.js';

/*
 * Advances paid to a vendor (issue 75, decision 237) through the gateway, as a Czech accountant
 * books them (docs/advance-invoices.md): the vendor's proforma asks 60 500 CZK (50 000 + 21 % VAT);
 * it is recorded as a bill of kind advance (not posted, nothing claimed), paid on 6 October
 * (Dr 314 / Cr 221); the vendor's tax document on that payment claims its 10 500 VAT in October
 * (Dr 343 / Cr 314); the final bill of 10 November (60 000 + 12 600 VAT = 72 600) deducts the
 * 60 500 paid: 12 100 is left to pay, 314 is cleared and 343 holds the supply's 12 600 once.
 */

let stack: Stack;
const VENDOR = { id: 8801, business_name: 'Stroje Kovář s.r.o.', vat_no: 'CZ25596641', address: { city: 'Olomouc', country: 'CZ' } };
const OTHER_VENDOR = { id: 8802, business_name: 'Jiný dodavatel a.s.', vat_no: 'CZ46357084', address: { city: 'Praha', country: 'CZ' } };

beforeAll(async () => {
  stack = await startStack({ services: ['purchase', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (p: string, json: unknown, key?: string) => ok(await stack.api(p, { method: 'POST', json, key }));
const get = async (p: string, key?: string) => ok(await stack.api(p, { key }));
const billBody = (over: Record<string, unknown> = {}) => ({
  type: PURCHASE_TYPE,
  vendor: VENDOR,
  currency: 'CZK',
  date_issued: '2026-10-01',
  date_due: '2026-10-08',
  vendor_doc_no: 'ZF-2026-118',
  payment_reference: '2026118',
  bank_account_number: '2400123456/2010',
  items: [{ description: 'Frézka – záloha', qty: 1, rate: 50000, taxes: [VAT21] }],
  kind: 'advance',
  ...over,
});
const taxDocumentBody = (advanceId: number, gross: number, over: Record<string, unknown> = {}) =>
  billBody({
    kind: 'advance_tax_document',
    advance_bill_id: advanceId,
    vendor_doc_no: 'DD-2026-118',
    date_issued: '2026-10-06',
    date_taxable: '2026-10-06',
    date_due: null,
    payment_reference: null,
    taxes_included: true,
    items: [{ description: 'Přijatá platba zálohy', qty: 1, rate: gross, taxes: [VAT21] }],
    ...over,
  });
const payOut = (billId: number, amount: number, date: string, key?: string) =>
  post('/v1/finance/bank/transactions', { amount: -amount, currency: 'CZK', date_transaction: date, paid_record: { type: 'purchase_bill', id: billId } }, key);

const balances = (range: string, key?: string) => accountBalances(stack, range, key);

describe('advance bills (issue 75, purchases)', () => {
  let advance: any;
  let taxDocument: any;
  let final: any;

  it('a vendor proforma is a bill of kind advance: its own series, nothing posted, nothing claimed', async () => {
    advance = await post('/v1/purchase/bills', billBody());
    expect(advance).toMatchObject({ kind: 'advance', total_amount: 60500, amount_due: 60500, payment_status: 'unpaid', tax_documents: [], settled_by: null });
    expect(advance.no).toMatch(/^ADV2026\d{5}$/);
    expect(await get(`/v1/purchase/bills/${advance.id}`)).toEqual(advance);
    // listed with the bills, and by kind
    expect((await get('/v1/purchase/bills?kind=advance')).entities.map((b: any) => b.id)).toEqual([advance.id]);
    expect((await get('/v1/purchase/bills?kind=standard')).entities).toEqual([]);
    // a standard bill beside it reaches the ledger; the advance does not
    const other = await post('/v1/purchase/bills', billBody({ kind: undefined, vendor_doc_no: 'FV-1', date_issued: '2026-09-20', items: [{ description: 'Servis', qty: 1, rate: 1000, taxes: [VAT21] }] }));
    expect(other).toMatchObject({ kind: 'standard' });
    expect(other.no).toMatch(/^BILL2026\d{5}$/);
    await eventually(async () => (await get('/v1/accounting/transactions?take=0')).total === 1, 10_000);
    const entries = await get('/v1/accounting/transactions?take=10');
    expect(entries.entities.map((e: any) => [e.source.type, e.source.id])).toEqual([['purchase_bill', other.id]]);
    // not in the inventory-in export of received tax documents either
    const exported = await get('/v1/inventory/in/export/json');
    expect(exported.entities.map((r: any) => r.id)).toEqual([other.id]);
    await payOut(other.id, 1210, '2026-09-25');
  });

  it('a tax document needs money paid on the advance: none is 422 advance_tax_exceeds_paid', async () => {
    const body = await expectProblem(await stack.api('/v1/purchase/bills', { method: 'POST', json: taxDocumentBody(advance.id, 60500) }), 422, 'advance_tax_exceeds_paid');
    expect(body.errors?.[0].path).toBe('advance_bill_id');
    await expectProblem(await stack.api('/v1/purchase/bills', { method: 'POST', json: taxDocumentBody(advance.id, 60500, { advance_bill_id: null }) }), 400);
  });

  it('the payment of the advance goes to 314, not 321', async () => {
    const payment = await payOut(advance.id, 60500, '2026-10-06');
    expect(payment.paid_record).toMatchObject({ type: 'purchase_advance', id: advance.id, no: advance.no });
    await eventually(async () => (await get(`/v1/purchase/bills/${advance.id}`)).payment_status === 'paid', 10_000);
    await eventually(async () => (await balances('[2026-10-01;2026-10-31]'))['314'] === '60500.00', 10_000);
    const october = await balances('[2026-10-01;2026-10-31]');
    expect(october['221']).toBe('-60500.00');
    expect(october['321'] ?? '0.00').toBe('0.00');
  });

  it("the vendor's tax document claims the advance's VAT in the payment's month: Dr 343 / Cr 314, VAT return row 40, control statement B.2", async () => {
    taxDocument = await post('/v1/purchase/bills', taxDocumentBody(advance.id, 60500));
    expect(taxDocument).toMatchObject({
      kind: 'advance_tax_document',
      advance_bill_id: advance.id,
      advance_bill_no: advance.no,
      total_amount: 60500,
      subtotal_amount: 50000,
      amount_paid: 60500,
      amount_due: 0,
      payment_status: 'paid',
      taxes: [expect.objectContaining({ tax_rate: 21, tax_base: 50000, tax_amount: 10500 })],
    });
    expect(taxDocument.no).toMatch(/^ATD2026\d{5}$/);
    expect((await get(`/v1/purchase/bills/${advance.id}`)).tax_documents).toEqual([{ id: taxDocument.id, no: taxDocument.no, vendor_doc_no: 'DD-2026-118', total_amount: 60500 }]);
    // all its tax documents together never document more than was paid
    await expectProblem(await stack.api('/v1/purchase/bills', { method: 'POST', json: taxDocumentBody(advance.id, 1, { vendor_doc_no: 'DD-X' }) }), 422, 'advance_tax_exceeds_paid');

    await eventually(async () => (await balances('[2026-10-01;2026-10-31]'))['343'] === '10500.00', 10_000);
    expect(await balances('[2026-10-01;2026-10-31]')).toMatchObject({ '221': '-60500.00', '314': '50000.00', '343': '10500.00' });
    const entry = (await get(`/v1/accounting/transactions?source_type=purchase_advance_tax_document&source_id=${taxDocument.id}`)).entities[0];
    expect(entry).toMatchObject({ date_posting: '2026-10-06', vendor_doc_no: 'DD-2026-118' });
    const vat = await get('/v1/reporting/tax/vat-return?date_from=2026-10-01&date_to=2026-10-31');
    expect(vat.rows.find((r: any) => r.row === '40')).toMatchObject({ base: 50000, tax: 10500 });
    const kh = await get('/v1/reporting/tax/control-statement?date_from=2026-10-01&date_to=2026-10-31');
    expect(kh.b2.map((r: any) => [r.document_no, r.base_basic, r.tax_basic])).toEqual([['DD-2026-118', 50000, 10500]]);
  });

  it('the final bill deducts what was paid with its VAT: 12 100 left, 314 cleared, the VAT of the supply once', async () => {
    final = await post('/v1/purchase/bills', {
      ...billBody({ kind: undefined }),
      vendor_doc_no: 'FV-2026-311',
      payment_reference: '2026311',
      date_issued: '2026-11-10',
      date_taxable: '2026-11-10',
      date_due: '2026-11-24',
      items: [{ description: 'Frézka FX-200', qty: 1, rate: 60000, taxes: [VAT21] }],
      advances: [{ bill_id: advance.id }],
    });
    expect(final).toMatchObject({
      kind: 'standard',
      total_amount: 72600,
      advance_amount: 60500,
      amount_paid: 60500,
      amount_due: 12100,
      payment_status: 'partially_paid',
      advances: [
        {
          bill_id: advance.id,
          bill_no: advance.no,
          vendor_doc_no: 'ZF-2026-118',
          amount: 60500,
          amount_leg: 60500,
          untaxed_amount: 0,
          taxes: [{ tax_rate: 21, tax_code: 'S21', tax_base: 50000, tax_amount: 10500, tax_base_leg: 50000, tax_amount_leg: 10500 }],
          tax_documents: [{ id: taxDocument.id, no: taxDocument.no }],
        },
      ],
    });
    expect(await get(`/v1/purchase/bills/${advance.id}`)).toMatchObject({ settled_by: { id: final.id, no: final.no }, amount_due: 0 });
    // deducted once
    const again = await expectProblem(
      await stack.api('/v1/purchase/bills', { method: 'POST', json: { ...billBody({ kind: undefined }), vendor_doc_no: 'FV-2', advances: [{ bill_id: advance.id }] } }),
      409,
      'advance_already_deducted',
    );
    expect(again.errors?.[0].path).toBe('advances.0.bill_id');
    // nor does a tax document come after it
    await expectProblem(await stack.api('/v1/purchase/bills', { method: 'POST', json: taxDocumentBody(advance.id, -100, { vendor_doc_no: 'DD-Y' }) }), 409, 'advance_already_deducted');

    // the ledger over both months: 314 cleared, 321 what is left, 343 the supply's VAT once
    await eventually(async () => (await balances('[2026-10-01;2026-11-30]'))['314'] === '0.00', 10_000);
    const both = await balances('[2026-10-01;2026-11-30]');
    expect(both).toMatchObject({ '314': '0.00', '321': '-12100.00', '343': '12600.00', '504': '60000.00', '221': '-60500.00' });
    const november = await get('/v1/reporting/tax/vat-return?date_from=2026-11-01&date_to=2026-11-30');
    expect(november.rows.find((r: any) => r.row === '40')).toMatchObject({ base: 10000, tax: 2100 });
    const twoMonths = await get('/v1/reporting/tax/vat-return?date_from=2026-10-01&date_to=2026-11-30');
    expect(twoMonths.rows.find((r: any) => r.row === '40')).toMatchObject({ base: 60000, tax: 12600 });
    const kh = await get('/v1/reporting/tax/control-statement?date_from=2026-11-01&date_to=2026-11-30');
    expect(kh.b2.map((r: any) => [r.document_no, r.base_basic, r.tax_basic])).toEqual([['FV-2026-311', 10000, 2100]]);

    // what is left is paid as any bill: 321 cleared
    await payOut(final.id, 12100, '2026-11-20');
    await eventually(async () => (await balances('[2026-10-01;2026-11-30]'))['321'] === '0.00', 10_000);
  });

  it('a statement pays an advance bill found by its variable symbol, to 314', async () => {
    const asked = await post('/v1/purchase/bills', billBody({ vendor_doc_no: 'ZF-2026-140', payment_reference: '2026140', date_issued: '2026-11-12', items: [{ description: 'Nářadí – záloha', qty: 1, rate: 2000, taxes: [VAT21] }] }));
    const file = camt053File([
      {
        account: 'CZ6508000000192000145399',
        number: '8801',
        opening: '0.00',
        closing: '-2420.00',
        from: '2026-11-13',
        to: '2026-11-13',
        movements: [{ amount: '-2420.00', vs: '2026140', name: VENDOR.business_name, message: 'ZF-2026-140' }],
      },
    ]);
    await ok(await stack.api('/v1/finance/bank/statements', { method: 'POST', body: file, headers: { 'content-type': 'application/xml' } }));
    await eventually(async () => (await get(`/v1/purchase/bills/${asked.id}`)).payment_status === 'paid', 10_000);
    await eventually(async () => (await balances('[2026-11-13;2026-11-13]'))['314'] === '2420.00', 10_000);
  });

  it('refuses what does not fit: unpaid, another vendor, another currency, the wrong kind of field', async () => {
    const unpaid = await post('/v1/purchase/bills', billBody({ vendor_doc_no: 'ZF-2026-150' }));
    const finalOf = (over: Record<string, unknown>) => stack.api('/v1/purchase/bills', { method: 'POST', json: { ...billBody({ kind: 'standard' }), vendor_doc_no: 'FV-9', ...over } });
    await expectProblem(await finalOf({ advances: [{ bill_id: unpaid.id }] }), 422, 'advance_unpaid');
    await expectProblem(await finalOf({ vendor: OTHER_VENDOR, advances: [{ bill_id: unpaid.id }] }), 422, 'vendor_mismatch');
    await expectProblem(await finalOf({ currency: 'EUR', tax_fx_rate: 25, advances: [{ bill_id: unpaid.id }] }), 422, 'currency_mismatch');
    await expectProblem(await finalOf({ advances: [{ bill_id: 999999 }] }), 422, 'advance_bill_not_found');
    await expectProblem(await finalOf({ advances: [{ bill_id: unpaid.id }, { bill_id: unpaid.id }] }), 400);
    // a standard bill is no advance to deduct, nor a tax document's advance
    const standard = (await get('/v1/purchase/bills?kind=standard')).entities[0];
    await expectProblem(await finalOf({ advances: [{ bill_id: standard.id }] }), 422, 'advance_bill_not_found');
    await expectProblem(await stack.api('/v1/purchase/bills', { method: 'POST', json: taxDocumentBody(standard.id, 100) }), 422, 'advance_bill_not_found');
    // fields of another kind
    await expectProblem(await finalOf({ advance_bill_id: unpaid.id }), 400);
    await expectProblem(await stack.api('/v1/purchase/bills', { method: 'POST', json: billBody({ vendor_doc_no: 'ZF-X', advances: [{ bill_id: unpaid.id }] }) }), 400);
    // a reverse-charged advance is not taxed on its payment
    await payOut(unpaid.id, 60500, '2026-11-14');
    await eventually(async () => (await get(`/v1/purchase/bills/${unpaid.id}`)).payment_status === 'paid', 10_000);
    await expectProblem(
      await stack.api('/v1/purchase/bills', { method: 'POST', json: taxDocumentBody(unpaid.id, 50000, { vendor_doc_no: 'DD-RC', items: [{ qty: 1, rate: 50000, taxes: [{ tax_rate: 21, tax_category: 'AE' }] }] }) }),
      422,
      'advance_reverse_charge',
    );
    // nothing of it was written
    expect((await get(`/v1/purchase/bills/${unpaid.id}`)).tax_documents).toEqual([]);
    expect((await get(`/v1/purchase/bills?kind=advance_tax_document`)).entities.map((b: any) => b.id)).toEqual([taxDocument.id]);
  });

  it("in euros: the vendor's advance keeps its payment day's rate, only the rest of the final bill is converted at the bill's (§ 37a, KV 390)", async () => {
    // an organisation of its own so its October holds this case alone: 1 000 EUR + 21 % asked,
    // half paid on 10 October at 25.50, the final bill of 20 October at 24.50, the rest paid on 25 October
    const other = await secondOrganisation(stack, 'Dovozce s.r.o.');
    for (const [day, rate] of [['2026-10-01', 25], ['2026-10-10', 25.5], ['2026-10-20', 24.5], ['2026-10-25', 24.5]] as const) {
      await ok(await stack.api(`/v1/settings/exchange-rates/EUR/${day}`, { method: 'PUT', key: other.key, json: { rate } }));
    }
    const euro = { currency: 'EUR', bank_account_number: null, items: [{ description: 'Lis – záloha', qty: 1, rate: 1000, taxes: [VAT21] }] };
    const payEuro = (type: string, id: number, date: string) =>
      post('/v1/finance/bank/transactions', { amount: -605, currency: 'EUR', date_transaction: date, paid_record: { type, id } }, other.key);
    const asked = await post('/v1/purchase/bills', billBody({ ...euro, vendor_doc_no: 'ZF-EUR-1' }), other.key);
    await payEuro('purchase_bill', asked.id, '2026-10-10');
    await eventually(async () => (await get(`/v1/purchase/bills/${asked.id}`, other.key)).amount_paid === 605, 10_000);
    // held on 314 at what was paid (605 × 25.50), with no exchange difference against the proforma's rate
    await eventually(async () => (await balances('[2026-10-01;2026-10-31]', other.key))['314'] === '15427.50', 10_000);
    const dd = await post(
      '/v1/purchase/bills',
      taxDocumentBody(asked.id, 605, { ...euro, vendor_doc_no: 'DD-EUR-1', date_issued: '2026-10-10', date_taxable: '2026-10-10', items: [{ description: 'Přijatá platba', qty: 1, rate: 605, taxes: [VAT21] }] }),
      other.key,
    );
    expect(dd.taxes).toEqual([expect.objectContaining({ tax_base: 500, tax_amount: 105, tax_base_leg: 12750, tax_amount_leg: 2677.5 })]);
    const bill = await post(
      '/v1/purchase/bills',
      { ...billBody({ ...euro, kind: undefined }), vendor_doc_no: 'FV-EUR-1', date_issued: '2026-10-20', date_taxable: '2026-10-20', items: [{ description: 'Lis', qty: 1, rate: 1000, taxes: [VAT21] }], advances: [{ bill_id: asked.id }] },
      other.key,
    );
    // the input VAT the bill claims: 2 677.50 claimed before plus 105 EUR × 24.50, not the whole 210 EUR at 24.50 (5 145)
    expect(bill).toMatchObject({ total_amount: 1210, amount_due: 605 });
    expect(bill.taxes).toEqual([expect.objectContaining({ tax_base_leg: 25000, tax_amount_leg: 5250 })]);
    await payEuro('purchase_bill', bill.id, '2026-10-25');
    await eventually(async () => (await balances('[2026-10-01;2026-10-31]', other.key))['321'] === '0.00', 10_000);
    expect(await balances('[2026-10-01;2026-10-31]', other.key)).toMatchObject({ '221': '-30250.00', '314': '0.00', '321': '0.00', '343': '5250.00', '504': '25000.00' });
    const october = await get('/v1/reporting/tax/vat-return?date_from=2026-10-01&date_to=2026-10-31', other.key);
    expect(october.rows.find((r: any) => r.row === '40')).toMatchObject({ base: 25000, tax: 5250 });
  });

  it("another organisation's advance is not found, and the purchase scope is needed", async () => {
    const other = await secondOrganisation(stack, 'Druhá s.r.o.');
    await expectProblem(await stack.api(`/v1/purchase/bills/${advance.id}`, { key: other.key }), 404, 'bill_not_found');
    await expectProblem(await stack.api('/v1/purchase/bills', { method: 'POST', key: other.key, json: taxDocumentBody(advance.id, 100) }), 422, 'advance_bill_not_found');
    await expectProblem(
      await stack.api('/v1/purchase/bills', { method: 'POST', key: other.key, json: { ...billBody({ kind: 'standard' }), advances: [{ bill_id: advance.id }] } }),
      422,
      'advance_bill_not_found',
    );
    // a payment naming it from there matches nothing of ours
    const theirs = await payOut(advance.id, 100, '2026-11-15', other.key);
    expect(theirs.match_status).toBe('unmatched');
    const reader = (await post('/v1/settings/security/api-keys', { name: 'reader', scopes: ['purchase:read'] })).key;
    await expectProblem(await stack.api('/v1/purchase/bills', { method: 'POST', key: reader, json: billBody() }), 403);
    expect((await get(`/v1/purchase/bills/${advance.id}`, reader)).kind).toBe('advance');
  });
});
