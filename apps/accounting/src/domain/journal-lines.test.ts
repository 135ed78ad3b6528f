import { describe, expect, it } from 'vitest';
import { AppError, dec, type Dec } from '@ledgerline/service-kit';
import { journalEntrySchema, journalEntryRequestSchema } from '@ledgerline/contracts';
import { closingFigures, journalLines, journalNo, reversingLines, yearEndClosingLines } from './journal-lines.js';
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
    // an event from before year-end closings names no kind: it was posted by hand
    expect(doc.kind).toBe('manual');
    const entry = ledgerEntryForJournal(doc);
    expect(entry).toMatchObject({ type: 'journal_entry', entry_kind: 'posting', source: { type: 'journal_entry', id: 7, version: 1, no: 'JE-2026-0007' }, date_posting: '2026-10-31', no: 'JE-2026-0007', currency: 'CZK', legal_currency: 'CZK' });
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

describe('the closing entry of a year (decision 170)', () => {
  const sums = (number: string, debit: string, credit: string) => ({ number, debit: dec(debit), credit: dec(credit) });
  const show = (lines: ReturnType<typeof yearEndClosingLines>['lines']) => lines.map((l) => `${l.order} ${l.account_number} Dr ${l.debit} Cr ${l.credit} ${l.description}`);

  it('closes each account of classes 5 and 6 on its other side to 710 and carries the profit to 431', () => {
    const closing = yearEndClosingLines(
      [
        sums('221', '500000.00', '120.55'), // not a result account: left alone
        sums('518', '30000.00', '0.00'),
        sums('551', '5000.00', '0.00'),
        sums('568', '120.55', '0.00'),
        sums('602', '0.00', '100000.00'),
        sums('604', '1000.00', '0.00'), // revenue with a debit balance (a sales return)
        sums('648', '250.00', '250.00'), // nil: nothing to close
      ],
      2025,
    );
    expect(show(closing.lines)).toEqual([
      '1 518 Dr 0.00 Cr 30000.00 Closing of 518 to 710',
      '2 551 Dr 0.00 Cr 5000.00 Closing of 551 to 710',
      '3 568 Dr 0.00 Cr 120.55 Closing of 568 to 710',
      '4 602 Dr 100000.00 Cr 0.00 Closing of 602 to 710',
      '5 604 Dr 0.00 Cr 1000.00 Closing of 604 to 710',
      '6 710 Dr 36120.55 Cr 0.00 2025: debit balances of classes 5 and 6 closed',
      '7 710 Dr 0.00 Cr 100000.00 2025: credit balances of classes 5 and 6 closed',
      '8 710 Dr 63879.45 Cr 0.00 2025: profit carried to 431',
      '9 431 Dr 0.00 Cr 63879.45 Profit of 2025',
    ]);
    expect([closing.revenue, closing.expenses, closing.profit, closing.total].map((d) => d.toFixed(2))).toEqual(['99000.00', '35120.55', '63879.45', '200000.00']);
    // what a closing closed reads back from its lines alone
    expect(Object.values(closingFigures(closing.lines)).map((d) => d.toFixed(2))).toEqual(['99000.00', '35120.55', '63879.45']);
  });

  it('carries a loss to the debit of 431', () => {
    const closing = yearEndClosingLines([sums('518', '500.00', '0.00')], 2024);
    expect(show(closing.lines)).toEqual([
      '1 518 Dr 0.00 Cr 500.00 Closing of 518 to 710',
      '2 710 Dr 500.00 Cr 0.00 2024: debit balances of classes 5 and 6 closed',
      '3 431 Dr 500.00 Cr 0.00 Loss of 2024',
      '4 710 Dr 0.00 Cr 500.00 2024: loss carried to 431',
    ]);
    expect(closing.profit.toFixed(2)).toBe('-500.00');
    expect(closingFigures(closing.lines).profit.toFixed(2)).toBe('-500.00');
  });

  it('writes no 431 line when revenue equals expenses, and nothing when classes 5 and 6 hold nothing', () => {
    expect(show(yearEndClosingLines([sums('518', '10.00', '0.00'), sums('602', '0.00', '10.00')], 2025).lines)).toEqual([
      '1 518 Dr 0.00 Cr 10.00 Closing of 518 to 710',
      '2 602 Dr 10.00 Cr 0.00 Closing of 602 to 710',
      '3 710 Dr 10.00 Cr 0.00 2025: debit balances of classes 5 and 6 closed',
      '4 710 Dr 0.00 Cr 10.00 2025: credit balances of classes 5 and 6 closed',
    ]);
    expect(yearEndClosingLines([sums('221', '10.00', '0.00'), sums('518', '3.00', '3.00')], 2025).lines).toEqual([]);
  });

  it('refuses a balance below a cent rather than round what it closes', () => {
    expect(refusal(() => yearEndClosingLines([sums('518', '10.005', '0')], 2025))).toMatchObject({ status: 422, code: 'closing_below_cent', paths: ['year'] });
  });

  it('leaves every account of classes 5, 6 and 710 at nil and balances, over random years', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const cents = () => dec(Math.floor(random() * 10_000_000)).div(100);
    for (let run = 0; run < 200; run++) {
      const accounts = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, i) => sums(`${random() < 0.5 ? '5' : '6'}${String(10 + i)}`, cents().toFixed(2), cents().toFixed(2)));
      const closing = yearEndClosingLines(accounts, 2025);
      const after = new Map<string, Dec>(accounts.map((a) => [a.number, a.debit.minus(a.credit)]));
      for (const l of closing.lines) after.set(l.account_number, (after.get(l.account_number) ?? dec(0)).plus(l.debit).minus(l.credit));
      const debit = closing.lines.reduce((t, l) => t.plus(l.debit), dec(0));
      const credit = closing.lines.reduce((t, l) => t.plus(l.credit), dec(0));
      expect(debit.eq(credit)).toBe(true);
      for (const [number, balance] of after) if (number !== '431') expect(balance.isZero(), `${number} after closing`).toBe(true);
      // 431 takes the profit as a credit balance: its balance (debit − credit) is the loss
      const profit = accounts.reduce((t, a) => t.plus(a.credit).minus(a.debit), dec(0));
      expect((after.get('431') ?? dec(0)).negated().eq(profit)).toBe(true);
      expect(closingFigures(closing.lines).profit.eq(profit)).toBe(true);
    }
  });
});
