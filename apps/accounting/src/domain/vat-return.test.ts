import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import { filedVatReturn, vatReturnTotals } from './vat-return.js';

const sum = (row: string, base: number | string, tax: number | string) => ({ row, base: dec(base), tax: dec(tax) });
const plain = (t: ReturnType<typeof vatReturnTotals>) => ({
  rows: t.rows.map((r) => [r.row, r.base.toFixed(2), r.tax.toFixed(2)]),
  output: t.output.toFixed(2),
  deductible: t.deductible.toFixed(2),
  due: t.due.toFixed(2),
  excess: t.excess.toFixed(2),
});

describe('the VAT return totals', () => {
  it('sums output tax over rows 1–13 and deductions over rows 40–45, in the order of the form', () => {
    const t = vatReturnTotals([sum('40', '2000', '420'), sum('21', '800', '0'), sum('2', '500', '60'), sum('1', '900', '189'), sum('10', '300', '63'), sum('43', '300', '63')]);
    expect(plain(t)).toEqual({
      rows: [
        ['1', '900.00', '189.00'],
        ['2', '500.00', '60.00'],
        ['10', '300.00', '63.00'],
        ['21', '800.00', '0.00'],
        ['40', '2000.00', '420.00'],
        ['43', '300.00', '63.00'],
      ],
      output: '312.00',
      deductible: '483.00',
      due: '0.00',
      excess: '171.00',
    });
  });

  it('answers the tax due when output exceeds deductions, and neither when they are equal', () => {
    expect(plain(vatReturnTotals([sum('1', '1000', '210.01'), sum('40', '500', '105')]))).toMatchObject({ due: '105.01', excess: '0.00' });
    expect(plain(vatReturnTotals([sum('1', '1000', '210'), sum('40', '1000', '210')]))).toMatchObject({ due: '0.00', excess: '0.00' });
  });

  it('leaves out rows whose figures cancel (an invoice and its full credit note), and counts a base-only row in no total', () => {
    const t = vatReturnTotals([sum('1', '0', '0'), sum('25', '1000', '0'), sum('22', '-0', '0')]);
    expect(plain(t)).toEqual({ rows: [['25', '1000.00', '0.00']], output: '0.00', deductible: '0.00', due: '0.00', excess: '0.00' });
  });

  it('keeps cents exact over many rows (no binary floating point)', () => {
    const t = vatReturnTotals(Array.from({ length: 10 }, () => sum('1', '0.1', '0.01')).concat([sum('40', '0.3', '0.03')]));
    expect(plain(t)).toMatchObject({ output: '0.10', deductible: '0.03', due: '0.07' });
  });

  it('puts a row the form does not number after the numbered ones', () => {
    expect(vatReturnTotals([sum('X', '1', '0'), sum('45', '1', '1'), sum('3', '1', '0.21')]).rows.map((r) => r.row)).toEqual(['3', '45', 'X']);
  });
});

describe('the VAT return as filed', () => {
  it('rounds each row to whole units, half away from zero, and sums the totals from the rounded rows', () => {
    const t = filedVatReturn([sum('1', '1000.50', '210.11'), sum('2', '100.49', '12.49'), sum('40', '500.50', '105.50'), sum('41', '-4.50', '-0.50'), sum('43', '0.40', '0.40')]);
    expect(plain(t)).toEqual({
      rows: [
        ['1', '1001.00', '210.00'],
        ['2', '100.00', '12.00'],
        ['40', '501.00', '106.00'],
        ['41', '-5.00', '-1.00'],
      ],
      output: '222.00',
      deductible: '105.00',
      due: '117.00',
      excess: '0.00',
    });
    // the exact return's tax due (222.60 − 105.40 = 117.20) is not the filed one rounded after the fact
    expect(plain(vatReturnTotals([sum('1', '1000.50', '210.11'), sum('2', '100.49', '12.49'), sum('40', '500.50', '105.50'), sum('41', '-4.50', '-0.50'), sum('43', '0.40', '0.40')])).due).toBe('117.20');
  });
});
