import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Dec, roundMoney } from '@ledgerline/core/money';
import { allocateDiscount, type DiscountRule } from './discount-allocation.js';
import { DocumentRuleError } from './errors.js';

const targets = (...amounts: string[]) => amounts.map((a) => ({ amount: new Dec(a) }));
const rule = (value: string, value_type: DiscountRule['value_type'], allocation_method: DiscountRule['allocation_method']): DiscountRule => ({
  value: new Dec(value),
  value_type,
  allocation_method,
});
const strings = (xs: InstanceType<typeof Dec>[], p = 2) => xs.map((x) => x.toFixed(p));

describe('allocateDiscount', () => {
  it('percentage each rounds per line', () => {
    expect(strings(allocateDiscount(targets('0.05', '0.05', '0.05'), rule('10', 'percentage', 'each'), 2))).toEqual(['0.01', '0.01', '0.01']);
  });

  it('percentage across settles to round(total × %), remainder on the largest line', () => {
    expect(strings(allocateDiscount(targets('0.05', '0.05', '0.05'), rule('10', 'percentage', 'across'), 2))).toEqual(['0.00', '0.01', '0.01']);
    expect(strings(allocateDiscount(targets('0.05', '0.07', '0.05'), rule('10', 'percentage', 'across'), 2))).toEqual(['0.01', '0.00', '0.01']);
  });

  it('fixed across sums exactly to the value', () => {
    expect(strings(allocateDiscount(targets('1', '1', '1'), rule('1', 'fixed_amount', 'across'), 2))).toEqual(['0.34', '0.33', '0.33']);
    expect(strings(allocateDiscount(targets('1', '2'), rule('1', 'fixed_amount', 'across'), 2))).toEqual(['0.33', '0.67']);
    expect(strings(allocateDiscount(targets('5', '5'), rule('10', 'fixed_amount', 'across'), 0), 0)).toEqual(['5', '5']);
  });

  it('fixed across rounds the value to the precision first', () => {
    expect(strings(allocateDiscount(targets('10', '10'), rule('1.005', 'fixed_amount', 'across'), 2))).toEqual(['0.50', '0.51']);
  });

  it('the remainder spills over when the largest line cannot take it', () => {
    // ten lines of 0.01, 0.05 off: each raw share 0.005 rounds up to 0.01 (0.10 in all); −0.05 must be
    // taken back, at most 0.01 from any line, largest (here: first) lines first.
    const out = allocateDiscount(targets(...Array(10).fill('0.01')), rule('0.05', 'fixed_amount', 'across'), 2);
    expect(strings(out)).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00', '0.01', '0.01', '0.01', '0.01', '0.01']);
  });

  it('ties are broken by tieKey before position', () => {
    const t = [
      { amount: new Dec(100), tieKey: 'b' },
      { amount: new Dec(100), tieKey: 'a' },
    ];
    expect(strings(allocateDiscount(t, rule('0.01', 'fixed_amount', 'across'), 2))).toEqual(['0.01', '0.00']);
  });

  it('fixed each caps at each line', () => {
    expect(strings(allocateDiscount(targets('100', '3', '0', '-2'), rule('5', 'fixed_amount', 'each'), 2))).toEqual(['5.00', '3.00', '0.00', '-2.00']);
  });

  it('refuses a fixed across value above the total, or with nothing to spread over', () => {
    expect(() => allocateDiscount(targets('1', '2'), rule('3.01', 'fixed_amount', 'across'), 2)).toThrow(DocumentRuleError);
    expect(() => allocateDiscount(targets('1', '-1'), rule('1', 'fixed_amount', 'across'), 2)).toThrow(DocumentRuleError);
    expect(() => allocateDiscount([], rule('1', 'fixed_amount', 'across'), 2)).toThrow(DocumentRuleError);
    expect(allocateDiscount([], rule('0', 'fixed_amount', 'across'), 2)).toEqual([]);
    expect(allocateDiscount([], rule('10', 'percentage', 'across'), 2)).toEqual([]);
    expect(strings(allocateDiscount(targets('1', '2'), rule('3', 'fixed_amount', 'across'), 2))).toEqual(['1.00', '2.00']);
  });
});

describe('allocateDiscount properties', () => {
  const precision = fc.integer({ min: 0, max: 4 });
  const amountsAt = (p: number, signed: boolean) =>
    fc.array(fc.integer({ min: signed ? -1_000_000 : 0, max: 1_000_000 }), { minLength: 1, maxLength: 12 }).map((xs) =>
      xs.map((x) => new Dec(x).div(new Dec(10).pow(p))),
    );
  const sum = (xs: InstanceType<typeof Dec>[]) => xs.reduce((a, x) => a.plus(x), new Dec(0));

  it('fixed across: shares sum exactly to the value and stay within [0, line amount]', () => {
    fc.assert(
      fc.property(
        precision.chain((p) => fc.tuple(fc.constant(p), amountsAt(p, false), fc.double({ min: 0, max: 1, noNaN: true }))),
        ([p, amounts, frac]) => {
          const total = sum(amounts);
          fc.pre(total.gt(0));
          const value = roundMoney(total.times(new Dec(frac)), p); // any value up to the total
          const shares = allocateDiscount(amounts.map((amount) => ({ amount })), rule(value.toFixed(), 'fixed_amount', 'across'), p);
          expect(sum(shares).eq(value)).toBe(true);
          shares.forEach((s, i) => {
            expect(s.gte(0) && s.lte(amounts[i])).toBe(true);
            expect(s.decimalPlaces()).toBeLessThanOrEqual(p);
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('percentage across: shares sum to round(total × %) and stay within [0, line amount]', () => {
    fc.assert(
      fc.property(
        precision.chain((p) => fc.tuple(fc.constant(p), amountsAt(p, false), fc.integer({ min: 0, max: 10_000 }))),
        ([p, amounts, pctHundredths]) => {
          const pct = new Dec(pctHundredths).div(100);
          const shares = allocateDiscount(amounts.map((amount) => ({ amount })), rule(pct.toFixed(), 'percentage', 'across'), p);
          expect(sum(shares).eq(roundMoney(sum(amounts).times(pct).div(100), p))).toBe(true);
          shares.forEach((s, i) => expect(s.gte(0) && s.lte(amounts[i])).toBe(true));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('mixed signs: shares sum to the value in the direction of the total', () => {
    fc.assert(
      fc.property(
        precision.chain((p) => fc.tuple(fc.constant(p), amountsAt(p, true), fc.double({ min: 0, max: 1, noNaN: true }))),
        ([p, amounts, frac]) => {
          const total = sum(amounts);
          fc.pre(!total.isZero());
          const value = roundMoney(total.abs().times(new Dec(frac)), p);
          const shares = allocateDiscount(amounts.map((amount) => ({ amount })), rule(value.toFixed(), 'fixed_amount', 'across'), p);
          expect(sum(shares).eq(total.lt(0) ? value.negated() : value)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('negating the lines negates the shares, for every kind of discount', () => {
    fc.assert(
      fc.property(
        precision.chain((p) => fc.tuple(fc.constant(p), amountsAt(p, true))),
        fc.constantFrom('percentage', 'fixed_amount'),
        fc.constantFrom('across', 'each'),
        fc.integer({ min: 0, max: 10_000 }),
        ([p, amounts], type, method, v) => {
          const value = new Dec(v).div(100).toFixed();
          const r = rule(value, type, method);
          let pos: InstanceType<typeof Dec>[];
          try {
            pos = allocateDiscount(amounts.map((amount) => ({ amount })), r, p);
          } catch (e) {
            expect(e).toBeInstanceOf(DocumentRuleError);
            expect(() => allocateDiscount(amounts.map((a) => ({ amount: a.negated() })), r, p)).toThrow(DocumentRuleError);
            return;
          }
          const neg = allocateDiscount(amounts.map((a) => ({ amount: a.negated() })), r, p);
          neg.forEach((s, i) => expect(s.eq(pos[i].negated())).toBe(true));
        },
      ),
      { numRuns: 500 },
    );
  });
});
