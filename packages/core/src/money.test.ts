import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Decimal from 'decimal.js';
import { AMOUNT_LIMIT, Dec, figuresOverLimit, overAmountLimit, roundMoney, toDb, toWire } from './money.js';

/*
 * The money conversions on every view and every stored figure have fast paths that read plain
 * decimal strings without the decimal library; each must answer exactly what the library's
 * general path answers, for every input.
 */

const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
/** Plain decimal strings as Postgres and toDb write them, and the odd ones a caller might pass. */
const plainDecimal = fc
  .tuple(fc.boolean(), digits(1, 22), fc.option(digits(1, 12), { nil: undefined }))
  .map(([neg, whole, frac]) => `${neg ? '-' : ''}${whole}${frac === undefined ? '' : `.${frac}`}`);
const edges = [
  '0', '-0', '0.00', '-0.00', '000.000', '10000000000000', '-10000000000000', '10000000000000.00', '10000000000000.01',
  '-10000000000000.001', '9999999999999.999', '00010000000000000', '0009999999999999', '99999999999999', '1e13', '1E14',
  '123456789012345678901234567890.123456789', '0.1', '0.30000000000000004', '9007199254740993', '-1.005', '2.675',
];
const general = {
  toWire: (v: string) => new Dec(v).toNumber(),
  // the library alone: a Dec rounded half away from zero, written at the scale
  toDb: (v: Decimal.Value, p: number) => {
    const r = new Dec(v).toDecimalPlaces(p, Decimal.ROUND_HALF_UP);
    return (r.isZero() ? r.abs() : r).toFixed(p);
  },
  over: (v: Decimal.Value) => new Dec(v).abs().gt(AMOUNT_LIMIT),
};

describe('money fast paths agree with the decimal library', () => {
  it('toWire of a plain decimal string is the double the library gives, sign of zero included', () => {
    for (const v of edges) expect(Object.is(toWire(v), general.toWire(v)), v).toBe(true);
    fc.assert(fc.property(plainDecimal, (v) => Object.is(toWire(v), general.toWire(v))), { numRuns: 20_000 });
  });

  it('toDb rounds half away from zero to the precision, from strings, numbers and Decimals', () => {
    for (const v of edges) for (const p of [0, 2, 3, 4]) expect(toDb(v, p), `${v} @ ${p}`).toBe(general.toDb(v, p));
    fc.assert(
      fc.property(plainDecimal, fc.integer({ min: 0, max: 6 }), (v, p) => {
        const fromDecimal = new Dec(v).times('1.0001');
        // a Decimal that already fits the scale (or not): only written out, never rounded
        const fitting = new Dec(v);
        const negated = fitting.neg();
        return [v, fromDecimal, fitting, negated].every((x) => toDb(x, p) === general.toDb(x, p));
      }),
      { numRuns: 20_000 },
    );
    expect(toDb('-1.005')).toBe('-1.01');
    expect(toDb('2.675')).toBe('2.68');
    expect(toDb('-0.001')).toBe('0.00'); // never a negative zero
    expect(toDb('-0.10', 0)).toBe('0');
    expect(toDb(new Decimal('1.005'))).toBe('1.01'); // a Decimal of the base library, not of Dec
    // Decimals that fit the scale are padded, in plain notation whatever their exponent
    expect(toDb(new Dec('-0'))).toBe('0.00');
    expect(toDb(new Dec('-0'), 0)).toBe('0');
    expect(toDb(new Dec('1e21'))).toBe('1000000000000000000000.00');
    expect(toDb(new Dec('-12.5'), 4)).toBe('-12.5000');
    expect(toDb(new Dec('7'), 0)).toBe('7');
    expect(toDb(new Dec('0.05'), 2)).toBe('0.05');
    expect(toDb(new Dec('1e-30'), 2)).toBe('0.00');
    expect(toDb(new Dec('-1e-30'), 2)).toBe('0.00');
    for (const v of edges) for (const p of [0, 2, 3, 4]) expect(toDb(new Dec(v), p), `Dec ${v} @ ${p}`).toBe(general.toDb(v, p));
  });

  it('roundMoney answers a Dec rounded half away from zero, whatever it was given', () => {
    fc.assert(
      fc.property(plainDecimal, fc.integer({ min: 0, max: 6 }), (v, p) => {
        const fromString = roundMoney(v, p);
        const fromDec = roundMoney(new Dec(v), p);
        const fromBase = roundMoney(new Decimal(v), p);
        const expected = new Dec(v).toDecimalPlaces(p, Decimal.ROUND_HALF_UP);
        return [fromString, fromDec, fromBase].every((r) => r.constructor === Dec && r.eq(expected));
      }),
      { numRuns: 10_000 },
    );
    const d = new Dec('2.675');
    expect(roundMoney(d).toFixed()).toBe('2.68');
    expect(d.toFixed()).toBe('2.675'); // the argument is left as it was
    const fits = new Dec('2.5');
    expect(roundMoney(fits)).toBe(fits); // already at the precision: answered as it is (decimals are immutable)
    expect(roundMoney(new Decimal('2.5')).constructor).toBe(Dec); // but always a Dec
  });

  it('overAmountLimit reads the magnitude from the digits exactly, 10^13 itself within', () => {
    for (const v of edges) expect(overAmountLimit(v), v).toBe(general.over(v));
    expect(overAmountLimit('10000000000000.00')).toBe(false);
    expect(overAmountLimit('-10000000000000.001')).toBe(true);
    expect(overAmountLimit('00010000000000000')).toBe(false);
    expect(overAmountLimit(new Dec('10000000000000.0000000001'))).toBe(true);
    fc.assert(fc.property(plainDecimal, (v) => overAmountLimit(v) === general.over(v)), { numRuns: 20_000 });
    // around the limit, where the digit count alone does not decide
    fc.assert(
      fc.property(fc.boolean(), digits(0, 3), fc.option(digits(1, 8), { nil: undefined }), (neg, zeros, frac) => {
        const v = `${neg ? '-' : ''}${zeros}10000000000000${frac === undefined ? '' : `.${frac}`}`;
        return overAmountLimit(v) === general.over(v);
      }),
      { numRuns: 5_000 },
    );
  });

  it('figuresOverLimit names each figure beyond the limit and only those', () => {
    expect(figuresOverLimit([['a', '10000000000000.00'], ['b', '-10000000000000.01'], ['c', null], ['d', new Dec('1e14')]]).map((f) => f.path)).toEqual(['b', 'd']);
  });
});
