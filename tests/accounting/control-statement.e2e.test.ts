import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { billBody } from '../purchase/fixtures.js';

/*
 * October's VAT control statement from the ledger (decision 158): a sale over 10 000 to a VAT
 * payer and its credit note listed in A.4 one by one, smaller sales and a sale to a customer
 * without a VAT id summed in A.5, a vendor's bill over 10 000 listed in B.2 under the vendor's
 * own number, a small bill summed in B.3; EU sales are in no section but on the EC Sales List,
 * per customer VAT id and code (decision 159); November's invoice is in neither.
 */

let stack: Stack;
const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
const VAT12 = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12, rate_type: 'reduced', tax_index: 1 };
const PAYER = { id: 9301, business_name: 'Plátce s.r.o.', vat_no: 'CZ11223344', address: { country: 'CZ' } };
const CONSUMER = { id: 9302, business_name: 'Jan Novák', address: { country: 'CZ' } };
const EU_CUSTOMER = { id: 9303, business_name: 'Kunde GmbH', vat_no: 'DE123456789', address: { country: 'DE' } };

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (path: string, json: unknown) => ok(await stack.api(path, { method: 'POST', json }));
const invoice = (date: string, customer: unknown, items: unknown[]) => post('/v1/sales/invoices', { customer, currency: 'CZK', date_issued: date, date_due: '2026-12-31', items });
const line = (rate: number, tax: unknown = VAT21) => ({ title: 'Service', qty: 1, rate, taxes: [tax] });

describe('the VAT control statement (decision 158)', () => {
  it('lists the large documents of A.4 and B.2 one by one and sums the rest, from October alone', async () => {
    const large = await invoice('2026-10-03', PAYER, [line(10_000), line(1_000, VAT12)]);
    const credit = await post('/v1/sales/credit-notes', { customer: PAYER, currency: 'CZK', date_issued: '2026-10-10', credited_doc_id: large.id, items: [line(1_000)] });
    await invoice('2026-10-12', CONSUMER, [line(20_000)]);
    await invoice('2026-10-13', PAYER, [line(1_000), line(500, VAT12)]);
    const euService = { tax_code: 'RC', tax_name: 'Reverse charge', tax_rate: 0, rate_type: 'services', tax_index: 0 };
    const euGoods = { tax_code: 'IC', tax_name: 'Intra-community supply', tax_rate: 0, rate_type: 'zero', tax_index: 0 };
    await invoice('2026-10-14', EU_CUSTOMER, [line(5_000, euService)]);
    await invoice('2026-10-21', EU_CUSTOMER, [line(1_500, euService)]);
    await invoice('2026-10-22', { ...EU_CUSTOMER, id: 9304, vat_no: 'SK 2020 123456', address: { country: 'SK' } }, [line(2_000.5, euGoods)]);
    const bill = await post('/v1/purchase/bills', billBody({ date_issued: '2026-10-15', date_due: '2026-10-29', vendor_doc_no: 'ACME-KH-1', items: [{ description: 'Server', qty: 1, rate: 20_000, taxes: [VAT21] }] }));
    await post('/v1/purchase/bills', billBody({ date_issued: '2026-10-16', date_due: '2026-10-30', vendor_doc_no: 'ACME-KH-2', items: [{ description: 'Cables', qty: 1, rate: 1_000, taxes: [VAT21] }] }));
    await invoice('2026-11-02', PAYER, [line(50_000)]);

    // the ledger has every October document
    await eventually(async () => {
      const page = await ok(await stack.api('/v1/accounting/transactions?date_posting=[2026-10-01;2026-10-31]&take=0'));
      return page.total === 9 ? page : null;
    }, 10_000);
    const statement = await ok(await stack.api('/v1/reporting/tax/control-statement?date_from=2026-10-01&date_to=2026-10-31'));
    const zero = { base_reduced: 0, tax_reduced: 0 };
    expect(statement).toEqual({
      currency: 'CZK',
      date_from: '2026-10-01',
      date_to: '2026-10-31',
      a1: [],
      a2: [],
      a4: [
        { partner_vat_no: 'CZ11223344', document_no: large.no, date_taxable: '2026-10-03', source: { type: 'sales_invoice', id: large.id }, base_basic: 10_000, tax_basic: 2_100, base_reduced: 1_000, tax_reduced: 120 },
        // the credit note of an A.4 invoice is in A.4 under its own number, whatever its size
        { partner_vat_no: 'CZ11223344', document_no: credit.no, date_taxable: '2026-10-10', source: { type: 'sales_credit_note', id: credit.id }, base_basic: -1_000, tax_basic: -210, ...zero },
      ],
      a5: { base_basic: 21_000, tax_basic: 4_410, base_reduced: 500, tax_reduced: 60 },
      b1: [],
      b2: [{ partner_vat_no: 'CZ12345678', document_no: 'ACME-KH-1', date_taxable: '2026-10-15', source: { type: 'purchase_bill', id: bill.id }, base_basic: 20_000, tax_basic: 4_200, ...zero }],
      b3: { base_basic: 1_000, tax_basic: 210, ...zero },
      closed: false,
    });

    // November is a statement of its own
    const november = await eventually(async () => {
      const s = await ok(await stack.api('/v1/reporting/tax/control-statement?date_from=2026-11-01&date_to=2026-11-30'));
      return s.a4.length ? s : null;
    }, 10_000);
    expect(november.a4.map((d: any) => d.base_basic)).toEqual([50_000]);
    expect(november.a5).toEqual({ base_basic: 0, tax_basic: 0, base_reduced: 0, tax_reduced: 0 });

    // the EU sales are on the EC Sales List instead: per customer VAT id and code
    expect(await ok(await stack.api('/v1/reporting/tax/eu-sales-list?date_from=2026-10-01&date_to=2026-10-31'))).toEqual({
      currency: 'CZK',
      date_from: '2026-10-01',
      date_to: '2026-10-31',
      lines: [
        { country: 'DE', vat_no: '123456789', code: '3', base: 6_500, documents: 2 },
        { country: 'SK', vat_no: '2020123456', code: '0', base: 2_000.5, documents: 1 },
      ],
      closed: false,
    });
    expect((await ok(await stack.api('/v1/reporting/tax/eu-sales-list?date_from=2026-11-01&date_to=2026-11-30'))).lines).toEqual([]);

    await expectProblem(await stack.api('/v1/reporting/tax/control-statement?date_from=2026-10-31&date_to=2026-10-01'), 400, 'validation_error');
    await expectProblem(await stack.api('/v1/reporting/tax/eu-sales-list?date_from=2026-10-31&date_to=2026-10-01'), 400, 'validation_error');
    await expectProblem(await stack.api('/v1/reporting/tax/control-statement?date_to=2026-10-31'), 400, 'validation_error');
  }, 60_000);
});
