import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { apiOf, billBody, vendorCreditBody } from '../purchase/fixtures.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * Lists read plain rows, not entities (issue 15, decision 105): whatever a list answers for a
 * record is exactly what the record's own read (or its creation) answered — every field, its
 * type and its value: decimals, dates, timestamps, JSON.
 */

let stack: Stack;
const api = apiOf(() => stack);
const post = async (path: string, json: unknown) => {
  const res = await api(path, { method: 'POST', json });
  expect(res.status, path).toBe(200);
  return res.json();
};
const listed = async (path: string, id: number) => {
  const page = await (await api(`${path}${path.includes('?') ? '&' : '?'}take=1000`)).json();
  return page.entities.find((e: { id: number }) => e.id === id);
};

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance'] });
}, 120_000);
afterAll(async () => stack?.close());

describe('a list answers each record as its own read does', () => {
  it('invoices and credit notes, against GET one', async () => {
    const invoice = await post('/v1/sales/invoices', invoiceBody({ notes: 'list rows', date_issued: '2026-01-02', date_due: '2026-01-10' }));
    const credit = await post('/v1/sales/credit-notes', { ...invoiceBody({ notes: 'list rows credit' }), credited_doc_id: invoice.id });
    expect(await listed('/v1/sales/invoices', invoice.id)).toEqual(await (await api(`/v1/sales/invoices/${invoice.id}`)).json());
    expect(await listed('/v1/sales/credit-notes', credit.id)).toEqual(await (await api(`/v1/sales/credit-notes/${credit.id}`)).json());
  });

  it('bills and vendor credits, against their creation', async () => {
    const bill = await post('/v1/purchase/bills', billBody({ date_due: '2026-01-10', description: 'list rows bill' }));
    const credit = await post('/v1/purchase/vendor-credits', vendorCreditBody({ description: 'list rows credit' }));
    expect(await listed('/v1/purchase/bills', bill.id)).toEqual(bill);
    expect(await listed('/v1/purchase/vendor-credits', credit.id)).toEqual(credit);
    const exported = await listed('/v1/inventory/in/export/json', bill.id);
    expect(exported).toMatchObject({ id: bill.id, no: bill.no, total_amount: bill.total_amount, date_issued: bill.date_issued, currency: bill.currency });
  });

  it('payouts against GET one, bank transactions against their recording', async () => {
    const payout = await post('/v1/finance/payouts', {
      currency: 'CZK',
      date_issued: '2026-04-01',
      psp_object_id: 'po_list_rows',
      lines: [{ amount: 100.5, description: 'list rows' }],
    });
    expect(await listed('/v1/finance/payouts', payout.id)).toEqual(await (await api(`/v1/finance/payouts/${payout.id}`)).json());
    const bt = await post('/v1/finance/bank/transactions', {
      account_number: '2400123456/2010',
      amount: 1234.56,
      currency: 'CZK',
      date_transaction: '2026-04-02',
      date_accounting: '2026-04-03',
      partner_name: 'List Rows s.r.o.',
      payment_reference: '777',
    });
    expect(await listed('/v1/finance/bank/transactions', bt.id)).toEqual(bt);
  });
});
