import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { sqlRows } from '@ledgerline/service-kit';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { VAT21, billBody, vendorCreditBody } from '../purchase/fixtures.js';

/*
 * POST /v1/accounting/fx-revaluations as an operator and an attacker see it: nothing open is an
 * answer with no entry; a currency without a rate is 422 naming it and posts nothing; a day in
 * a closed period is 409; racing requests for one day make one revaluation; bad bodies are 400,
 * weaker keys 403; another organisation's items are never read.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting', 'settings'] });
}, 60_000);
afterAll(async () => stack?.close());

const CUSTOMER = { id: 7301, business_name: 'Client Ltd', address: { country: 'GB' } };
const revalue = (json: unknown, key?: string) => stack.api('/v1/accounting/fx-revaluations', { method: 'POST', json, key });
const journalCount = async (key?: string) => (await ok(await stack.api('/v1/accounting/journal-entries?take=0', { key }))).total as number;
const ledgerCount = async (key?: string) => (await ok(await stack.api('/v1/accounting/transactions?take=0', { key }))).total as number;

describe('revaluing foreign-currency items', () => {
  it('with nothing open: an answer without an entry, stored for the day', async () => {
    const answer = await ok(await revalue({ date: '2025-12-31' }));
    expect(answer).toMatchObject({ date: '2025-12-31', currency: 'CZK', gain: 0, loss: 0, lines: [], journal_entry: null, reversed_by: null, created_by: expect.stringMatching(/^key:/) });
    expect(await journalCount()).toBe(0);
    expect(await ok(await revalue({ date: '2025-12-31' }))).toEqual(answer);
  });

  it('an open GBP invoice without a GBP rate on the day: 422 naming GBP and the day, nothing posted or stored', async () => {
    const invoice = await ok(
      await stack.api('/v1/sales/invoices', {
        method: 'POST',
        json: { customer: CUSTOMER, currency: 'GBP', fx_rate: 29.5, date_issued: '2026-03-02', items: [{ title: 'Report', qty: 1, rate: 100, taxes: [] }] },
      }),
    );
    expect(invoice).toMatchObject({ fx_rate_source: 'stated', total_amount_leg: 2950 });
    await eventually(async () => ((await ledgerCount()) === 1 ? true : null), 15_000);
    const problem = await expectProblem(await revalue({ date: '2026-03-31' }), 422, 'fx_rate_required');
    expect(problem.detail).toContain('No GBP rate to CZK in force on 2026-03-31');
    expect(await journalCount()).toBe(0);
    // with a rate set by hand the same request goes through: 100 GBP at 29.25 is 25.00 less
    await ok(await stack.api('/v1/settings/exchange-rates/GBP/2026-03-31', { method: 'PUT', json: { rate: 29.25 } }));
    const answer = await ok(await revalue({ date: '2026-03-31' }));
    expect(answer).toMatchObject({ gain: 0, loss: 25 });
    expect(answer.lines).toEqual([
      expect.objectContaining({ kind: 'receivable', document: { type: 'sales_invoice', id: invoice.id, no: invoice.no }, booked: 2950, revalued: 2925, result: -25, rate_source: 'manual' }),
    ]);
    expect(await journalCount()).toBe(2);
  });

  it('racing requests for one day make one revaluation', async () => {
    await ok(await stack.api('/v1/settings/exchange-rates/GBP/2026-04-30', { method: 'PUT', json: { rate: 29.75 } }));
    const before = await journalCount();
    const answers = await Promise.all(Array.from({ length: 5 }, () => revalue({ date: '2026-04-30' })));
    const bodies = await Promise.all(answers.map((r) => ok(r)));
    expect(new Set(bodies.map((b) => b.journal_entry.id)).size).toBe(1);
    expect(bodies[0]).toMatchObject({ gain: 25, loss: 0 });
    expect(await journalCount()).toBe(before + 2);
  });

  it('a day within the lock date is 409 period_locked and posts nothing', async () => {
    const org = await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: '2026-05-31' } }));
    // accounting learns the lock date from settings' event: the test waits for it, as a retry would
    const em = stack.services.accounting!.deps.orm.em.fork();
    await eventually(async () => (await sqlRows<{ lock_date: string | null }>(em, "select profile->>'lock_date' as lock_date from kit_organisations where org_id = ?", [org.id]))[0]?.lock_date === '2026-05-31', 10_000);
    const before = await journalCount();
    await expectProblem(await revalue({ date: '2026-05-31' }), 409, 'period_locked');
    expect(await journalCount()).toBe(before);
    await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: null } }));
  });

  it('a day that has not come is 422 date_in_future: nothing is posted or stored, and earlier days stay open', async () => {
    const before = await journalCount();
    const problem = await expectProblem(await revalue({ date: '2099-12-31' }), 422, 'date_in_future');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'date', code: 'date_in_future' })]);
    expect(await journalCount()).toBe(before);
  });

  it('bad bodies are 400 and weaker keys 403; nothing is posted', async () => {
    const before = await journalCount();
    for (const body of [{}, { date: '2026-02-30' }, { date: '2026-06-30\u0000' }, { date: '\ud800' }, { date: 20260630 }, { date: '0001-01-01' }, { date: '2026-06-30', extra: { a: { b: { c: [[[[1]]]] } } } }, []]) {
      await expectProblem(await revalue(body), 400);
    }
    const huge = await stack.api('/v1/accounting/fx-revaluations', { method: 'POST', body: JSON.stringify({ date: '2026-06-30', pad: 'x'.repeat(3_000_000) }), headers: { 'content-type': 'application/json' } });
    expect([400, 413]).toContain(huge.status);
    const reader = (await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['accounting:read'] } }))).key;
    await expectProblem(await revalue({ date: '2026-06-30' }, reader), 403, 'insufficient_scope');
    expect(await journalCount()).toBe(before);
  });

  it("another organisation's revaluation reads only its own items", async () => {
    const other = await secondOrganisation(stack, 'Other s.r.o.');
    const answer = await ok(await revalue({ date: '2026-06-30' }, other.key));
    expect(answer).toMatchObject({ lines: [], journal_entry: null });
    expect(await journalCount(other.key)).toBe(0);
  });
});

describe('a vendor credit set off against a bill at another rate', () => {
  it('settles each at its own legal value: the payable cleared beyond the credit is a gain on 663', async () => {
    const { key } = await secondOrganisation(stack, 'Importer s.r.o.');
    const bill = await ok(await stack.api('/v1/purchase/bills', { method: 'POST', key, json: billBody({ currency: 'EUR', tax_fx_rate: 25, date_issued: '2026-03-01', vendor_doc_no: 'L-1' }) }));
    const credit = await ok(
      await stack.api('/v1/purchase/vendor-credits', {
        method: 'POST',
        key,
        json: vendorCreditBody({ currency: 'EUR', tax_fx_rate: 24.5, date_issued: '2026-03-02', vendor_doc_no: 'L-CR-1', credited_doc_id: bill.id, items: [{ description: 'Return', qty: 1, rate: 10, taxes: [VAT21] }] }),
      }),
    );
    expect([bill.total_amount, credit.total_amount]).toEqual([298, 12.1]);
    const allocation = await ok(await stack.api(`/v1/purchase/vendor-credits/${credit.id}/allocations`, { method: 'POST', key, json: { bill_id: bill.id, date: '2026-03-03' } }));
    // 12.10 EUR: 296.45 of the credit, round(7450 × 12.10 / 298) = 302.50 of the bill
    expect(allocation.exchange_difference).toEqual({ currency: 'CZK', credit_amount_leg: 296.45, target_amount_leg: 302.5, result: 6.05 });
    const entries = async () => (await ok(await stack.api('/v1/accounting/journal-entries?kind=fx_settlement', { key }))).entities;
    const [entry] = await eventually(async () => ((await entries()).length === 1 ? entries() : null), 15_000);
    expect(entry).toMatchObject({ date_posting: '2026-03-03', reference: `purchase_credit_allocation:${allocation.id}` });
    expect(entry.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['321', 6.05, 0],
      ['663', 0, 6.05],
    ]);
  });
});
