import { describe, expect, it } from 'vitest';
import { advanceShares, taxableAdvance } from './advance-shares.js';

const at = (rate: number, base: string, tax: string) => ({ tax_rate: rate, tax_base: base, tax_amount: tax });
const wire = (s: ReturnType<typeof advanceShares>) => s.map((x) => [x.tax_rate, x.gross.toFixed(2)]);

describe('advanceShares', () => {
  it('puts a payment of one rate whole on that rate', () => {
    expect(wire(advanceShares('12100', [at(21, '10000', '2100')]))).toEqual([['21', '12100.00']]);
  });

  it('splits a payment over the rates as the proforma asks at each, the rounding cent on the largest', () => {
    // 12 100 at 21 % and 1 120 at 12 %: 5 000 paid splits 4 576.40 / 423.60 (Σ 5 000.00)
    const shares = advanceShares('5000', [at(21, '10000', '2100'), at(12, '1000', '120')]);
    expect(wire(shares)).toEqual([
      ['21', '4576.40'],
      ['12', '423.60'],
    ]);
    // three equal rates: 100 / 3 leaves a cent, which the largest (the first of equals) takes
    const thirds = advanceShares('100', [at(21, '100', '21'), at(21, '100', '21'), at(21, '100', '21')]);
    expect(thirds.map((s) => s.gross.toFixed(2))).toEqual(['33.34', '33.33', '33.33']);
    expect(thirds.reduce((s, x) => s + Number(x.gross.toFixed(2)) * 100, 0)).toBe(10000);
  });

  it('leaves the zero-rated share untaxed and declares a refund negative', () => {
    expect(wire(advanceShares('2210', [at(21, '1000', '210'), at(0, '1000', '0')]))).toEqual([['21', '1210.00']]);
    expect(wire(advanceShares('-1210', [at(21, '10000', '2100')]))).toEqual([['21', '-1210.00']]);
  });

  it('declares nothing for nothing paid, an empty recap or a proforma of nothing', () => {
    expect(advanceShares('0', [at(21, '100', '21')])).toEqual([]);
    expect(advanceShares('100', [])).toEqual([]);
    expect(advanceShares('100', [at(21, '0', '0')])).toEqual([]);
  });
});

describe('taxableAdvance', () => {
  it('taxes what was paid up to the total, an overpayment never, a net refund down to nothing', () => {
    expect(taxableAdvance('5000', '12100').toFixed(2)).toBe('5000.00');
    expect(taxableAdvance('13000', '12100').toFixed(2)).toBe('12100.00');
    expect(taxableAdvance('-10', '12100').toFixed(2)).toBe('0.00');
  });
});
