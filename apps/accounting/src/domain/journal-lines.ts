import { PROFIT_AND_LOSS_ACCOUNT, RESULT_ACCOUNT, type JournalEntryRequest } from '@ledgerline/contracts';
import { BusinessRuleError, assertWithinAmountLimit, dec, toDb, type Dec } from '@ledgerline/service-kit';
import type { StoredJournalLine } from '../db/entities.js';

/* The rules of a manual journal entry's lines (decision 165): pure, tested directly. */

type RequestLine = JournalEntryRequest['lines'][number];

/**
 * The stored lines of a request and their total: 422 `journal_unbalanced` when Σ debit ≠
 * Σ credit, naming both sums and the difference.
 */
export function journalLines(lines: readonly RequestLine[]): { lines: StoredJournalLine[]; total: Dec } {
  const stored = lines.map(
    (l, i): StoredJournalLine => ({
      order: i + 1,
      account_number: l.account_number,
      debit: toDb(dec(String(l.debit ?? 0))),
      credit: toDb(dec(String(l.credit ?? 0))),
      description: l.description ?? null,
    }),
  );
  const debit = stored.reduce((s, l) => s.plus(l.debit), dec(0));
  const credit = stored.reduce((s, l) => s.plus(l.credit), dec(0));
  if (!debit.eq(credit)) {
    const message = `The entry does not balance: debit ${debit.toFixed(2)} ≠ credit ${credit.toFixed(2)} (difference ${debit.minus(credit).abs().toFixed(2)})`;
    throw new BusinessRuleError(message, 'journal_unbalanced', [{ path: 'lines', message, code: 'journal_unbalanced' }]);
  }
  assertWithinAmountLimit([['total', debit]]);
  return { lines: stored, total: debit };
}

/** The lines of the entry that reverses `lines`: each on the other side. */
export function reversingLines(lines: readonly StoredJournalLine[]): StoredJournalLine[] {
  return lines.map((l) => ({ ...l, debit: l.credit, credit: l.debit }));
}

/** An entry's number: JE-<year of its posting day>-<sequence>, four digits at least. */
export function journalNo(year: number, sequence: number): string {
  return `JE-${year}-${String(sequence).padStart(4, '0')}`;
}

/** An account's debit and credit over the year being closed. */
export interface YearSums {
  number: string;
  debit: Dec;
  credit: Dec;
}

export interface ClosingLines {
  lines: StoredJournalLine[];
  total: Dec;
  /** Class 6 closed (credit − debit), class 5 closed (debit − credit), and their difference carried to the result account. */
  revenue: Dec;
  expenses: Dec;
  profit: Dec;
}

/**
 * The closing entry of a year (decision 170): every account of classes 5 and 6 with a balance is
 * closed on its other side, 710 takes the totals (debited with what the expense side closed,
 * credited with what the revenue side closed) and carries the difference, the year's result, to
 * 431: a profit credits 431, a loss debits it. 710 ends at nil. No lines when nothing is to close.
 */
export function yearEndClosingLines(sums: readonly YearSums[], year: number): ClosingLines {
  const closed = sums
    .filter((s) => s.number.startsWith('5') || s.number.startsWith('6'))
    .map((s) => ({ number: s.number, balance: s.debit.minus(s.credit) }))
    .filter((s) => !s.balance.isZero())
    .sort((a, b) => (a.number < b.number ? -1 : a.number > b.number ? 1 : 0));
  const zero = dec(0);
  const revenue = closed.filter((s) => s.number.startsWith('6')).reduce((t, s) => t.minus(s.balance), zero);
  const expenses = closed.filter((s) => s.number.startsWith('5')).reduce((t, s) => t.plus(s.balance), zero);
  const profit = revenue.minus(expenses);
  if (closed.length === 0) return { lines: [], total: zero, revenue, expenses, profit };
  const overPrecise = closed.find((s) => s.balance.decimalPlaces() > 2);
  if (overPrecise) {
    const message = `Account ${overPrecise.number} holds ${overPrecise.balance.toString()}, below a cent: a closing entry is written in cents`;
    throw new BusinessRuleError(message, 'closing_below_cent', [{ path: 'year', message, code: 'closing_below_cent' }]);
  }
  const line = (number: string, debit: Dec, credit: Dec, description: string) => ({ number, debit, credit, description });
  const drafts = closed.map((s) =>
    s.balance.gt(0) ? line(s.number, zero, s.balance, `Closing of ${s.number} to ${PROFIT_AND_LOSS_ACCOUNT}`) : line(s.number, s.balance.negated(), zero, `Closing of ${s.number} to ${PROFIT_AND_LOSS_ACCOUNT}`),
  );
  // what the accounts with a debit balance gave up, and those with a credit balance
  const closedDebits = drafts.reduce((t, d) => t.plus(d.credit), zero);
  const closedCredits = drafts.reduce((t, d) => t.plus(d.debit), zero);
  if (!closedDebits.isZero()) drafts.push(line(PROFIT_AND_LOSS_ACCOUNT, closedDebits, zero, `${year}: debit balances of classes 5 and 6 closed`));
  if (!closedCredits.isZero()) drafts.push(line(PROFIT_AND_LOSS_ACCOUNT, zero, closedCredits, `${year}: credit balances of classes 5 and 6 closed`));
  if (profit.gt(0)) {
    drafts.push(line(PROFIT_AND_LOSS_ACCOUNT, profit, zero, `${year}: profit carried to ${RESULT_ACCOUNT}`));
    drafts.push(line(RESULT_ACCOUNT, zero, profit, `Profit of ${year}`));
  } else if (profit.lt(0)) {
    drafts.push(line(RESULT_ACCOUNT, profit.negated(), zero, `Loss of ${year}`));
    drafts.push(line(PROFIT_AND_LOSS_ACCOUNT, zero, profit.negated(), `${year}: loss carried to ${RESULT_ACCOUNT}`));
  }
  const lines = drafts.map((d, i): StoredJournalLine => ({ order: i + 1, account_number: d.number, debit: toDb(d.debit), credit: toDb(d.credit), description: d.description }));
  const total = drafts.reduce((t, d) => t.plus(d.debit), zero);
  assertWithinAmountLimit([['total', total]]);
  return { lines, total, revenue, expenses, profit };
}

/** What a closing entry closed, read back from its lines, as stored or as answered (the view of a closing). */
export function closingFigures(lines: ReadonlyArray<{ account_number: string; debit: string | number; credit: string | number }>): { revenue: Dec; expenses: Dec; profit: Dec } {
  const zero = dec(0);
  let revenue = zero;
  let expenses = zero;
  for (const l of lines) {
    const debit = dec(String(l.debit));
    const credit = dec(String(l.credit));
    // a closing line moves the balance to the other side: what it debits, the account held as a credit
    if (l.account_number.startsWith('6')) revenue = revenue.plus(debit).minus(credit);
    else if (l.account_number.startsWith('5')) expenses = expenses.plus(credit).minus(debit);
  }
  return { revenue, expenses, profit: revenue.minus(expenses) };
}
