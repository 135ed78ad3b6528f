import type { JournalEntryRequest } from '@ledgerline/contracts';
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
