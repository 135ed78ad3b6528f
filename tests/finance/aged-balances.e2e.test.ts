import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from './support.js';
import { ACME, billBody, vendorCreditBody } from '../purchase/fixtures.js';

/*
 * Aged receivables and payables (decision 161): what customers owe and what is owed to vendors
 * at the end of a day, by how long it is overdue — payments and credit allocations dated after
 * the day added back, documents issued after it left out, each currency apart. And a customer's
 * statement of account over a period (decision 162), closing at what the aged receivables say.
 */

let stack: Stack;
const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
const ALFA = { id: 9401, business_name: 'Alfa s.r.o.', vat_no: 'CZ10000001', address: { country: 'CZ' } };
const BETA = { id: 9402, business_name: 'Beta GmbH', vat_no: 'DE100000002', address: { country: 'DE' } };
const GAMMA = { business_name: 'Gama (no id)', address: { country: 'CZ' } };

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (path: string, json: unknown, key?: string) => ok(await stack.api(path, { method: 'POST', json, key }));
const invoice = (customer: unknown, issued: string, due: string, net: number, over: Record<string, unknown> = {}, key?: string) =>
  post('/v1/sales/invoices', { customer, currency: 'CZK', date_issued: issued, date_due: due, items: [{ title: 'Work', qty: 1, rate: net, taxes: [VAT21] }], ...over }, key);
const receivables = async (query: string, key?: string) => ok(await stack.api(`/v1/sales/reports/aged-receivables?${query}`, { key }));
const payables = async (query: string) => ok(await stack.api(`/v1/purchase/reports/aged-payables?${query}`));
const none = { current: 0, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 0 };

describe('aged receivables (decision 161)', () => {
  it('buckets what each customer owed at the end of a day, payments and set-offs dated later added back', async () => {
    const old = await invoice(ALFA, '2026-08-01', '2026-08-15', 1000); // 1210
    const recent = await invoice(ALFA, '2026-10-01', '2026-10-31', 500); // 605
    const open = await invoice(ALFA, '2026-11-20', '2026-12-04', 100); // 121
    const cn = await post('/v1/sales/credit-notes', { customer: ALFA, currency: 'CZK', date_issued: '2026-11-25', credited_doc_id: open.id, items: [{ title: 'Refund', qty: 1, rate: 100, taxes: [VAT21] }] });
    await invoice(BETA, '2026-09-01', '2026-09-30', 100, { currency: 'EUR', fx_rate: 25 }); // 121 EUR
    await invoice(GAMMA, '2026-11-01', '2026-11-15', 200); // 242
    const payment = await post('/v1/finance/bank/transactions', { amount: 210, currency: 'CZK', date_transaction: '2026-11-10', paid_record: { type: 'sales_invoice', id: old.id } });
    await post(`/v1/sales/credit-notes/${cn.id}/allocations`, { invoice_id: recent.id, date: '2026-11-28' });
    await eventually(async () => (await ok(await stack.api(`/v1/sales/invoices/${old.id}`))).amount_paid === 210, 10_000);

    // 30 November: the old invoice 107 days overdue less its payment, the October one exactly 30
    // days overdue less the credit note set off against it, the newest not yet due
    expect(await receivables('as_of=2026-11-30')).toEqual({
      as_of: '2026-11-30',
      totals: [
        { currency: 'CZK', current: 121, days_1_30: 726, days_31_60: 0, days_61_90: 0, days_over_90: 1000, total: 1847 },
        { currency: 'EUR', ...none, days_61_90: 121, total: 121 },
      ],
      total: 3,
      from: 0,
      take: 100,
      entities: [
        { contact: { id: 9401, name: 'Alfa s.r.o.' }, currency: 'CZK', documents: 3, ...none, current: 121, days_1_30: 484, days_over_90: 1000, total: 1605 },
        { contact: { id: null, name: 'Gama (no id)' }, currency: 'CZK', documents: 1, ...none, days_1_30: 242, total: 242 },
        // 61 days after 30 September
        { contact: { id: 9402, name: 'Beta GmbH' }, currency: 'EUR', documents: 1, ...none, days_61_90: 121, total: 121 },
      ],
      aggregations: [],
    });

    // 26 November, before the set-off: the credit note stands apart (negative), dated a day overdue
    const before = await receivables('as_of=2026-11-26');
    expect(before.entities[0]).toEqual({ contact: { id: 9401, name: 'Alfa s.r.o.' }, currency: 'CZK', documents: 4, ...none, current: 121, days_1_30: 484, days_over_90: 1000, total: 1605 });
    // 5 November: before the payment (added back), the newer documents not issued yet
    expect((await receivables('as_of=2026-11-05')).entities).toEqual([
      { contact: { id: 9401, name: 'Alfa s.r.o.' }, currency: 'CZK', documents: 2, ...none, days_1_30: 605, days_61_90: 1210, total: 1815 },
      { contact: { id: null, name: 'Gama (no id)' }, currency: 'CZK', documents: 1, ...none, current: 242, total: 242 },
      { contact: { id: 9402, name: 'Beta GmbH' }, currency: 'EUR', documents: 1, ...none, days_31_60: 121, total: 121 },
    ]);
    // before the first invoice: nothing
    expect(await receivables('as_of=2026-07-31')).toMatchObject({ totals: [], total: 0, entities: [] });

    // paging and a currency: the totals are over every line, the page is its slice
    const first = await receivables('as_of=2026-11-30&take=1');
    expect([first.total, first.entities.map((e: any) => e.contact.name), first.totals.length]).toEqual([3, ['Alfa s.r.o.'], 2]);
    expect(await receivables('as_of=2026-11-30&from=5')).toMatchObject({ total: 3, entities: [] });
    expect((await receivables('as_of=2026-11-30&take=0')).total).toBe(3);
    const euro = await receivables('as_of=2026-11-30&currency=EUR');
    expect([euro.total, euro.entities.map((e: any) => e.currency), euro.totals.map((t: any) => t.currency)]).toEqual([1, ['EUR'], ['EUR']]);

    // without as_of: today, when every document here is issued and the set-off made
    expect((await receivables('')).totals).toEqual((await receivables(`as_of=${new Date().toISOString().slice(0, 10)}`)).totals);

    // Alfa's statement of October and November (decision 162): the August invoice opens it, each
    // document and payment moves the balance, the set-off moves nothing, and it closes at what the
    // aged receivables say Alfa owed on 30 November
    const statement = async (query: string) => ok(await stack.api(`/v1/sales/reports/customer-statement?customer_id=${ALFA.id}&${query}`));
    const line = (date: string, kind: string, doc: { id: number; no: string }, amount: number, balance: number, paid: number | null = null) => ({
      date,
      kind,
      document: { type: kind === 'credit_note' || kind === 'refund' ? 'sales_credit_note' : 'sales_invoice', id: doc.id, no: doc.no },
      payment: paid === null ? null : { id: paid, source: 'bank_transaction' },
      amount,
      balance,
    });
    expect(await statement('date_from=2026-10-01&date_to=2026-11-30')).toEqual({
      customer: { id: ALFA.id, name: 'Alfa s.r.o.' },
      date_from: '2026-10-01',
      date_to: '2026-11-30',
      currencies: [
        {
          currency: 'CZK',
          opening_balance: 1210,
          lines: [
            line('2026-10-01', 'invoice', recent, 605, 1815),
            line('2026-11-10', 'payment', old, -210, 1605, payment.id),
            line('2026-11-20', 'invoice', open, 121, 1726),
            line('2026-11-25', 'credit_note', cn, -121, 1605),
          ],
          closing_balance: 1605,
        },
      ],
    });
    // the payment taken back (a wrong match) is a line of its own on the payment's day
    await ok(await stack.api(`/v1/finance/bank/transactions/${payment.id}/unmatch`, { method: 'POST' }));
    const corrected = await eventually(async () => {
      const s = await statement('date_from=2026-11-01&date_to=2026-11-30');
      return s.currencies[0].lines.length === 4 ? s : null;
    }, 10_000);
    expect(corrected.currencies[0]).toMatchObject({
      opening_balance: 1815,
      lines: [line('2026-11-10', 'payment', old, -210, 1605, payment.id), line('2026-11-10', 'payment', old, 210, 1815, payment.id), line('2026-11-20', 'invoice', open, 121, 1936), line('2026-11-25', 'credit_note', cn, -121, 1815)],
      closing_balance: 1815,
    });
    // a customer with no documents, a reversed period
    await expectProblem(await stack.api('/v1/sales/reports/customer-statement?customer_id=999999&date_from=2026-10-01&date_to=2026-11-30'), 404, 'customer_not_found');
    await expectProblem(await stack.api(`/v1/sales/reports/customer-statement?customer_id=${ALFA.id}&date_from=2026-11-30&date_to=2026-10-01`), 400, 'validation_error');
    await expectProblem(await stack.api(`/v1/sales/reports/customer-statement?date_from=2026-10-01&date_to=2026-11-30`), 400);
    // Beta's statement is in euros
    expect((await ok(await stack.api(`/v1/sales/reports/customer-statement?customer_id=${BETA.id}&date_from=2026-01-01&date_to=2026-12-31`))).currencies).toEqual([
      { currency: 'EUR', opening_balance: 0, lines: [expect.objectContaining({ kind: 'invoice', amount: 121, balance: 121 })], closing_balance: 121 },
    ]);
  }, 60_000);

  it('is the organisation’s own, needs sales:read, and refuses a malformed day', async () => {
    const other = await secondOrganisation(stack, 'Aging s.r.o.');
    await invoice(ALFA, '2026-11-01', '2026-11-15', 10, {}, other.key);
    // the customer renamed itself: one line, under the name of its latest document
    await invoice({ ...ALFA, business_name: 'Alfa a.s.' }, '2026-11-02', '2026-11-15', 20, {}, other.key);
    const theirs = await receivables('as_of=2026-11-30', other.key);
    expect([theirs.total, theirs.totals]).toEqual([1, [{ currency: 'CZK', ...none, days_1_30: 36.3, total: 36.3 }]]);
    expect(theirs.entities.map((e: any) => [e.contact, e.documents])).toEqual([[{ id: ALFA.id, name: 'Alfa a.s.' }, 2]]);

    const financeOnly = (await post('/v1/settings/security/api-keys', { name: 'bank feed', scopes: ['finance:read', 'finance:write'] })).key;
    await expectProblem(await stack.api('/v1/sales/reports/aged-receivables', { key: financeOnly }), 403, 'insufficient_scope');
    for (const query of ['as_of=2026-02-30', 'as_of=yesterday', 'as_of=2026-11-30%00', 'currency=eur', 'take=1001', 'from=-1', 'as_of=2026-11-30&unknown=1']) {
      await expectProblem(await stack.api(`/v1/sales/reports/aged-receivables?${query}`), 400);
    }
  }, 60_000);
});

describe('aged payables (decision 161)', () => {
  it('buckets what is owed to each vendor, by the payment and set-off days', async () => {
    const bill = await post('/v1/purchase/bills', billBody({ date_issued: '2026-10-01', date_due: '2026-10-15', vendor_doc_no: 'AGE-1', items: [{ description: 'Paper', qty: 1, rate: 1000, taxes: [VAT21] }] }));
    const credit = await post('/v1/purchase/vendor-credits', vendorCreditBody({ date_issued: '2026-10-20', credited_doc_id: bill.id, vendor_doc_no: 'AGE-CR-1', items: [{ description: 'Return', qty: 1, rate: 100, taxes: [VAT21] }] }));
    await post('/v1/finance/bank/transactions', { amount: -500, currency: 'CZK', date_transaction: '2026-11-12', paid_record: { type: 'purchase_bill', id: bill.id } });
    await post(`/v1/purchase/vendor-credits/${credit.id}/allocations`, { bill_id: bill.id, date: '2026-11-20' });
    await eventually(async () => (await ok(await stack.api(`/v1/purchase/bills/${bill.id}`))).amount_paid === 621, 10_000);

    const vendor = { id: ACME.id, name: ACME.business_name };
    // 30 November: 1210 − 500 paid − 121 set off, 46 days overdue
    expect((await payables('as_of=2026-11-30')).entities).toEqual([{ contact: vendor, currency: 'CZK', documents: 1, ...none, days_31_60: 589, total: 589 }]);
    // 15 November: paid, not yet set off: the bill 31 days overdue, the credit apart (26 days)
    expect((await payables('as_of=2026-11-15')).entities).toEqual([{ contact: vendor, currency: 'CZK', documents: 2, ...none, days_1_30: -121, days_31_60: 710, total: 589 }]);
    // 31 October: neither yet (the bill 16 days overdue, the credit 11)
    expect((await payables('as_of=2026-10-31')).entities).toEqual([{ contact: vendor, currency: 'CZK', documents: 2, ...none, days_1_30: 1089, total: 1089 }]);
  }, 60_000);
});
