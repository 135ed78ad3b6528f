import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Decimal from 'decimal.js';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually } from '../support/stack.js';
import { accountingOnly, bankTransaction, bill, creditNote, invoice, payout, vendorCredit, SUBJECTS, type DocSpec } from './support.js';

/*
 * Property: whatever mix of documents (currencies, fx rates, tax rates, deduction ratios,
 * payments) and manual journal entries reaches the ledger, every accounting transaction balances
 * exactly, the trial balance of each account equals what the documents' stored legal figures and
 * the entries' lines say it must be, the balance sheet balances on any day, its result is the
 * profit and loss account's profit, and an account's ledger closes at its trial-balance figure;
 * closing the years then moves every result to 431 and changes no profit and loss account.
 */

const file = accountingOnly();

const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
const r2 = (v: Decimal.Value) => new D(v).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

const cents = fc.integer({ min: 1, max: 5_000_000 }).map((c) => new D(c).div(100).toNumber());
const line = fc.record({ base: cents, rate: fc.constantFrom(21, 12, 0) });
const money = fc.record({ currency: fc.constantFrom('CZK', 'CZK', 'EUR', 'USD'), fx: fc.integer({ min: 18_000, max: 30_000 }).map((m) => m / 1000) });
const date = fc.integer({ min: 0, max: 729 }).map((d) => new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString().slice(0, 10));

const docArb = fc.oneof(
  fc.record({ kind: fc.constantFrom('invoice' as const, 'credit_note' as const), money, date, lines: fc.array(line, { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constantFrom('bill' as const, 'vendor_credit' as const), money, date, ratio: fc.constantFrom(1, 1, 0.5, 0.33), lines: fc.array(line, { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('bank' as const), date, amount: fc.integer({ min: -2_000_000, max: 2_000_000 }).filter((c) => c !== 0).map((c) => c / 100), paid: fc.constantFrom('sales_invoice', 'purchase_bill', 'sales_credit_note', null), gl: fc.constantFrom('568', '663', null) }),
  fc.record({ kind: fc.constant('payout' as const), date, lines: fc.array(fc.record({ amount: fc.integer({ min: -50_000, max: 500_000 }).filter((c) => c !== 0).map((c) => c / 100), paid: fc.boolean() }), { minLength: 1, maxLength: 5 }) }),
  // a journal entry: debits to some accounts, one credit that balances them
  fc.record({
    kind: fc.constant('journal' as const),
    date,
    debits: fc.array(fc.record({ account: fc.constantFrom('022', '221', '381', '518', '551', '701'), amount: cents }), { minLength: 1, maxLength: 4 }),
    credit: fc.constantFrom('082', '321', '389', '411', '604', '701'),
  }),
);
type GenDoc = typeof docArb extends fc.Arbitrary<infer T> ? T : never;

const expected = new Map<string, Decimal>();
const book = (account: string, amount: Decimal) => expected.set(account, (expected.get(account) ?? new D(0)).plus(amount));
let nextId = 1;
let posted = 0;
let grandTotal = new D(0);

function legTaxes(doc: { taxes: Array<{ tax_base_leg: number; tax_amount_leg: number }> }) {
  const net = doc.taxes.reduce((s, t) => s.plus(t.tax_base_leg), new D(0));
  const tax = doc.taxes.reduce((s, t) => s.plus(t.tax_amount_leg), new D(0));
  return { net, tax, total: net.plus(tax) };
}

async function post(g: GenDoc): Promise<void> {
  const id = nextId++;
  posted++;
  if (g.kind === 'invoice' || g.kind === 'credit_note') {
    const spec: DocSpec = { id, date: g.date, currency: g.money.currency, fx_rate: g.money.currency === 'CZK' ? 1 : g.money.fx, lines: g.lines };
    const doc = g.kind === 'invoice' ? invoice(spec) : creditNote(spec);
    const { net, tax, total } = legTaxes(doc);
    const sign = g.kind === 'invoice' ? 1 : -1;
    book('311', total.times(sign));
    book('604', net.times(-sign));
    book('343', tax.times(-sign));
    grandTotal = grandTotal.plus(total);
    await file.bus.publish(g.kind === 'invoice' ? SUBJECTS.salesInvoicePosted : SUBJECTS.salesCreditNotePosted, doc);
  } else if (g.kind === 'bill' || g.kind === 'vendor_credit') {
    const spec: DocSpec = { id, date: g.date, currency: g.money.currency, fx_rate: g.money.currency === 'CZK' ? 1 : g.money.fx, lines: g.lines.map((l) => ({ ...l, tax_deduction_ratio: g.ratio })) };
    const doc = g.kind === 'bill' ? bill(spec) : vendorCredit(spec);
    const { net, tax, total } = legTaxes(doc);
    const deductible = doc.taxes.reduce((s, t) => s.plus(r2(new D(t.tax_amount_leg).times(g.ratio))), new D(0));
    const sign = g.kind === 'bill' ? 1 : -1;
    book('504', net.plus(tax.minus(deductible)).times(sign));
    book('343', deductible.times(sign));
    book('321', total.times(-sign));
    grandTotal = grandTotal.plus(total);
    await file.bus.publish(g.kind === 'bill' ? SUBJECTS.purchaseBillPosted : SUBJECTS.purchaseVendorCreditPosted, doc);
  } else if (g.kind === 'bank') {
    const paid = g.paid ? { type: g.paid as 'sales_invoice', id: 1 } : undefined;
    const counter = g.paid ? (g.paid.startsWith('sales') ? '311' : '321') : (g.gl ?? '395');
    book('221', new D(g.amount));
    book(counter, new D(g.amount).neg());
    grandTotal = grandTotal.plus(new D(g.amount).abs());
    await file.bus.publish(SUBJECTS.financeBankTransactionRecorded, bankTransaction({ id, amount: g.amount, date: g.date, paid, gl_account: g.gl ?? undefined }));
  } else if (g.kind === 'journal') {
    const total = g.debits.reduce((s, l) => s.plus(l.amount), new D(0));
    for (const l of g.debits) book(l.account, new D(l.amount));
    book(g.credit, total.neg());
    grandTotal = grandTotal.plus(total);
    const lines = [...g.debits.map((l) => ({ account_number: l.account, debit: l.amount })), { account_number: g.credit, credit: total.toNumber() }];
    const res = await file.stack.api('/v1/accounting/journal-entries', { method: 'POST', json: { date_posting: g.date, description: `Entry ${id}`, lines } });
    expect(res.status, await res.clone().text()).toBe(200);
  } else {
    const lines = (g.lines as Array<{ amount: number; paid: boolean }>).map((l) => (l.paid ? { amount: l.amount, paid: { type: 'sales_invoice' as const, id: 1 } } : { amount: l.amount, gl_account: '568' }));
    const total = lines.reduce((s, l) => s.plus(l.amount), new D(0));
    book('221', total);
    for (const l of lines) book('paid' in l ? '311' : '568', new D(l.amount).neg());
    // Σ debit of a payout: the positive side of 221 plus every debit line
    const debit = lines.reduce((s, l) => s.plus(new D(l.amount).isNeg() ? new D(l.amount).abs() : 0), total.isPos() ? total : new D(0));
    grandTotal = grandTotal.plus(debit);
    await file.bus.publish(SUBJECTS.financePayoutPosted, payout({ id, version: 1, date: g.date, lines }));
  }
}

interface TbRow {
  gl_account: { number: string };
  ob: number;
  debit: number;
  credit: number;
  cb: number;
}

describe('ledger properties', () => {
  it('every transaction balances and the trial balance matches the documents', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(docArb, { minLength: 80, maxLength: 120 }), async (docs) => {
        for (const d of docs) await post(d);
        await eventually(async () => (await (await file.stack.api('/v1/accounting/transactions?take=0')).json() as { total: number }).total === posted, 20_000, 100);

        // every transaction balances to the cent
        for (let from = 0; from < posted; from += 1000) {
          const page = (await (await file.stack.api(`/v1/accounting/transactions?take=1000&from=${from}`)).json()) as { entities: unknown[] };
          for (const t of page.entities as Array<{ debit: number; credit: number; rows: Array<{ debit: number; credit: number }> }>) {
            const d = t.rows.reduce((s, r) => s.plus(r.debit), new D(0));
            const c = t.rows.reduce((s, r) => s.plus(r.credit), new D(0));
            expect(d.toFixed(2)).toBe(c.toFixed(2));
            expect(new D(t.debit).toFixed(2)).toBe(d.toFixed(2));
            expect(t.credit).toBe(t.debit);
          }
        }

        // the trial balance over all time: cb per account as the documents say; debit = credit = Σ entries
        const all = ((await (await file.stack.api('/v1/reporting/financial/trial-balance/1/export/json', { method: 'POST', json: [] })).json()) as { rows: TbRow[] }).rows;
        const cb = Object.fromEntries(all.map((r) => [r.gl_account.number, new D(r.cb).toFixed(2)]));
        for (const [acct, v] of expected) expect(cb[acct] ?? '0.00', `account ${acct}`).toBe(v.toFixed(2));
        for (const acct of Object.keys(cb)) expect(expected.has(acct), `unexpected account ${acct}`).toBe(true);
        const totalDebit = all.reduce((s, r) => s.plus(r.debit), new D(0));
        const totalCredit = all.reduce((s, r) => s.plus(r.credit), new D(0));
        expect(totalDebit.toFixed(2)).toBe(totalCredit.toFixed(2));
        expect(totalDebit.toFixed(2)).toBe(grandTotal.toFixed(2));

        // a period: cb = ob + debit − credit on every row, and the period's columns balance
        const period = ((await (await file.stack.api('/v1/reporting/financial/trial-balance/1/export/json?date_posting=[2025-01-01;2025-06-30]', { method: 'POST', json: [] })).json()) as { rows: TbRow[] }).rows;
        for (const r of period) expect(new D(r.ob).plus(r.debit).minus(r.credit).toFixed(2)).toBe(new D(r.cb).toFixed(2));
        expect(period.reduce((s, r) => s.plus(r.debit), new D(0)).toFixed(2)).toBe(period.reduce((s, r) => s.plus(r.credit), new D(0)).toFixed(2));
        expect(period.reduce((s, r) => s.plus(r.ob), new D(0)).toFixed(2)).toBe('0.00');

        // the statements: the sheet balances on any day, and at the end its result is the profit
        // of everything posted; an account's ledger closes at its trial-balance figure
        for (const asOf of ['2024-06-30', '2025-03-31', '2025-12-31']) {
          const bs = await (await file.stack.api(`/v1/reporting/financial/balance-sheet?as_of=${asOf}`)).json();
          expect(new D(bs.total_liabilities_and_equity).toFixed(2), asOf).toBe(new D(bs.total_assets).toFixed(2));
          expect(new D(bs.liabilities.total).plus(bs.equity.total).plus(bs.result).toFixed(2)).toBe(new D(bs.total_assets).toFixed(2));
        }
        const bs = await (await file.stack.api('/v1/reporting/financial/balance-sheet?as_of=2025-12-31')).json();
        const pl = await (await file.stack.api('/v1/reporting/financial/profit-and-loss?date_from=2024-01-01&date_to=2025-12-31')).json();
        expect(new D(pl.profit).toFixed(2)).toBe(new D(bs.result).toFixed(2));
        // the result split by year: 2025's own, and 2024's that no closing entry moved
        const pl2025 = await (await file.stack.api('/v1/reporting/financial/profit-and-loss?date_from=2025-01-01&date_to=2025-12-31')).json();
        const pl2024 = await (await file.stack.api('/v1/reporting/financial/profit-and-loss?date_from=2024-01-01&date_to=2024-12-31')).json();
        expect(new D(bs.result_of_year).toFixed(2)).toBe(new D(pl2025.profit).toFixed(2));
        expect(new D(bs.result_of_earlier_years).toFixed(2)).toBe(new D(pl2024.profit).toFixed(2));
        const profit = [...expected].reduce((s, [acct, v]) => (acct.startsWith('5') || acct.startsWith('6') ? s.minus(v) : s), new D(0));
        expect(new D(pl.profit).toFixed(2)).toBe(profit.toFixed(2));
        for (const acct of ['221', '311', '343']) {
          const ledger = await (await file.stack.api(`/v1/reporting/financial/account-ledger?account_number=${acct}&date_from=2024-01-01&date_to=2025-12-31&take=0`)).json();
          expect(new D(ledger.closing_balance).toFixed(2), acct).toBe(cb[acct] ?? '0.00');
        }
      }),
      { numRuns: 3, endOnFailure: true, seed: 20251123 },
    );
  }, 120_000);

  it('closing the random years leaves classes 5, 6 and 710 at nil, the result in 431 and the profit and loss accounts as they were', async () => {
    const get = async (path: string) => (await file.stack.api(path)).json();
    const pl = async (year: number) => new D((await get(`/v1/reporting/financial/profit-and-loss?date_from=${year}-01-01&date_to=${year}-12-31`)).profit);
    const [pl2024, pl2025] = [await pl(2024), await pl(2025)];
    expect((await file.stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: '2025-12-31' } })).status).toBe(200);
    const accounting = file.stack.services.accounting!.deps.orm.em.fork();
    await eventually(async () => (await sqlRows<{ d: string }>(accounting, "select profile->>'lock_date' as d from kit_organisations where org_id = 1"))[0]?.d === '2025-12-31', 10_000);

    for (const year of [2024, 2025]) {
      const res = await file.stack.api('/v1/accounting/year-end-closings', { method: 'POST', json: { year } });
      const closing = await res.json();
      expect(res.status, JSON.stringify(closing)).toBe(200);
      expect(new D(closing.profit).toFixed(2)).toBe((year === 2024 ? pl2024 : pl2025).toFixed(2));
    }
    expect((await pl(2024)).toFixed(2)).toBe(pl2024.toFixed(2));
    expect((await pl(2025)).toFixed(2)).toBe(pl2025.toFixed(2));
    const bs = await get('/v1/reporting/financial/balance-sheet?as_of=2025-12-31');
    expect([bs.result, bs.result_of_year, bs.result_of_earlier_years].map((v: number) => new D(v).toFixed(2))).toEqual(['0.00', '0.00', '0.00']);
    const equity431 = bs.equity.lines.find((l: { gl_account: { number: string } }) => l.gl_account.number === '431')?.amount ?? 0;
    expect(new D(equity431).toFixed(2)).toBe(pl2024.plus(pl2025).toFixed(2));
    expect(new D(bs.total_liabilities_and_equity).toFixed(2)).toBe(new D(bs.total_assets).toFixed(2));
    const tb = ((await (await file.stack.api('/v1/reporting/financial/trial-balance/1/export/json', { method: 'POST', json: [] })).json()) as { rows: TbRow[] }).rows;
    for (const r of tb.filter((r) => /^(5|6|710)/.test(r.gl_account.number))) expect(new D(r.cb).toFixed(2), r.gl_account.number).toBe('0.00');

    // reopened: 2025's result is unclosed again, 2024's stays in 431
    expect((await file.stack.api('/v1/accounting/year-end-closings/2025/reopen', { method: 'POST' })).status).toBe(200);
    const reopened = await get('/v1/reporting/financial/balance-sheet?as_of=2025-12-31');
    expect(new D(reopened.result).toFixed(2)).toBe(pl2025.toFixed(2));
    expect(new D(reopened.result_of_earlier_years).toFixed(2)).toBe('0.00');
    expect(new D(reopened.total_liabilities_and_equity).toFixed(2)).toBe(new D(reopened.total_assets).toFixed(2));
  }, 60_000);
});
