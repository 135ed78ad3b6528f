import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectProblem, readEvents } from '../support/assertions.js';
import { GLOBEX, VAT21, apiOf, billBody, vendorCreditBody } from './fixtures.js';
import { secondOrganisation } from '../finance/support.js';

/*
 * A vendor credit applied to an open bill of its vendor (decision 148): the purchase side of the
 * set-off the sales side has, through the same kit rule.
 */

let stack: Stack;
const api = apiOf(() => stack);
beforeAll(async () => {
  stack = await startStack({ services: ['purchase'] });
}, 60_000);
afterAll(async () => stack?.close());

const json = async (res: Awaited<ReturnType<typeof api>>) => {
  expect(res.status, res.status === 200 ? '' : await res.clone().text()).toBe(200);
  return res.json();
};
const bill = async (over: Record<string, unknown> = {}, key?: string) => json(await api('/v1/purchase/bills', { method: 'POST', json: billBody(over), key }));
const vendorCredit = async (over: Record<string, unknown> = {}, key?: string) =>
  json(await api('/v1/purchase/vendor-credits', { method: 'POST', json: vendorCreditBody({ items: [{ description: 'Returned paper', qty: 1, rate: 100, taxes: [VAT21] }], ...over }), key }));
const allocate = (id: number, body: unknown, key?: string) => api(`/v1/purchase/vendor-credits/${id}/allocations`, { method: 'POST', json: body, key });
async function figures(kind: 'bills' | 'vendor-credits', id: number) {
  const d = (await json(await api(`/v1/purchase/${kind}?take=1000`))).entities.find((x: any) => x.id === id);
  return { amount_paid: d.amount_paid, amount_due: d.amount_due, payment_status: d.payment_status };
}

describe('vendor credit allocations (decision 148)', () => {
  it('applies a vendor credit to a bill of its vendor, and takes it back', async () => {
    const b = await bill({ vendor_doc_no: 'ACME-ALLOC-1' });
    const vc = await vendorCredit({ credited_doc_id: b.id, vendor_doc_no: 'ACME-CR-ALLOC-1' });
    expect([b.total_amount, vc.total_amount]).toEqual([298, 121]);

    const untouched = await bill({ vendor_doc_no: 'ACME-ALLOC-UNTOUCHED' });
    await new Promise((r) => setTimeout(r, 20));
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const allocation = await json(await allocate(vc.id, { bill_id: b.id, date: '2026-03-21' }));
    expect(allocation).toEqual({
      id: expect.any(Number),
      vendor_credit: { id: vc.id, no: vc.no },
      bill: { id: b.id, no: b.no },
      amount: 121,
      currency: 'CZK',
      date: '2026-03-21',
      created_at: expect.any(String),
      removed_at: null,
      exchange_difference: null,
    });
    expect(await figures('bills', b.id)).toEqual({ amount_paid: 121, amount_due: 177, payment_status: 'partially_paid' });
    expect(await figures('vendor-credits', vc.id)).toEqual({ amount_paid: 121, amount_due: 0, payment_status: 'paid' });
    // a sync since before the set-off reads both documents again, and not one nothing happened to
    const changedBills = (await json(await api(`/v1/purchase/bills?updated_since=${encodeURIComponent(since)}`))).entities.map((d: any) => d.id);
    expect(changedBills).toContain(b.id);
    expect(changedBills).not.toContain(untouched.id);
    expect((await json(await api(`/v1/purchase/vendor-credits?updated_since=${encodeURIComponent(since)}`))).entities.map((d: any) => d.id)).toEqual([vc.id]);
    const [created] = await eventually(async () => {
      const found = (await readEvents(stack, 'purchase', 'PURCHASE', 'purchase.credit_allocation.recorded')).filter((e) => e.subject === String(allocation.id));
      return found.length ? found : null;
    });
    expect(created!.data).toEqual(allocation);
    expect((await json(await api(`/v1/purchase/bills/${b.id}/allocations`))).entities).toEqual([allocation]);
    // what must still be paid by a day: the bill's rest, due 2026-03-29
    const due = (await json(await api('/v1/purchase/bills?payment_status=unpaid&payment_status=partially_paid&date_due=[;2026-03-29]&take=1000'))).entities;
    expect(due.find((d: any) => d.id === b.id)).toMatchObject({ amount_due: 177, date_due: '2026-03-29' });
    expect((await json(await api('/v1/purchase/bills?date_due=[;2026-03-28]'))).total).toBe(0);
    await expectProblem(await api(`/v1/purchase/bills/${vc.id}/allocations`), 404, 'bill_not_found');

    const removed = await json(await api(`/v1/purchase/vendor-credits/${vc.id}/allocations/${allocation.id}`, { method: 'DELETE' }));
    expect(removed.removed_at).toEqual(expect.any(String));
    expect(await figures('bills', b.id)).toEqual({ amount_paid: 0, amount_due: 298, payment_status: 'unpaid' });
    expect(await figures('vendor-credits', vc.id)).toEqual({ amount_paid: 0, amount_due: 121, payment_status: 'unpaid' });
    expect((await json(await api(`/v1/purchase/vendor-credits/${vc.id}/allocations`))).entities).toEqual([removed]);
  });

  it('refuses another vendor, too much, another organisation and a read-only key, changing nothing', async () => {
    const b = await bill({ vendor_doc_no: 'ACME-ALLOC-2' });
    const globex = await bill({ vendor: GLOBEX, vendor_doc_no: 'GLX-1' });
    const vc = await vendorCredit({ vendor_doc_no: 'ACME-CR-ALLOC-2' });
    await expectProblem(await allocate(vc.id, { bill_id: globex.id }), 422, 'vendor_mismatch');
    await expectProblem(await allocate(vc.id, { bill_id: b.id, amount: 121.01 }), 422, 'allocation_exceeds_credit');
    await expectProblem(await allocate(vc.id, { bill_id: b.id, date: '2026-03-01' }), 422, 'allocation_before_issue');
    await expectProblem(await allocate(vc.id, { invoice_id: b.id }), 400, 'validation_error');
    await expectProblem(await allocate(b.id, { bill_id: b.id }), 404, 'vendor_credit_not_found');
    const other = await secondOrganisation(stack, 'Purchase allocations elsewhere');
    await expectProblem(await allocate(vc.id, { bill_id: b.id }, other.key), 404, 'vendor_credit_not_found');
    const theirs = await vendorCredit({ vendor_doc_no: 'ACME-CR-THEIRS' }, other.key);
    await expectProblem(await allocate(theirs.id, { bill_id: b.id }, other.key), 422, 'bill_not_found');
    const readOnly = await json(await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['purchase:read'] } }));
    await expectProblem(await allocate(vc.id, { bill_id: b.id }, readOnly.key), 403);
    expect(await figures('bills', b.id)).toEqual({ amount_paid: 0, amount_due: 298, payment_status: 'unpaid' });
    expect(await figures('vendor-credits', vc.id)).toEqual({ amount_paid: 0, amount_due: 121, payment_status: 'unpaid' });
  });
});
