import { describe, expect, it } from 'vitest';
import { AppError } from '@ledgerline/service-kit';
import { journalEntrySchema, journalEntryRequestSchema } from '@ledgerline/contracts';
import { journalLines, journalNo, reversingLines } from './journal-lines.js';
import { ledgerEntryForJournal, UnbalancedEntryError } from './posting.js';

const line = (account_number: string, side: { debit?: number; credit?: number }, description?: string) => ({ account_number, ...side, description });

function refusal(fn: () => unknown): { status: number; code: string; detail: string; paths: string[] } {
  try {
    fn();
  } catch (err) {
    const e = err as AppError;
    return { status: e.status, code: e.code, detail: e.message, paths: (e.errors ?? []).map((x) => x.path) };
  }
  throw new Error('not refused');
}

describe('journal entry lines', () => {
  it('stores each line at two places on its side, in order, and totals the debits', () => {
    const { lines, total } = journalLines([line('221', { debit: 0.1 }), line('211', { debit: 0.2 }), line('701', { credit: 0.3 }, 'Opening')]);
    expect(lines).toEqual([
      { order: 1, account_number: '221', debit: '0.10', credit: '0.00', description: null },
      { order: 2, account_number: '211', debit: '0.20', credit: '0.00', description: null },
      { order: 3, account_number: '701', debit: '0.00', credit: '0.30', description: 'Opening' },
    ]);
    // 0.1 + 0.2 is 0.3 in decimal, not 0.30000000000000004
    expect(total.toFixed(2)).toBe('0.30');
  });

  it('refuses an entry whose sides differ by a cent, naming both sums and the difference', () => {
    expect(refusal(() => journalLines([line('518', { debit: 100.01 }), line('321', { credit: 100 })]))).toEqual({
      status: 422,
      code: 'journal_unbalanced',
      detail: 'The entry does not balance: debit 100.01 ≠ credit 100.00 (difference 0.01)',
      paths: ['lines'],
    });
    expect(refusal(() => journalLines([line('518', { debit: 5 }), line('321', { credit: 5.5 })])).detail).toContain('difference 0.50');
  });

  it('refuses a total beyond 10^13 even when every line is within it', () => {
    const big = 6_000_000_000_000;
    expect(refusal(() => journalLines([line('518', { debit: big }), line('504', { debit: big }), line('321', { credit: big }), line('389', { credit: big })]))).toMatchObject({ status: 400, paths: ['total'] });
    expect(journalLines([line('518', { debit: 9_999_999_999_999.99 }), line('321', { credit: 9_999_999_999_999.99 })]).total.toFixed(2)).toBe('9999999999999.99');
  });

  it('reverses each line onto the other side, keeping accounts, order and texts', () => {
    const { lines } = journalLines([line('518', { debit: 12000 }, 'Audit'), line('389', { credit: 12000 })]);
    expect(reversingLines(lines)).toEqual([
      { order: 1, account_number: '518', debit: '0.00', credit: '12000.00', description: 'Audit' },
      { order: 2, account_number: '389', debit: '12000.00', credit: '0.00', description: null },
    ]);
    expect(reversingLines(reversingLines(lines))).toEqual(lines);
  });

  it('numbers per year with four digits at least', () => {
    expect([journalNo(2026, 1), journalNo(2026, 42), journalNo(2025, 9999), journalNo(2026, 10000)]).toEqual(['JE-2026-0001', 'JE-2026-0042', 'JE-2025-9999', 'JE-2026-10000']);
  });
});

describe('the request contract of a journal entry', () => {
  const base = { date_posting: '2026-11-01', description: 'x' };
  const issues = (body: unknown) => (journalEntryRequestSchema.safeParse(body).error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);

  it('takes a line as a debit or a credit, never both, never neither, never negative or below a cent', () => {
    expect(issues({ ...base, lines: [line('518', { debit: 1 }), line('321', { credit: 1 })] })).toEqual([]);
    expect(issues({ ...base, lines: [line('518', { debit: 1, credit: 0 }), line('321', { debit: 0, credit: 1 })] })).toEqual([]);
    for (const side of [{ debit: 1, credit: 1 }, {}, { debit: 0 }, { debit: 0, credit: 0 }, { debit: -1 }, { credit: 0.001 }]) {
      expect(issues({ ...base, lines: [line('518', side), line('321', { credit: 1 })] }).length, JSON.stringify(side)).toBeGreaterThan(0);
    }
  });

  it('takes three-digit accounts with an analytic suffix, nothing else', () => {
    for (const ok of ['518', '518100', '221.001', '311-CUST', '701']) expect(issues({ ...base, lines: [line(ok, { debit: 1 }), line('321', { credit: 1 })] }), ok).toEqual([]);
    for (const bad of ['51', 'ABC', ' 518', '518 ', '', '5180000000000000000000000000000000', '518\u0000', '١٢٣']) {
      expect(issues({ ...base, lines: [line(bad, { debit: 1 }), line('321', { credit: 1 })] }).length, bad).toBeGreaterThan(0);
    }
  });

  it('needs two lines at least and 500 at most', () => {
    expect(issues({ ...base, lines: [line('518', { debit: 1 })] }).length).toBeGreaterThan(0);
    const many = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? line('321', { credit: 1 }) : line('518', { debit: 1 })));
    expect(issues({ ...base, lines: many(500) })).toEqual([]);
    expect(issues({ ...base, lines: many(501) }).length).toBeGreaterThan(0);
  });
});

describe('the ledger entry of a journal entry', () => {
  const doc = journalEntrySchema.parse({
    id: 7,
    no: 'JE-2026-0007',
    date_posting: '2026-10-31',
    description: 'Depreciation October',
    reference: null,
    currency: 'CZK',
    total: 1500.5,
    lines: [
      { order: 1, account_number: '551', debit: 1500.5, credit: 0, description: null },
      { order: 2, account_number: '082', debit: 0, credit: 1000, description: 'Machinery' },
      { order: 3, account_number: '082100', debit: 0, credit: 500.5, description: null },
    ],
    reverses: null,
    reversed_by: null,
    created_at: '2026-11-01T08:00:00.000Z',
    created_by: 'key:3',
  });

  it('posts each line on its account and side, on the entry day, in the legal currency, with no tax rows', () => {
    const entry = ledgerEntryForJournal(doc);
    expect(entry).toMatchObject({ type: 'journal_entry', entryKind: 'posting', source: { type: 'journal_entry', id: 7, version: 1, no: 'JE-2026-0007' }, datePosting: '2026-10-31', no: 'JE-2026-0007', currency: 'CZK', legalCurrency: 'CZK' });
    expect(entry.rows.map((r) => [r.role, r.gl_account_number, r.debit.toFixed(2), r.credit.toFixed(2), r.description, r.taxes.length])).toEqual([
      ['journal', '551', '1500.50', '0.00', 'Depreciation October', 0],
      ['journal', '082', '0.00', '1000.00', 'Machinery', 0],
      ['journal', '082100', '0.00', '500.50', 'Depreciation October', 0],
    ]);
    expect(entry.total.toFixed(2)).toBe('1500.50');
  });

  it('refuses to post an event whose lines do not balance (a producer fault, dead-lettered)', () => {
    const broken = { ...doc, lines: doc.lines.map((l, i) => (i === 2 ? { ...l, credit: 500.49 } : l)) };
    expect(() => ledgerEntryForJournal(broken)).toThrow(UnbalancedEntryError);
  });
});
