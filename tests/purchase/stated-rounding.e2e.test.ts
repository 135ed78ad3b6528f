import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { apiOf, billBody, expectProblem, vendorCreditBody } from './fixtures.js';

/*
 * A vendor document's own rounding (BT-114) and prepaid amount (BT-113) typed by hand (issue 53,
 * decision 191): the total includes the rounding, the ledger posts it to 548 or 648, the prepaid
 * amount is kept as stated; what cannot be a rounding or a prepaid amount is 400 and stores nothing.
 */

let stack: Stack;
const api = apiOf(() => stack);

beforeAll(async () => {
  stack = await startStack({ services: ['purchase', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const ledgerRows = async (type: string, id: number) => {
  const entry = await eventually(async () => {
    const page = await (await api('/v1/accounting/transactions?take=50')).json();
    return page.entities?.find((t: any) => t.type === type && t.source?.id === id);
  }, 15_000);
  return entry.rows.map((r: any) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit.toFixed(2)}`)).sort();
};

describe("a vendor document's rounding and prepaid amount", () => {
  it('a bill of 298.00 rounded by 0.40 owes 298.40: the loss on 548; the prepaid amount is kept and does not lower what is due', async () => {
    const res = await api('/v1/purchase/bills', { method: 'POST', json: billBody({ vendor_doc_no: 'R-1', rounding_amount: 0.4, prepaid_amount: 100 }) });
    expect(res.status, await res.clone().text()).toBe(200);
    const bill = await res.json();
    expect(bill).toMatchObject({ subtotal_amount: 250, total_amount: 298.4, rounding_amount: 0.4, prepaid_amount: 100, amount_paid: 0, amount_due: 298.4 });
    expect(await ledgerRows('purchase_bill', bill.id)).toEqual(['Cr 321 298.40', 'Dr 343 48.00', 'Dr 504 250.00', 'Dr 548 0.40']);
    // a copy does not take over what its source's document stated beyond its lines
    const copy = await (await api('/v1/purchase/bills', { method: 'POST', json: { type: { id: 1 }, copy_from_id: bill.id, vendor_doc_no: 'R-1-copy' } })).json();
    expect(copy).toMatchObject({ total_amount: 298, rounding_amount: 0, prepaid_amount: 0 });
  });

  it('a vendor credit rounded down by 0.10 is owed 0.10 less: the loss on 548', async () => {
    const res = await api('/v1/purchase/vendor-credits', { method: 'POST', json: vendorCreditBody({ vendor_doc_no: 'RC-1', rounding_amount: -0.1 }) });
    expect(res.status, await res.clone().text()).toBe(200);
    const credit = await res.json();
    expect(credit).toMatchObject({ total_amount: 1209.9, rounding_amount: -0.1 });
    expect(await ledgerRows('purchase_vendor_credit', credit.id)).toEqual(['Cr 343 210.00', 'Cr 504 1000.00', 'Dr 321 1209.90', 'Dr 548 0.10'].sort());
  });

  it('refuses what cannot be a rounding or a prepaid amount with 400 naming it, and stores nothing', async () => {
    const count = async () => (await (await api('/v1/purchase/bills?take=1')).json()).total;
    const before = await count();
    for (const [over, path] of [
      [{ rounding_amount: 5.01 }, 'rounding_amount'],
      [{ rounding_amount: -6 }, 'rounding_amount'],
      [{ rounding_amount: 0.001 }, 'rounding_amount'],
      [{ rounding_amount: '0.5' }, 'rounding_amount'],
      [{ rounding_amount: 1e308 }, 'rounding_amount'],
      [{ prepaid_amount: -1 }, 'prepaid_amount'],
      [{ prepaid_amount: 1e14 }, 'prepaid_amount'],
      [{ prepaid_amount: { amount: 1 } }, 'prepaid_amount'],
    ] as const) {
      const problem = await expectProblem(await api('/v1/purchase/bills', { method: 'POST', json: billBody({ vendor_doc_no: `BAD-${path}`, ...over }) }), 400);
      expect(problem.errors?.map((e: { path: string }) => e.path), JSON.stringify(over)).toContain(path);
    }
    expect(await count()).toBe(before);
  });
});
