import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Decimal from 'decimal.js';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { CUSTOMER, VAT21, apiOf, expectProblem, invoiceBody, readEvents } from './helpers.js';
import { secondOrganisation } from '../finance/support.js';

/*
 * A credit note applied to an open invoice of its customer (decision 148): a customer who was
 * credited 121 of an invoice of 298 owes 177, and once it pays 177 both documents are settled
 * and the receivable is nil, with no ledger entry for the set-off itself.
 */

let stack: Stack;
const api = apiOf(() => stack);
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const json = async (res: Response | { json(): Promise<unknown>; status: number; text(): Promise<string> }) => {
  expect(res.status, res.status === 200 ? '' : await (res as Response).clone().text()).toBe(200);
  return (await res.json()) as any;
};
const createInvoice = async (over: Record<string, unknown> = {}, key?: string) => json(await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody(over), key }));
const createCreditNote = async (invoice: { id: number }, over: Record<string, unknown> = {}, key?: string) =>
  json(
    await api('/v1/sales/credit-notes', {
      method: 'POST',
      key,
      json: { customer: CUSTOMER, currency: 'CZK', date_issued: '2026-11-22', credited_doc_id: invoice.id, items: [{ title: 'Refund', qty: 1, rate: 100, taxes: [VAT21] }], ...over },
    }),
  );
const allocate = (creditNoteId: number, body: unknown, init: { key?: string; headers?: Record<string, string> } = {}) =>
  api(`/v1/sales/credit-notes/${creditNoteId}/allocations`, { method: 'POST', json: body, ...init });
const figures = async (path: string) => {
  const d = await json(await api(path));
  return { amount_paid: d.amount_paid, amount_due: d.amount_due, payment_status: d.payment_status };
};
const allocationEvents = async (subject: string, id: number) => (await readEvents(stack, 'SALES', subject)).filter((e) => e.subject === String(id));
/** The organisation's ledger: its entries' types, and Σ of its rows on 311 (debit positive). */
async function ledger(): Promise<{ types: string[]; receivable: string }> {
  const page = await json(await api('/v1/accounting/transactions?take=1000'));
  let sum = new Decimal(0);
  for (const t of page.entities) for (const row of t.rows) if (row.gl_account?.number === '311') sum = sum.plus(row.debit).minus(row.credit);
  return { types: page.entities.map((t: any) => t.type).sort(), receivable: sum.toFixed(2) };
}

describe('credit note allocations (decision 148)', () => {
  it('applies a credit note to its invoice, after which paying the rest settles both and the receivable is nil', async () => {
    const invoice = await createInvoice({ date_issued: '2026-11-20' });
    const cn = await createCreditNote(invoice);
    expect([invoice.total_amount, cn.total_amount]).toEqual([298, 121]);

    const allocation = await json(await allocate(cn.id, { invoice_id: invoice.id, date: '2026-11-25' }));
    expect(allocation).toEqual({
      id: expect.any(Number),
      credit_note: { id: cn.id, no: cn.no },
      invoice: { id: invoice.id, no: invoice.no },
      amount: 121,
      currency: 'CZK',
      date: '2026-11-25',
      created_at: expect.any(String),
      removed_at: null,
      exchange_difference: null,
    });
    expect(await figures(`/v1/sales/invoices/${invoice.id}`)).toEqual({ amount_paid: 121, amount_due: 177, payment_status: 'partially_paid' });
    expect(await figures(`/v1/sales/credit-notes/${cn.id}`)).toEqual({ amount_paid: 121, amount_due: 0, payment_status: 'paid' });
    // the lists answer the same figures as the documents
    const listed = (await json(await api('/v1/sales/invoices?take=1000'))).entities.find((d: any) => d.id === invoice.id);
    expect(listed).toMatchObject({ amount_due: 177, payment_status: 'partially_paid' });
    expect(await json(await api(`/v1/sales/credit-notes/${cn.id}/allocations`))).toEqual({ total: 1, from: 0, take: 100, entities: [allocation], aggregations: [] });
    // the invoice says which credit notes paid part of it
    expect(await json(await api(`/v1/sales/invoices/${invoice.id}/allocations`))).toEqual({ total: 1, from: 0, take: 100, entities: [allocation], aggregations: [] });
    expect((await json(await api(`/v1/sales/invoices/${invoice.id}/allocations?take=0`))).entities).toEqual([]);
    await expectProblem(await api(`/v1/sales/invoices/${cn.id}/allocations`), 404, 'invoice_not_found');

    const [event] = await eventually(async () => {
      const found = await allocationEvents('sales.credit_allocation.recorded', allocation.id);
      return found.length ? found : null;
    });
    expect(event).toMatchObject({ type: 'com.ledgerline.sales.credit_allocation.recorded.v1', data: allocation });

    // the customer pays what it still owes; the bank's money matches the reduced amount due
    await json(
      await api('/v1/finance/bank/transactions', {
        method: 'POST',
        json: { account_number: '2400123456/2010', currency: 'CZK', date_transaction: '2026-11-26', amount: 177, statement_id: 1, order: 1, paid_record: { type: 'sales_invoice', id: invoice.id } },
      }),
    );
    await eventually(async () => (await figures(`/v1/sales/invoices/${invoice.id}`)).payment_status === 'paid');
    expect(await figures(`/v1/sales/invoices/${invoice.id}`)).toEqual({ amount_paid: 298, amount_due: 0, payment_status: 'paid' });
    // (the organisation's first documents) invoice +298, credit note −121, payment −177: nothing
    // left on 311, and no entry for the set-off itself
    const posted = await eventually(async () => {
      const l = await ledger();
      return l.types.length === 3 ? l : null;
    }, 10_000);
    expect(posted.receivable).toBe('0.00');
    expect(posted.types).toEqual(['bank_transaction', 'sales_credit_note', 'sales_invoice']);
  });

  it('a partial allocation, then the rest by default; taking one back restores both documents once', async () => {
    const invoice = await createInvoice();
    const cn = await createCreditNote(invoice);
    const first = await json(await allocate(cn.id, { invoice_id: invoice.id, amount: 21.5 }));
    expect(first.amount).toBe(21.5);
    const second = await json(await allocate(cn.id, { invoice_id: invoice.id }));
    expect(second.amount).toBe(99.5);
    expect(await figures(`/v1/sales/credit-notes/${cn.id}`)).toEqual({ amount_paid: 121, amount_due: 0, payment_status: 'paid' });
    await expectProblem(await allocate(cn.id, { invoice_id: invoice.id }), 422, 'nothing_to_allocate');

    const removed = await json(await api(`/v1/sales/credit-notes/${cn.id}/allocations/${first.id}`, { method: 'DELETE' }));
    expect(removed).toEqual({ ...first, removed_at: expect.any(String) });
    expect(await figures(`/v1/sales/credit-notes/${cn.id}`)).toEqual({ amount_paid: 99.5, amount_due: 21.5, payment_status: 'partially_paid' });
    expect(await figures(`/v1/sales/invoices/${invoice.id}`)).toEqual({ amount_paid: 99.5, amount_due: 198.5, payment_status: 'partially_paid' });
    // taking it back again answers it as it is and moves nothing
    expect(await json(await api(`/v1/sales/credit-notes/${cn.id}/allocations/${first.id}`, { method: 'DELETE' }))).toEqual(removed);
    expect(await figures(`/v1/sales/invoices/${invoice.id}`)).toEqual({ amount_paid: 99.5, amount_due: 198.5, payment_status: 'partially_paid' });
    // the allocation's events: made, then taken back (once), on its one subject in that order
    const recorded = await eventually(async () => {
      const found = await allocationEvents('sales.credit_allocation.recorded', first.id);
      return found.length >= 2 ? found : null;
    });
    expect(recorded.map((e) => e.data)).toEqual([first, removed]);
    expect((await json(await api(`/v1/sales/credit-notes/${cn.id}/allocations`))).entities.map((a: any) => [a.id, a.removed_at !== null])).toEqual([
      [first.id, true],
      [second.id, false],
    ]);
    await expectProblem(await api(`/v1/sales/credit-notes/${cn.id}/allocations/${second.id + 1000}`, { method: 'DELETE' }), 404, 'allocation_not_found');
    // another credit note's allocation is not found through this one
    const other = await createCreditNote(invoice, { items: [{ title: 'Refund', qty: 1, rate: 10, taxes: [VAT21] }] });
    await expectProblem(await api(`/v1/sales/credit-notes/${other.id}/allocations/${second.id}`, { method: 'DELETE' }), 404, 'allocation_not_found');
  });

  it('refuses what would not be a set-off, naming the field, and changes nothing', async () => {
    const invoice = await createInvoice();
    const cn = await createCreditNote(invoice);
    const otherCustomer = await createInvoice({ customer: { ...CUSTOMER, id: 777, business_name: 'Globex a.s.', vat_no: 'CZ87654321' } });
    const euro = await createInvoice({ currency: 'EUR', fx_rate: 25 });
    const small = await createInvoice({ items: [{ title: 'Pen', qty: 1, rate: 10, taxes: [VAT21] }] });
    const before = [await figures(`/v1/sales/invoices/${invoice.id}`), await figures(`/v1/sales/credit-notes/${cn.id}`)];

    const refused: Array<[unknown, number, string, string]> = [
      [{ invoice_id: invoice.id, amount: 10.001 }, 400, 'validation_error', 'amount'],
      [{ invoice_id: invoice.id, amount: 0 }, 400, 'validation_error', 'amount'],
      [{ invoice_id: invoice.id, amount: -5 }, 400, 'validation_error', 'amount'],
      [{ invoice_id: invoice.id, amount: 1e300 }, 400, 'validation_error', 'amount'],
      [{ invoice_id: invoice.id, amount: '10' }, 400, 'validation_error', 'amount'],
      [{ invoice_id: invoice.id, date: '2026-02-30' }, 400, 'validation_error', 'date'],
      [{ invoice_id: invoice.id, memo: 'x' }, 400, 'validation_error', 'memo'],
      [{}, 400, 'validation_error', 'invoice_id'],
      [{ invoice_id: invoice.id, amount: 121.01 }, 422, 'allocation_exceeds_credit', 'amount'],
      [{ invoice_id: small.id, amount: 100 }, 422, 'allocation_exceeds_due', 'amount'],
      [{ invoice_id: invoice.id, date: '2026-11-21' }, 422, 'allocation_before_issue', 'date'],
      [{ invoice_id: otherCustomer.id }, 422, 'customer_mismatch', 'invoice_id'],
      [{ invoice_id: euro.id }, 422, 'currency_mismatch', 'invoice_id'],
      [{ invoice_id: cn.id }, 422, 'invoice_not_found', 'invoice_id'],
      [{ invoice_id: 2_147_483_647 }, 422, 'invoice_not_found', 'invoice_id'],
    ];
    for (const [body, status, code, path] of refused) {
      const problem = await expectProblem(await allocate(cn.id, body), status, code);
      expect(problem.errors?.map((e) => e.path), JSON.stringify(body)).toContain(path);
    }
    await expectProblem(await allocate(invoice.id, { invoice_id: invoice.id }), 404, 'credit_note_not_found');
    await expectProblem(await allocate(9_007_199_254_740_991, { invoice_id: invoice.id }), 404, 'credit_note_not_found');
    expect((await api(`/v1/sales/credit-notes/${cn.id}/allocations`, { method: 'POST', body: '{"invoice_id": 1', headers: { 'content-type': 'application/json' } })).status).toBe(400);

    expect([await figures(`/v1/sales/invoices/${invoice.id}`), await figures(`/v1/sales/credit-notes/${cn.id}`)]).toEqual(before);
    expect((await json(await api(`/v1/sales/credit-notes/${cn.id}/allocations`))).total).toBe(0);
  });

  it('a credit note at another rate than its invoice settles each at its own legal value; the difference is a loss on 563, reversed when taken back', async () => {
    const invoice = await createInvoice({ currency: 'EUR', fx_rate: 25 });
    const otherRate = await createCreditNote(invoice, { currency: 'EUR', fx_rate: 24.5, items: [{ title: 'Refund', qty: 1, rate: 10, taxes: [VAT21] }] });
    expect([invoice.total_amount_leg, otherRate.total_amount_leg]).toEqual([7450, 296.45]);
    // 12.10 EUR clears 296.45 of the credit note and round(7450 × 12.10 / 298) = 302.50 of the invoice
    const allocation = await json(await allocate(otherRate.id, { invoice_id: invoice.id, date: '2026-11-23' }));
    expect(allocation).toMatchObject({ amount: 12.1, currency: 'EUR', exchange_difference: { currency: 'CZK', credit_amount_leg: 296.45, target_amount_leg: 302.5, result: -6.05 } });
    expect(await figures(`/v1/sales/invoices/${invoice.id}`)).toEqual({ amount_paid: 12.1, amount_due: 285.9, payment_status: 'partially_paid' });
    const settlements = async () => (await json(await api('/v1/accounting/journal-entries?kind=fx_settlement'))).entities;
    const [entry] = await eventually(async () => ((await settlements()).length === 1 ? settlements() : null), 15_000);
    expect(entry).toMatchObject({ date_posting: '2026-11-23', reference: `sales_credit_allocation:${allocation.id}`, total: 6.05 });
    expect(entry.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['563', 6.05, 0],
      ['311', 0, 6.05],
    ]);
    // what the invoice still owes is worth its own rate on 311: 285.90 × 25
    const receivableOf = async () => {
      const page = await json(await api('/v1/accounting/transactions?take=1000'));
      let sum = new Decimal(0);
      const mine = new Set([invoice.no, otherRate.no, entry.no]);
      for (const t of page.entities) if (mine.has(t.no)) for (const row of t.rows) if (row.gl_account?.number === '311') sum = sum.plus(row.debit).minus(row.credit);
      return sum.toFixed(2);
    };
    expect(await eventually(async () => ((await receivableOf()) === '7147.50' ? '7147.50' : null), 15_000)).toBe('7147.50');
    // a manual reversal is refused: the set-off owns it
    await expectProblem(await api(`/v1/accounting/journal-entries/${entry.id}/reverse`, { method: 'POST', json: {} }), 409, 'journal_entry_is_automatic');
    await json(await api(`/v1/sales/credit-notes/${otherRate.id}/allocations/${allocation.id}`, { method: 'DELETE' }));
    const [reversed] = await eventually(async () => {
      const all = await settlements();
      return all.length === 2 ? all.filter((e: any) => e.reverses) : null;
    }, 15_000);
    expect(reversed).toMatchObject({ date_posting: '2026-11-23', reverses: { id: entry.id } });
    expect(reversed.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['563', 0, 6.05],
      ['311', 6.05, 0],
    ]);
    expect(await figures(`/v1/sales/invoices/${invoice.id}`)).toEqual({ amount_paid: 0, amount_due: 298, payment_status: 'unpaid' });
  });

  it('concurrent allocations never apply more than is due, and a retried request applies once', async () => {
    const invoice = await createInvoice();
    const cn = await createCreditNote(invoice);
    const answers = await Promise.all(Array.from({ length: 10 }, () => allocate(cn.id, { invoice_id: invoice.id, amount: 20 })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 422 || s === 409)).toBe(true);
    expect(await figures(`/v1/sales/credit-notes/${cn.id}`)).toEqual({ amount_paid: 120, amount_due: 1, payment_status: 'partially_paid' });
    expect(await figures(`/v1/sales/invoices/${invoice.id}`)).toEqual({ amount_paid: 120, amount_due: 178, payment_status: 'partially_paid' });

    const headers = { 'idempotency-key': `allocate-${cn.id}` };
    const once = await json(await allocate(cn.id, { invoice_id: invoice.id, amount: 1 }, { headers }));
    const again = await allocate(cn.id, { invoice_id: invoice.id, amount: 1 }, { headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(once);
    expect((await json(await api(`/v1/sales/credit-notes/${cn.id}/allocations`))).total).toBe(7);
    expect(await figures(`/v1/sales/credit-notes/${cn.id}`)).toEqual({ amount_paid: 121, amount_due: 0, payment_status: 'paid' });
  });

  it('another organisation sees none of it, and a read-only key applies nothing', async () => {
    const invoice = await createInvoice();
    const cn = await createCreditNote(invoice);
    const allocation = await json(await allocate(cn.id, { invoice_id: invoice.id, amount: 1 }));
    const other = await secondOrganisation(stack, 'Allocations elsewhere');
    await expectProblem(await allocate(cn.id, { invoice_id: invoice.id }, { key: other.key }), 404, 'credit_note_not_found');
    await expectProblem(await api(`/v1/sales/credit-notes/${cn.id}/allocations`, { key: other.key }), 404, 'credit_note_not_found');
    await expectProblem(await api(`/v1/sales/invoices/${invoice.id}/allocations`, { key: other.key }), 404, 'invoice_not_found');
    await expectProblem(await api(`/v1/sales/credit-notes/${cn.id}/allocations/${allocation.id}`, { method: 'DELETE', key: other.key }), 404, 'allocation_not_found');
    // its own credit note cannot reach our invoice
    const theirInvoice = await createInvoice({}, other.key);
    const theirs = await createCreditNote(theirInvoice, {}, other.key);
    await expectProblem(await allocate(theirs.id, { invoice_id: invoice.id }, { key: other.key }), 422, 'invoice_not_found');

    const readOnly = await json(await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['sales:read'] } }));
    await expectProblem(await allocate(cn.id, { invoice_id: invoice.id }, { key: readOnly.key }), 403);
    await expectProblem(await api(`/v1/sales/credit-notes/${cn.id}/allocations/${allocation.id}`, { method: 'DELETE', key: readOnly.key }), 403);
    expect((await json(await api(`/v1/sales/credit-notes/${cn.id}/allocations`, { key: readOnly.key }))).total).toBe(1);
    expect(await figures(`/v1/sales/invoices/${invoice.id}`)).toEqual({ amount_paid: 1, amount_due: 297, payment_status: 'partially_paid' });
  });
});
