import { Dec } from '@ledgerline/core/money';
import { BusinessRuleError, type FieldError } from '@ledgerline/service-kit';
import type { StatementEntry } from './statement.js';

/*
 * Which entries of a statement an account has recorded already (issue 52). Banks reuse and blank
 * their references, so a reference alone names no entry: an entry is the one recorded before only
 * when the account, the reference, the signed amount and the booking day all agree — the
 * entry's key. Within one statement every entry is kept, even two with one key (two equal
 * payments booked the same day under one batch reference); the n-th of a key in a statement is
 * its occurrence n, and (account, key, occurrence) is recorded once (a unique index).
 *
 * Against what the account has from other statements (or recorded one by one), for each key:
 * none recorded → every entry of it is new; as many or more recorded → the statement repeats
 * them (an overlapping statement) and each is the duplicate of one recorded; fewer recorded, but
 * some → some are new and some repeats, and which is which cannot be told: the file is refused
 * with 422 `statement_entries_ambiguous` naming them, never dropped and never recorded twice.
 */

export type EntryPlan =
  | { kind: 'skip' }
  | { kind: 'record'; occurrence: number }
  | { kind: 'duplicate'; transactionId: number };

/** The identity of a recorded entry within its account; null without a bank reference (never a duplicate). */
export function entryKey(reference: string | null, amount: string, bookingDay: string): string | null {
  if (reference === null) return null;
  return `${reference}\u0000${Dec(amount).toFixed(2)}\u0000${bookingDay}`;
}

export const keyOfEntry = (e: Pick<StatementEntry, 'bankReference' | 'amount' | 'bookingDate'>) => entryKey(e.bankReference, e.amount, e.bookingDate);

/**
 * What to do with each entry of a statement, in its order. `recorded` maps a key to the ids of the
 * account's transactions with that key, in the order of their occurrence. Zero entries move no
 * money and are skipped.
 */
export function planStatementEntries(entries: readonly StatementEntry[], recorded: ReadonlyMap<string, readonly number[]>, statement: string): EntryPlan[] {
  const seen = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const e of entries) {
    const key = keyOfEntry(e);
    if (key !== null && !Dec(e.amount).isZero()) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const ambiguous: FieldError[] = [];
  const plans = entries.map((e): EntryPlan => {
    if (Dec(e.amount).isZero()) return { kind: 'skip' };
    const key = keyOfEntry(e);
    if (key === null) return { kind: 'record', occurrence: 1 };
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    const before = recorded.get(key) ?? [];
    if (before.length === 0) return { kind: 'record', occurrence };
    const inStatement = counts.get(key)!;
    if (inStatement <= before.length) return { kind: 'duplicate', transactionId: before[occurrence - 1] };
    ambiguous.push({
      path: `${statement} entry ${e.order}`,
      message: `reference ${e.bankReference}, ${e.amount} booked ${e.bookingDate}: ${inStatement} such entries here, ${before.length} recorded before`,
      code: 'statement_entries_ambiguous',
    });
    return { kind: 'skip' };
  });
  if (ambiguous.length > 0) {
    throw new BusinessRuleError(
      `${statement} has more entries with the same bank reference, amount and booking day than the account recorded before, but some: which of them are new cannot be told. Nothing was imported; import the statements that cover those days without overlap, or record the entries one by one`,
      'statement_entries_ambiguous',
      ambiguous.slice(0, 100),
    );
  }
  return plans;
}
