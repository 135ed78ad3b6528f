import type { BalanceSheet, ProfitAndLoss } from '@ledgerline/contracts';
import { dec, refuseReversedPeriod, sqlRows, toWire, type Dec, type TenantContext } from '@ledgerline/service-kit';
import { GENERAL_LEDGER_BOOK, type ChartLocale } from './chart.js';
import { accountsOf, glAccountView } from './transactions.js';
import { reportPeriodState } from './tax-period.js';
import { trialBalanceFigures } from './trial-balance.js';

/*
 * The profit and loss account and the balance sheet (decision 167): the ledger summed per account
 * (the trial balance's one aggregate), each account put in a section by its class in the Czech
 * chart. The rules are pure and tested directly; the ledger balancing makes the sheet balance.
 */

/** An account's sums over what a statement covers. */
export interface AccountSums {
  number: string;
  debit: Dec;
  credit: Dec;
}

export interface StatementLine {
  number: string;
  amount: Dec;
}

export interface Section {
  lines: StatementLine[];
  total: Dec;
}

function section(lines: StatementLine[]): Section {
  const kept = lines.filter((l) => !l.amount.isZero());
  return { lines: kept, total: kept.reduce((s, l) => s.plus(l.amount), dec(0)) };
}

const classOf = (number: string) => number.charAt(0);

/** Revenue (class 6, credit − debit) and expenses (class 5, debit − credit) of a period, and the profit. */
export function profitAndLossOf(sums: readonly AccountSums[]): { revenue: Section; expenses: Section; profit: Dec } {
  const revenue = section(sums.filter((s) => classOf(s.number) === '6').map((s) => ({ number: s.number, amount: s.credit.minus(s.debit) })));
  const expenses = section(sums.filter((s) => classOf(s.number) === '5').map((s) => ({ number: s.number, amount: s.debit.minus(s.credit) })));
  return { revenue, expenses, profit: revenue.total.minus(expenses.total) };
}

export type SheetSide = 'assets' | 'liabilities' | 'equity' | 'result';

/**
 * Where an account's balance stands on the sheet: classes 0–2 assets; class 3 by the sign of the
 * balance (a receivable or a payable, VAT due or reclaimable); 41–43 and 49 (a sole trader's own
 * account) equity, 44–48 liabilities (provisions, long-term loans and payables);
 * 5 and 6 the result of the year not yet closed; 7–9 (opening and closing balance accounts,
 * internal accounts) with equity, so that the sheet balances whatever they hold.
 */
export function sheetSideOf(number: string, balance: Dec): SheetSide {
  const c = classOf(number);
  if (c === '0' || c === '1' || c === '2') return 'assets';
  if (c === '3') return balance.isNegative() ? 'liabilities' : 'assets';
  if (c === '4') return ['1', '2', '3', '9'].includes(number.charAt(1)) ? 'equity' : 'liabilities';
  if (c === '5' || c === '6') return 'result';
  return 'equity';
}

/** The sheet of account balances (debit − credit up to the day): assets as debit balances, the rest as credit balances. */
export function balanceSheetOf(sums: readonly AccountSums[]): { assets: Section; liabilities: Section; equity: Section; result: Dec } {
  const lines: Record<SheetSide, StatementLine[]> = { assets: [], liabilities: [], equity: [], result: [] };
  for (const s of sums) {
    const balance = s.debit.minus(s.credit);
    const side = sheetSideOf(s.number, balance);
    lines[side].push({ number: s.number, amount: side === 'assets' ? balance : balance.negated() });
  }
  return { assets: section(lines.assets), liabilities: section(lines.liabilities), equity: section(lines.equity), result: section(lines.result).total };
}

// --- reports -----------------------------------------------------------------------------------

/** Each account's sums over the period, and over its year to `dateTo` (the trial balance's one aggregate answers both). */
async function sumsOf(ctx: TenantContext, dateFrom: string | undefined, dateTo: string): Promise<{ period: AccountSums[]; yearToDate: AccountSums[] }> {
  const figures = await trialBalanceFigures(ctx, { bookId: GENERAL_LEDGER_BOOK.id, dateFrom, dateTo, today: dateTo });
  return {
    period: figures.map((f) => ({ number: f.number, debit: dec(f.debit), credit: dec(f.credit) })),
    yearToDate: figures.map((f) => ({ number: f.number, debit: dec(f.ytd_debit), credit: dec(f.ytd_credit) })),
  };
}

async function sectionView(ctx: TenantContext, locale: ChartLocale) {
  const accounts = await accountsOf(ctx.em);
  return (s: Section) => ({ lines: s.lines.map((l) => ({ gl_account: glAccountView(l.number, accounts, locale), amount: toWire(l.amount) })), total: toWire(s.total) });
}

/**
 * Each account's sums over the closings of years (and their reopenings) posted in the period: a
 * closing moves the year's revenue and expenses to 710, so the profit and loss account of a period
 * with a 31 December in it would read nil without taking them back out (decision 170).
 */
async function closingSumsOf(ctx: TenantContext, dateFrom: string, dateTo: string): Promise<AccountSums[]> {
  const rows = await sqlRows<{ number: string; debit: string; credit: string }>(
    ctx.em,
    `select r.gl_account_number as number, sum(r.debit) as debit, sum(r.credit) as credit
       from journal_entries j
       join accounting_transactions t on t.org_id = j.org_id and t.source_type = 'journal_entry' and t.source_id = j.id
       join ledger_rows r on r.org_id = t.org_id and r.transaction_id = t.id
      where j.org_id = ? and j.kind = 'year_end_close' and j.date_posting between ?::date and ?::date and r.book_id = ?
      group by r.gl_account_number`,
    [ctx.orgId, dateFrom, dateTo, GENERAL_LEDGER_BOOK.id],
  );
  return rows.map((r) => ({ number: r.number, debit: dec(r.debit), credit: dec(r.credit) }));
}

/** `sums` without `taken`, account by account. */
function withoutSums(sums: readonly AccountSums[], taken: readonly AccountSums[]): AccountSums[] {
  const out = new Map(sums.map((s) => [s.number, { ...s }]));
  for (const t of taken) {
    const s = out.get(t.number) ?? { number: t.number, debit: dec(0), credit: dec(0) };
    out.set(t.number, { number: t.number, debit: s.debit.minus(t.debit), credit: s.credit.minus(t.credit) });
  }
  return [...out.values()];
}

export async function profitAndLoss(ctx: TenantContext, q: { date_from: string; date_to: string }, locale: ChartLocale, defaultCurrency: string): Promise<ProfitAndLoss> {
  refuseReversedPeriod(q);
  const sums = withoutSums((await sumsOf(ctx, q.date_from, q.date_to)).period, await closingSumsOf(ctx, q.date_from, q.date_to));
  const { revenue, expenses, profit } = profitAndLossOf(sums);
  const view = await sectionView(ctx, locale);
  return { ...(await reportPeriodState(ctx, q, defaultCurrency)), date_from: q.date_from, date_to: q.date_to, revenue: view(revenue), expenses: view(expenses), profit: toWire(profit) };
}

export async function balanceSheet(ctx: TenantContext, q: { as_of: string }, locale: ChartLocale, defaultCurrency: string): Promise<BalanceSheet> {
  const sums = await sumsOf(ctx, undefined, q.as_of);
  const { assets, liabilities, equity, result } = balanceSheetOf(sums.period);
  // the part of the unclosed result the year of as_of made; the rest is earlier years' not closed by entries
  const ofYear = profitAndLossOf(sums.yearToDate).profit;
  const view = await sectionView(ctx, locale);
  const { currency, closed } = await reportPeriodState(ctx, { date_to: q.as_of }, defaultCurrency);
  return {
    currency,
    as_of: q.as_of,
    assets: view(assets),
    liabilities: view(liabilities),
    equity: view(equity),
    result: toWire(result),
    result_of_year: toWire(ofYear),
    result_of_earlier_years: toWire(result.minus(ofYear)),
    total_assets: toWire(assets.total),
    total_liabilities_and_equity: toWire(liabilities.total.plus(equity.total).plus(result)),
    closed,
  };
}
