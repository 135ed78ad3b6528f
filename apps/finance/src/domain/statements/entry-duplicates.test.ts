import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AppError } from '@ledgerline/service-kit';
import { entryKey, planStatementEntries, type EntryPlan } from './entry-duplicates.js';
import type { StatementEntry } from './statement.js';

const entry = (order: number, bankReference: string | null, amount: string, bookingDate = '2026-11-20'): StatementEntry => ({
  order,
  bankReference,
  amount,
  currency: 'CZK',
  bookingDate,
  valueDate: null,
  variableSymbol: null,
  constantSymbol: null,
  specificSymbol: null,
  reference: null,
  message: null,
  partnerName: null,
  partnerAccount: null,
  isFee: false,
  isReversal: false,
});

const refusal = (f: () => unknown): AppError => {
  try {
    f();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('not refused');
};

describe('which entries of a statement were recorded before', () => {
  it('entries of one statement sharing a reference are all kept (CAMT AcctSvcrRef reused for 10.00 and 5 000.00)', () => {
    const plans = planStatementEntries([entry(1, 'REF-1', '10.00'), entry(2, 'REF-1', '5000.00')], new Map(), 'statement 1');
    expect(plans).toEqual([
      { kind: 'record', occurrence: 1 },
      { kind: 'record', occurrence: 1 },
    ]);
  });

  it('two equal entries of one statement are both kept, as occurrences 1 and 2', () => {
    expect(planStatementEntries([entry(1, 'R', '100'), entry(2, 'R', '100.00')], new Map(), 's')).toEqual([
      { kind: 'record', occurrence: 1 },
      { kind: 'record', occurrence: 2 },
    ]);
  });

  it('an entry is a duplicate only when reference, signed amount and booking day agree with one recorded', () => {
    const recorded = new Map([[entryKey('R', '100.00', '2026-11-20')!, [7]]]);
    const plans = planStatementEntries(
      [entry(1, 'R', '100'), entry(2, 'R', '-100'), entry(3, 'R', '100', '2026-11-21'), entry(4, 'R', '100.01'), entry(5, 'S', '100'), entry(6, null, '100')],
      recorded,
      's',
    );
    expect(plans.map((p) => p.kind)).toEqual(['duplicate', 'record', 'record', 'record', 'record', 'record']);
    expect(plans[0]).toEqual({ kind: 'duplicate', transactionId: 7 });
  });

  it('an overlapping statement repeating fewer or as many equal entries as were recorded: each the duplicate of another', () => {
    const recorded = new Map([[entryKey('R', '100', '2026-11-20')!, [7, 9]]]);
    expect(planStatementEntries([entry(1, 'R', '100'), entry(2, 'R', '100')], recorded, 's')).toEqual([
      { kind: 'duplicate', transactionId: 7 },
      { kind: 'duplicate', transactionId: 9 },
    ]);
    expect(planStatementEntries([entry(1, 'R', '100')], recorded, 's')).toEqual([{ kind: 'duplicate', transactionId: 7 }]);
  });

  it('more equal entries than were recorded, but some: 422 naming them, nothing decided', () => {
    const recorded = new Map([[entryKey('R', '100', '2026-11-20')!, [7]]]);
    const e = refusal(() => planStatementEntries([entry(1, 'R', '100'), entry(2, 'X', '5'), entry(3, 'R', '100')], recorded, 'statement 41'));
    expect(e.status).toBe(422);
    expect(e.code).toBe('statement_entries_ambiguous');
    expect(e.errors?.map((x) => x.path)).toEqual(['statement 41 entry 1', 'statement 41 entry 3']);
  });

  it('entries of zero are skipped, and never counted as duplicates', () => {
    const recorded = new Map([[entryKey('R', '0', '2026-11-20')!, [7]]]);
    expect(planStatementEntries([entry(1, 'R', '0.00'), entry(2, 'R', '0')], recorded, 's')).toEqual([{ kind: 'skip' }, { kind: 'skip' }]);
  });

  /** The rule as a model: per key, n in the statement against m recorded. */
  function model(entries: StatementEntry[], recorded: Map<string, number[]>): EntryPlan[] | 'refused' {
    const n = new Map<string, number>();
    for (const e of entries) if (Number(e.amount) !== 0 && e.bankReference) n.set(entryKey(e.bankReference, e.amount, e.bookingDate)!, (n.get(entryKey(e.bankReference, e.amount, e.bookingDate)!) ?? 0) + 1);
    for (const [k, count] of n) {
      const m = recorded.get(k)?.length ?? 0;
      if (m > 0 && count > m) return 'refused';
    }
    const seen = new Map<string, number>();
    return entries.map((e) => {
      if (Number(e.amount) === 0) return { kind: 'skip' };
      if (!e.bankReference) return { kind: 'record', occurrence: 1 };
      const k = entryKey(e.bankReference, e.amount, e.bookingDate)!;
      const i = (seen.get(k) ?? 0) + 1;
      seen.set(k, i);
      const before = recorded.get(k) ?? [];
      return before.length ? { kind: 'duplicate', transactionId: before[i - 1] } : { kind: 'record', occurrence: i };
    });
  }

  it('property: every entry is recorded, a duplicate of a distinct recorded one, skipped (zero) or the file refused — never dropped', () => {
    const anEntry = fc.record({
      reference: fc.constantFrom(null, 'A', 'B'),
      cents: fc.constantFrom(0, 1000, -1000, 500000),
      day: fc.constantFrom('2026-11-20', '2026-11-21'),
    });
    fc.assert(
      fc.property(fc.array(anEntry, { maxLength: 12 }), fc.array(anEntry, { maxLength: 6 }), (mine, before) => {
        const entries = mine.map((x, i) => entry(i + 1, x.reference, (x.cents / 100).toFixed(2), x.day));
        const recorded = new Map<string, number[]>();
        before.forEach((x, i) => {
          if (x.reference === null || x.cents === 0) return;
          const k = entryKey(x.reference, (x.cents / 100).toFixed(2), x.day)!;
          recorded.set(k, [...(recorded.get(k) ?? []), 100 + i]);
        });
        let plans: EntryPlan[] | 'refused';
        try {
          plans = planStatementEntries(entries, recorded, 's');
        } catch (e) {
          expect((e as AppError).code).toBe('statement_entries_ambiguous');
          plans = 'refused';
        }
        expect(plans).toEqual(model(entries, recorded));
        if (plans === 'refused') return;
        // a recorded transaction stands for at most one entry of the statement
        const dupIds = plans.flatMap((p) => (p.kind === 'duplicate' ? [p.transactionId] : []));
        expect(new Set(dupIds).size).toBe(dupIds.length);
        // and when nothing was recorded before, every entry that moves money is recorded
        if (recorded.size === 0) expect(plans.filter((p) => p.kind === 'record').length).toBe(entries.filter((e) => Number(e.amount) !== 0).length);
      }),
      { numRuns: 500 },
    );
  });
});
