import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import { balanceSheetOf, profitAndLossOf, sheetSideOf, type AccountSums, type Section } from './financial-statements.js';

const sums = (number: string, debit: number | string, credit: number | string): AccountSums => ({ number, debit: dec(debit), credit: dec(credit) });
const plain = (s: Section) => ({ lines: s.lines.map((l) => [l.number, l.amount.toFixed(2)]), total: s.total.toFixed(2) });

/*
 * A year in the books of a small company, every entry balanced:
 *   opening   Dr 221 100 000, Dr 022 60 000 / Cr 411 150 000, Cr 701 10 000 … and Dr 701 10 000 / Cr 321 10 000
 *   sales     Dr 311 121 000 / Cr 604 100 000, Cr 343 21 000
 *   purchase  Dr 518 20 000, Dr 343 4 200 / Cr 321 24 200
 *   payments  Dr 221 121 000 / Cr 311 121 000; Dr 321 34 200 / Cr 221 34 200
 *   depreciation Dr 551 12 000 / Cr 082 12 000
 */
const YEAR = [
  sums('022', 60000, 0),
  sums('082', 0, 12000),
  sums('221', 221000, 34200),
  sums('311', 121000, 121000),
  sums('321', 34200, 34200),
  sums('343', 4200, 21000),
  sums('411', 0, 150000),
  sums('518', 20000, 0),
  sums('551', 12000, 0),
  sums('604', 0, 100000),
  sums('701', 10000, 10000),
];

describe('the profit and loss account', () => {
  it('shows revenue as credit − debit and expenses as debit − credit per account, and the profit', () => {
    const pl = profitAndLossOf(YEAR);
    expect(plain(pl.revenue)).toEqual({ lines: [['604', '100000.00']], total: '100000.00' });
    expect(plain(pl.expenses)).toEqual({ lines: [['518', '20000.00'], ['551', '12000.00']], total: '32000.00' });
    expect(pl.profit.toFixed(2)).toBe('68000.00');
  });

  it('nets a credit note against its revenue and shows a loss as negative; balance-sheet accounts are left out', () => {
    const pl = profitAndLossOf([sums('604', 500.1, 300.05), sums('602', 0, 0.1), sums('518', 1000, 0), sums('311', 5, 0)]);
    expect(plain(pl.revenue)).toEqual({ lines: [['604', '-200.05'], ['602', '0.10']], total: '-199.95' });
    expect(pl.profit.toFixed(2)).toBe('-1199.95');
  });

  it('leaves out accounts that net to nil', () => {
    expect(plain(profitAndLossOf([sums('518', 100, 100)]).expenses)).toEqual({ lines: [], total: '0.00' });
  });
});

describe('the balance sheet', () => {
  it('balances: assets = liabilities + equity + the result of the year', () => {
    const bs = balanceSheetOf(YEAR);
    expect(plain(bs.assets)).toEqual({ lines: [['022', '60000.00'], ['082', '-12000.00'], ['221', '186800.00']], total: '234800.00' });
    expect(plain(bs.liabilities)).toEqual({ lines: [['343', '16800.00']], total: '16800.00' });
    expect(plain(bs.equity)).toEqual({ lines: [['411', '150000.00']], total: '150000.00' });
    expect(bs.result.toFixed(2)).toBe('68000.00');
    expect(bs.liabilities.total.plus(bs.equity.total).plus(bs.result).toFixed(2)).toBe(bs.assets.total.toFixed(2));
  });

  it('puts each class-3 account on the side of its balance: VAT to reclaim is an asset, VAT due a liability', () => {
    expect(sheetSideOf('343', dec(10))).toBe('assets');
    expect(sheetSideOf('343', dec(-10))).toBe('liabilities');
    expect(sheetSideOf('311.001', dec(0))).toBe('assets');
    expect(sheetSideOf('395', dec(-0.01))).toBe('liabilities');
  });

  it('sorts the other classes: 0–2 assets, 41–43 and 49 equity, 44–48 liabilities, 5–6 the result, 7–9 equity', () => {
    const sideOf = (n: string) => sheetSideOf(n, dec(-1));
    expect(['013', '082', '112', '211', '261'].map(sideOf)).toEqual(Array(5).fill('assets'));
    expect(['411', '428', '431', '491', '701', '702', '710', '901'].map(sideOf)).toEqual(Array(8).fill('equity'));
    expect(['451', '461', '479', '481'].map(sideOf)).toEqual(Array(4).fill('liabilities'));
    expect(['501', '591', '604', '663'].map(sideOf)).toEqual(Array(4).fill('result'));
  });

  it('balances whatever the entries, as long as each entry does', () => {
    // random balanced entries over random accounts: the sheet always balances to the cent
    const accounts = ['022', '082', '211', '221', '311', '321', '343', '395', '411', '461', '518', '551', '604', '701'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 50; round++) {
      const totals = new Map<string, { debit: ReturnType<typeof dec>; credit: ReturnType<typeof dec> }>();
      for (let e = 0; e < 20; e++) {
        const amount = dec(Math.floor(next() * 1_000_000)).div(100);
        const [d, c] = [accounts[Math.floor(next() * accounts.length)], accounts[Math.floor(next() * accounts.length)]];
        const td = totals.get(d) ?? { debit: dec(0), credit: dec(0) };
        totals.set(d, { ...td, debit: td.debit.plus(amount) });
        const tc = totals.get(c) ?? { debit: dec(0), credit: dec(0) };
        totals.set(c, { ...tc, credit: tc.credit.plus(amount) });
      }
      const bs = balanceSheetOf([...totals].map(([number, t]) => ({ number, ...t })));
      expect(bs.liabilities.total.plus(bs.equity.total).plus(bs.result).toFixed(2)).toBe(bs.assets.total.toFixed(2));
    }
  });
});
