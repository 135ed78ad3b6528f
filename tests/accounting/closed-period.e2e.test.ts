import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { einvoiceDir } from '../support/einvoice.js';
import { secondOrganisation } from '../finance/support.js';
import { billBody, vendorCreditBody } from '../purchase/fixtures.js';
import { camt053File } from '../../apps/finance/src/domain/statements/statement-files.fixtures.js';

/*
 * Closing the books (decision 156): October's VAT return is filed, the accountant sets the
 * organisation's lock date to 31 October, and from then on nothing posts, moves or is taken back
 * on or before that day — a document, a bank transaction, a later match or its taking-back, a
 * payout or its replacement, a credit note's set-off, a statement — each refused with 409
 * `period_locked` naming the field, and nothing changes: no number is used, no ledger row
 * appears in October. November stays open; reopening October lets the same request through.
 */

let stack: Stack;
const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
const CUSTOMER = { id: 9101, business_name: 'Odběratel s.r.o.', vat_no: 'CZ11223344', address: { country: 'CZ' } };
const ACCOUNT = 'CZ6508000000192000145399';
const LOCK = '2026-10-31';

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const send = (method: string, path: string, json?: unknown, key?: string) => stack.api(path, { method, json, key });
const invoiceBody = (dateIssued: string, over: Record<string, unknown> = {}) => ({
  customer: CUSTOMER,
  currency: 'CZK',
  date_issued: dateIssued,
  date_due: '2026-12-31',
  items: [{ title: 'Služba', qty: 1, rate: 1000, taxes: [VAT21] }],
  ...over,
});
const invoice = async (dateIssued: string, over: Record<string, unknown> = {}) => ok(await send('POST', '/v1/sales/invoices', invoiceBody(dateIssued, over)));
/** The lock date each service's replica of the profile holds for the first organisation. */
const replicatedLockDates = async () =>
  Promise.all(
    (['sales', 'purchase', 'finance'] as const).map(async (s) => {
      const [row] = await sqlRows<{ lock_date: string | null }>(stack.services[s]!.deps.orm.em.fork(), "select profile->>'lock_date' as lock_date from kit_organisations where org_id = 1");
      return row?.lock_date ?? null;
    }),
  );
async function setLockDate(date: string | null) {
  const org = await ok(await send('PUT', '/v1/settings/organisation', { lock_date: date }));
  expect(org.lock_date).toBe(date);
  await eventually(async () => (await replicatedLockDates()).every((d) => d === date), 10_000);
}
const transaction = async (id: number) => (await ok(await send('GET', '/v1/finance/bank/transactions?take=1000'))).entities.find((t: any) => t.id === id);
/** Every ledger entry posted on or before `day`, as `type source-id version kind` (the list's own filter). */
async function ledgerThrough(day: string): Promise<string[]> {
  const page = await ok(await send('GET', `/v1/accounting/transactions?date_posting=${encodeURIComponent(`[;${day}]`)}&take=1000`));
  return page.entities.map((t: any) => `${t.type} ${t.source?.id} v${t.source?.version}`).sort();
}
const countOf = async (path: string) => (await ok(await send('GET', `${path}${path.includes('?') ? '&' : '?'}take=0`))).total as number;
async function expectLocked(res: Awaited<ReturnType<Stack['api']>>, paths: string[]) {
  const problem = await expectProblem(res, 409, 'period_locked');
  expect(problem.detail).toContain(`closed through ${LOCK}`);
  expect(problem.errors?.map((e) => e.path)).toEqual(paths);
  expect(problem.errors?.every((e) => e.code === 'period_locked')).toBe(true);
  return problem;
}

describe('closing the books through a day (decision 156)', () => {
  it('refuses every write that would post in the closed period, changes nothing, and lets it through once reopened', async () => {
    // October, while it is open: an invoice, a credit note set off against it, a payment, a
    // payment waiting in suspense, a payout and a vendor bill
    const october = await invoice('2026-10-10');
    const november = await invoice('2026-11-05');
    const cn = await ok(
      await send('POST', '/v1/sales/credit-notes', {
        customer: CUSTOMER,
        currency: 'CZK',
        date_issued: '2026-10-20',
        credited_doc_id: october.id,
        items: [{ title: 'Sleva', qty: 1, rate: 100, taxes: [VAT21] }],
      }),
    );
    const allocation = await ok(await send('POST', `/v1/sales/credit-notes/${cn.id}/allocations`, { invoice_id: october.id, amount: 60.5, date: '2026-10-25' }));
    const paid = await ok(
      await send('POST', '/v1/finance/bank/transactions', {
        amount: 100,
        currency: 'CZK',
        date_transaction: '2026-10-16',
        account_number: ACCOUNT,
        paid_record: { type: 'sales_invoice', id: october.id },
      }),
    );
    expect(paid.match_status).toBe('matched');
    const waiting = await ok(
      await send('POST', '/v1/finance/bank/transactions', { amount: 500, currency: 'CZK', date_transaction: '2026-10-15', account_number: ACCOUNT, paid_record: { type: 'sales_invoice', id: 987654 } }),
    );
    expect(waiting.match_status).toBe('unmatched');
    const payout = await ok(
      await send('POST', '/v1/finance/payouts', { currency: 'CZK', date_issued: '2026-10-18', lines: [{ amount: -25, description: 'Fee', gl_account: { number: '568' } }] }),
    );
    await ok(await send('POST', '/v1/purchase/bills', billBody({ date_issued: '2026-10-12', date_due: '2026-10-26', vendor_doc_no: 'LOCK-OCT' })));

    // the ledger has posted October before the books close
    const octoberLedger = await eventually(async () => {
      const entries = await ledgerThrough(LOCK);
      return entries.length === 6 ? entries : null;
    }, 10_000);
    const invoices = await countOf('/v1/sales/invoices');
    const bills = await countOf('/v1/purchase/bills');
    const transactions = await countOf('/v1/finance/bank/transactions');

    // only an administrator moves the lock date, and never past today
    const settingsKey = (await ok(await send('POST', '/v1/settings/security/api-keys', { name: 'website updater', scopes: ['settings:read', 'settings:write'] }))).key;
    const weaker = await expectProblem(await send('PUT', '/v1/settings/organisation', { lock_date: LOCK }, settingsKey), 403, 'insufficient_scope');
    expect(weaker.errors?.map((e) => e.path)).toEqual(['lock_date']);
    // a weaker key still updates the rest of the profile, and sending the lock date unchanged is no move
    expect((await ok(await send('PUT', '/v1/settings/organisation', { website: 'https://odberatel.example', lock_date: null }, settingsKey))).lock_date).toBeNull();
    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const future = await expectProblem(await send('PUT', '/v1/settings/organisation', { lock_date: tomorrow }), 400, 'validation_error');
    expect(future.errors).toEqual([expect.objectContaining({ path: 'lock_date', code: 'lock_date_in_future' })]);
    await expectProblem(await send('PUT', '/v1/settings/organisation', { lock_date: '2026-02-30' }), 400, 'validation_error');
    expect((await ok(await send('GET', '/v1/settings/organisation'))).lock_date).toBeNull();

    await setLockDate(LOCK);

    // documents: on the lock date itself, and by a taxable date inside the period
    await expectLocked(await send('POST', '/v1/sales/invoices', invoiceBody(LOCK)), ['date_issued']);
    await expectLocked(await send('POST', '/v1/sales/invoices', invoiceBody('2026-11-03', { date_taxable: '2026-10-30' })), ['date_taxable']);
    await expectLocked(
      await send('POST', '/v1/sales/credit-notes', { customer: CUSTOMER, currency: 'CZK', date_issued: '2026-10-31', credited_doc_id: october.id, items: [{ title: 'x', qty: 1, rate: 1, taxes: [VAT21] }] }),
      ['date_issued'],
    );
    await expectLocked(await send('POST', '/v1/purchase/bills', billBody({ date_issued: '2026-10-30', date_due: '2026-11-13', vendor_doc_no: 'LOCK-LATE' })), ['date_issued']);
    await expectLocked(await send('POST', '/v1/purchase/vendor-credits', vendorCreditBody({ date_issued: '2026-11-02', date_taxable: '2026-10-02', vendor_doc_no: 'LOCK-CR' })), ['date_taxable']);
    // an e-invoice received late (the Peppol example, issued in 2017) is a bill of its own period
    const peppol = readFileSync(path.join(einvoiceDir(), 'examples', 'peppol-base-example.xml'), 'utf8').replace('<cbc:DocumentCurrencyCode>EUR', '<cbc:DocumentCurrencyCode>CZK');
    await expectLocked(await stack.api('/v1/purchase/bills/import', { method: 'POST', body: peppol, headers: { 'content-type': 'application/xml' } }), ['date_issued']);
    // money: a transaction booked in October, a later match or unmatch re-posting October, a payout
    await expectLocked(await send('POST', '/v1/finance/bank/transactions', { amount: 10, currency: 'CZK', date_transaction: '2026-10-30', account_number: ACCOUNT }), ['date_transaction']);
    await expectLocked(await send('POST', `/v1/finance/bank/transactions/${waiting.id}/match`, { document: { type: 'sales_invoice', id: november.id } }), ['date_transaction']);
    await expectLocked(await send('POST', `/v1/finance/bank/transactions/${paid.id}/unmatch`), ['date_transaction']);
    await expectLocked(await send('POST', '/v1/finance/payouts', { currency: 'CZK', lines: [{ amount: -5, date_transaction: '2026-10-29', gl_account: { number: '568' } }] }), ['lines[0].date_transaction']);
    // replacing October's payout would reverse it in October, whatever the new version's date
    await expectLocked(await send('PUT', `/v1/finance/payouts/${payout.id}`, { currency: 'CZK', date_issued: '2026-11-18', lines: [{ amount: -30, gl_account: { number: '568' } }] }), ['id']);
    // set-offs: one dated in October, and taking back October's
    await expectLocked(await send('POST', `/v1/sales/credit-notes/${cn.id}/allocations`, { invoice_id: october.id, amount: 1, date: '2026-10-28' }), ['date']);
    await expectLocked(await send('DELETE', `/v1/sales/credit-notes/${cn.id}/allocations/${allocation.id}`), ['allocation_id']);
    // a statement with an entry booked in October is refused whole
    const file = camt053File([
      { account: ACCOUNT, number: '31', opening: '0', closing: '300.00', from: '2026-10-31', to: '2026-11-01', movements: [{ amount: '100.00', date: '2026-10-31' }, { amount: '200.00', date: '2026-11-01' }] },
    ]);
    await expectLocked(await stack.api('/v1/finance/bank/statements', { method: 'POST', body: file, headers: { 'content-type': 'application/xml' } }), ['statement 31 entry 1']);

    // nothing changed: no document, transaction or statement stored, no number used, no match moved
    expect(await countOf('/v1/sales/invoices')).toBe(invoices);
    expect(await countOf('/v1/purchase/bills')).toBe(bills);
    expect(await countOf('/v1/finance/bank/transactions')).toBe(transactions);
    expect(await countOf('/v1/finance/bank/statements')).toBe(0);
    expect((await transaction(waiting.id)).match_status).toBe('unmatched');
    expect((await transaction(paid.id)).match_status).toBe('matched');
    expect((await ok(await send('GET', `/v1/finance/payouts/${payout.id}`))).total_amount).toBe(-25);
    // October's payout reads final, as its replacement was refused; a November one does not
    const novemberPayout = await ok(await send('POST', '/v1/finance/payouts', { currency: 'CZK', date_issued: '2026-11-03', lines: [{ amount: -7, gl_account: { number: '568' } }] }));
    expect(novemberPayout.is_locked).toBe(false);
    expect((await ok(await send('GET', `/v1/finance/payouts/${payout.id}`))).is_locked).toBe(true);
    const lockedById = async () => Object.fromEntries((await ok(await send('GET', '/v1/finance/payouts?take=100'))).entities.map((p: any) => [p.id, p.is_locked]));
    expect(await lockedById()).toMatchObject({ [payout.id]: true, [novemberPayout.id]: false });
    expect((await ok(await send('GET', `/v1/sales/credit-notes/${cn.id}/allocations`))).entities.map((a: any) => a.removed_at)).toEqual([null]);
    expect((await ok(await send('GET', `/v1/sales/invoices/${october.id}`))).amount_due).toBe(1049.5); // 1210 − 60.50 − 100

    // November is open: a document issued in October but taxable in November posts in November,
    // and the next invoice takes the number after November's (none was used by the refusals)
    const late = await invoice('2026-10-30', { date_taxable: '2026-11-01' });
    expect(Number(late.no.replace(/\D/g, ''))).toBe(Number(november.no.replace(/\D/g, '')) + 1);
    await ok(await send('POST', '/v1/finance/bank/transactions', { amount: 10, currency: 'CZK', date_transaction: '2026-10-30', date_accounting: '2026-11-02', account_number: ACCOUNT }));
    const novemberSetOff = await ok(await send('POST', `/v1/sales/credit-notes/${cn.id}/allocations`, { invoice_id: october.id, amount: 1, date: '2026-11-02' }));
    expect(novemberSetOff.amount).toBe(1);

    // another organisation's books are its own
    const other = await secondOrganisation(stack, 'Open books s.r.o.');
    expect((await send('POST', '/v1/sales/invoices', invoiceBody('2026-10-15'), other.key)).status).toBe(200);

    // the ledger's October is as it was when the books closed
    await eventually(async () => (await countOf('/v1/accounting/transactions?date_posting=%5B2026-11-01%3B%5D')) >= 3, 10_000);
    expect(await ledgerThrough(LOCK)).toEqual(octoberLedger);

    // reopened, October takes the same request, and its payout can be replaced again
    await setLockDate(null);
    expect((await ok(await send('GET', `/v1/finance/payouts/${payout.id}`))).is_locked).toBe(false);
    await ok(await send('POST', `/v1/finance/bank/transactions/${waiting.id}/match`, { document: { type: 'sales_invoice', id: november.id } }));
    expect((await invoice(LOCK)).date_issued).toBe(LOCK);
  }, 60_000);
});
