import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Decimal from 'decimal.js';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { billBody, vendorCreditBody } from '../purchase/fixtures.js';

/*
 * October's VAT return from the ledger (decision 157): two domestic rates, a credit note, a
 * service to an EU customer, a bill and a vendor credit against it, each on its row of the Czech
 * return; November's invoice and a bank payment change nothing; the net of the return is what
 * October moved on 343; closing the books makes it final.
 */

let stack: Stack;
const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
const VAT12 = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12, rate_type: 'reduced', tax_index: 1 };
const CUSTOMER = { id: 9201, business_name: 'Odběratel s.r.o.', vat_no: 'CZ11223344', address: { country: 'CZ' } };
const EU_CUSTOMER = { id: 9202, business_name: 'Kunde GmbH', vat_no: 'DE123456789', address: { country: 'DE' } };
const OCTOBER = 'date_from=2026-10-01&date_to=2026-10-31';

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (path: string, json: unknown, key?: string) => ok(await stack.api(path, { method: 'POST', json, key }));
const invoice = (date: string, items: unknown[], customer: unknown = CUSTOMER, key?: string) =>
  post('/v1/sales/invoices', { customer, currency: 'CZK', date_issued: date, date_due: '2026-12-31', items }, key);
const vatReturn = async (query = OCTOBER, key?: string) => ok(await stack.api(`/v1/reporting/tax/vat-return?${query}`, { key }));

describe('the VAT return (decision 157)', () => {
  it("sums October's ledger tax rows onto the rows of the return, and its net is October's movement on 343", async () => {
    const sold = await invoice('2026-10-05', [
      { title: 'Consulting', qty: 4, rate: 250, taxes: [VAT21] },
      { title: 'Handbook', qty: 2, rate: 250, taxes: [VAT12] },
    ]);
    await post('/v1/sales/credit-notes', { customer: CUSTOMER, currency: 'CZK', date_issued: '2026-10-20', credited_doc_id: sold.id, items: [{ title: 'Discount', qty: 1, rate: 100, taxes: [VAT21] }] });
    await invoice('2026-10-12', [{ title: 'Remote support', qty: 1, rate: 800, taxes: [{ tax_code: 'RC', tax_name: 'Reverse charge (services)', tax_rate: 0, rate_type: 'services', tax_index: 0 }] }], EU_CUSTOMER);
    const bill = await post('/v1/purchase/bills', billBody({ date_issued: '2026-10-08', date_due: '2026-10-22', vendor_doc_no: 'VAT-OCT', items: [{ description: 'Laptop', qty: 1, rate: 2000, taxes: [VAT21] }] }));
    await post('/v1/purchase/vendor-credits', vendorCreditBody({ date_issued: '2026-10-25', credited_doc_id: bill.id, vendor_doc_no: 'VAT-OCT-CR', items: [{ description: 'Discount', qty: 1, rate: 200, taxes: [VAT21] }] }));
    // outside the return: November's invoice, and a payment (no VAT)
    await invoice('2026-11-02', [{ title: 'Consulting', qty: 1, rate: 5000, taxes: [VAT21] }]);
    await post('/v1/finance/bank/transactions', { amount: 1290, currency: 'CZK', date_transaction: '2026-10-28', paid_record: { type: 'sales_invoice', id: sold.id } });

    const october = await eventually(async () => {
      const r = await vatReturn();
      return r.entries === 5 ? r : null;
    }, 10_000);
    expect(october).toEqual({
      currency: 'CZK',
      date_from: '2026-10-01',
      date_to: '2026-10-31',
      rows: [
        { row: '1', name: 'Domestic supplies, basic rate', base: 900, tax: 189 },
        { row: '2', name: 'Domestic supplies, reduced rate', base: 500, tax: 60 },
        { row: '21', name: 'Services supplied to another EU state', base: 800, tax: 0 },
        { row: '40', name: 'Deduction: domestic purchases, basic rate', base: 1800, tax: 378 },
      ],
      output_tax: 249,
      deductible_tax: 378,
      tax_due: 0,
      excess_deduction: 129,
      filed: expect.any(Object),
      entries: 5,
      closed: false,
    });
    // whole crowns already: the form takes the same figures
    const { rows, output_tax, deductible_tax, tax_due, excess_deduction } = october;
    expect(october.filed).toEqual({ rows, output_tax, deductible_tax, tax_due, excess_deduction });

    // the return's net is the period's movement on the VAT account (Dr 343 129)
    const tb = await ok(await stack.api('/v1/reporting/financial/trial-balance/1/export/json?date_posting=[2026-10-01;2026-10-31]', { method: 'POST', json: [] }));
    const vat = tb.rows.find((r: any) => r.gl_account.number === '343');
    expect(new Decimal(vat.debit).minus(vat.credit).toFixed(2)).toBe(new Decimal(october.deductible_tax).minus(october.output_tax).toFixed(2));

    // what moved on 343 in October (decision 164): the five documents with VAT, not the payment
    // (on 221 and 311) nor November's invoice; a range of accounts, and another book of accounts
    const on = async (query: string) => (await ok(await stack.api(`/v1/accounting/transactions?take=1000&${query}`))).entities.map((t: any) => t.type).sort();
    expect(await on('date_posting=[2026-10-01;2026-10-31]&account_number=343')).toEqual(['purchase_bill', 'purchase_vendor_credit', 'sales_credit_note', 'sales_invoice', 'sales_invoice']);
    // the payment reaches the ledger from finance on its own path: the return above (no VAT in it) did not wait for it
    const on221 = await eventually(async () => {
      const types = await on('date_posting=[2026-10-01;2026-10-31]&account_number=221');
      return types.length > 0 ? types : null;
    }, 10_000);
    expect(on221).toEqual(['bank_transaction']);
    expect(await on('account_number=[6;7]')).toEqual(['sales_credit_note', 'sales_invoice', 'sales_invoice', 'sales_invoice']);
    expect(await on('account_number=999')).toEqual([]);
    await expectProblem(await stack.api('/v1/accounting/transactions?account_number=[9;1'), 400, 'validation_error');

    // a period of its own: November alone, and the two months together
    expect((await vatReturn('date_from=2026-11-01&date_to=2026-11-30')).rows).toEqual([{ row: '1', name: 'Domestic supplies, basic rate', base: 5000, tax: 1050 }]);
    expect(await vatReturn('date_from=2026-10-01&date_to=2026-11-30')).toMatchObject({ output_tax: 1299, deductible_tax: 378, tax_due: 921, excess_deduction: 0, entries: 6 });
    expect(await vatReturn('date_from=2026-09-01&date_to=2026-09-30')).toMatchObject({ rows: [], output_tax: 0, tax_due: 0, entries: 0 });
    // a period of figures with hellers: the form takes each row in whole crowns, its totals from them
    await invoice('2026-12-03', [{ title: 'Cable', qty: 3, rate: 33.3, taxes: [VAT21] }, { title: 'Booklet', qty: 1, rate: 10.1, taxes: [VAT12] }]);
    const december = await eventually(async () => {
      const r = await vatReturn('date_from=2026-12-01&date_to=2026-12-31');
      return r.entries === 1 ? r : null;
    }, 10_000);
    expect(december.rows.map((r: any) => [r.row, r.base, r.tax])).toEqual([
      ['1', 99.9, 20.98],
      ['2', 10.1, 1.21],
    ]);
    expect(december.filed.rows.map((r: any) => [r.row, r.base, r.tax])).toEqual([
      ['1', 100, 21],
      ['2', 10, 1],
    ]);
    expect(december).toMatchObject({ output_tax: 22.19, tax_due: 22.19, filed: { output_tax: 22, tax_due: 22, deductible_tax: 0, excess_deduction: 0 } });

    // filed: the books closed through October make it final
    await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: '2026-10-31' } }));
    await eventually(async () => (await vatReturn()).closed === true, 10_000);
    expect((await vatReturn('date_from=2026-10-01&date_to=2026-11-30')).closed).toBe(false);
  }, 60_000);

  it('is the organisation’s own, needs accounting:read, and refuses a reversed or malformed period', async () => {
    const other = await secondOrganisation(stack, 'Other VAT payer s.r.o.');
    await invoice('2026-10-06', [{ title: 'Their sale', qty: 1, rate: 100, taxes: [VAT21] }], CUSTOMER, other.key);
    const theirs = await eventually(async () => {
      const r = await vatReturn(OCTOBER, other.key);
      return r.entries === 1 ? r : null;
    }, 10_000);
    expect(theirs).toMatchObject({ rows: [{ row: '1', base: 100, tax: 21 }], output_tax: 21, closed: false });

    const salesOnly = (await post('/v1/settings/security/api-keys', { name: 'shop', scopes: ['sales:read', 'sales:write'] })).key;
    await expectProblem(await stack.api(`/v1/reporting/tax/vat-return?${OCTOBER}`, { key: salesOnly }), 403, 'insufficient_scope');
    const reader = (await post('/v1/settings/security/api-keys', { name: 'accountant', scopes: ['accounting:read'] })).key;
    expect((await vatReturn(OCTOBER, reader)).output_tax).toBe(249);

    const reversed = await expectProblem(await stack.api('/v1/reporting/tax/vat-return?date_from=2026-10-31&date_to=2026-10-01'), 400, 'validation_error');
    expect(reversed.errors).toEqual([expect.objectContaining({ path: 'date_to', code: 'range_reversed' })]);
    for (const query of ['date_from=2026-10-01', 'date_from=2026-13-01&date_to=2026-13-31', 'date_from=2026-10-01&date_to=2026-10-31%00', 'date_from=0001-01-01&date_to=2026-10-31', 'date_from=2026-10-01&date_to=2026-10-31&book=1']) {
      await expectProblem(await stack.api(`/v1/reporting/tax/vat-return?${query}`), 400);
    }
  }, 60_000);
});
