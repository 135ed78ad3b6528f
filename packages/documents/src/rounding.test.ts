import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Dec } from '@ledgerline/core/money';
import { computeDocument } from './document-math.js';
import { DocumentValidationError } from './errors.js';
import { incrementProblem, roundingToIncrement } from './rounding.js';
import type { DocumentInput } from './types.js';

const VAT21 = { tax_code: 'S21', tax_rate: 21 };
const VAT12 = { tax_code: 'S12', tax_rate: 12 };
const czk = (partial: Partial<DocumentInput>): DocumentInput => ({ currency: 'CZK', legal_currency: 'CZK', ...partial });

describe('roundingToIncrement', () => {
  it.each([
    ['1210.40', '1', '-0.4'],
    ['1210.50', '1', '0.5'],
    ['1210.49', '1', '-0.49'],
    ['1210.51', '1', '0.49'],
    ['1210.00', '1', '0'],
    ['-1210.50', '1', '-0.5'],
    ['-1210.49', '1', '0.49'],
    ['10.024', '0.05', '-0.024'],
    ['10.025', '0.05', '0.025'],
    ['10.07', '0.05', '-0.02'],
    ['10.075', '0.05', '0.025'],
    ['7.49', '0.5', '0.01'],
    ['7.24', '0.5', '-0.24'],
    ['12.50', '5', '2.5'],
    ['12.49', '5', '-2.49'],
    ['1234.56', '10', '-4.56'],
    ['0.01', '1', '-0.01'],
    ['0', '1', '0'],
  ])('%s to a multiple of %s adds %s', (total, increment, expected) => {
    expect(roundingToIncrement(total, increment).toFixed()).toBe(expected);
  });

  it('makes any total a multiple of the increment, by at most half of it, halves away from zero', () => {
    const increments = ['0.01', '0.05', '0.1', '0.5', '1', '5', '10'];
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.constantFrom(...increments), (cents, inc) => {
        const total = new Dec(cents.toString()).div(100);
        const step = new Dec(inc);
        const r = roundingToIncrement(total, step);
        const rounded = total.plus(r);
        expect(rounded.mod(step).isZero()).toBe(true);
        expect(r.abs().lte(step.div(2))).toBe(true);
        if (r.abs().eq(step.div(2))) expect(rounded.abs().gt(total.abs())).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('incrementProblem', () => {
  it.each([
    ['1', 2, null],
    ['0.05', 2, null],
    ['10', 0, null],
    ['0.01', 2, null],
    ['0.0001', 4, null],
    ['0', 2, 'must be greater than 0 (null rounds nothing)'],
    ['-1', 2, 'must be greater than 0 (null rounds nothing)'],
    ['10.01', 2, 'must be at most 10'],
    ['100', 2, 'must be at most 10'],
    ['0.05', 0, "must be a multiple of the document's smallest unit (0 decimal places)"],
    ['0.001', 2, "must be a multiple of the document's smallest unit (2 decimal places)"],
  ])('%s for a document of %s decimals: %s', (increment, precision, expected) => {
    expect(incrementProblem(new Dec(increment), precision)).toBe(expected);
  });
});

describe('computeDocument with rounding', () => {
  it('rounds a Czech invoice to whole crowns after VAT: 1 000.33 + 21 % = 1 210.40 → 1 210, VAT unchanged', () => {
    const r = computeDocument(czk({ rounding_increment: 1, items: [{ qty: 1, rate: '1000.33', taxes: [VAT21] }] }));
    expect(r).toMatchObject({
      subtotal_amount: '1000.33',
      tax_amount: '210.07',
      rounding_increment: '1',
      rounding_amount: '-0.40',
      total_amount: '1210.00',
      amount_due: '1210.00',
      rounding_amount_leg: '-0.40',
      total_amount_leg: '1210.00',
    });
    expect(r.taxes[0]).toMatchObject({ tax_base: '1000.33', tax_amount: '210.07' });
  });

  it('rounds up at a half: two rates, 605.00 + 112.50 = 717.50 → 718', () => {
    const r = computeDocument(czk({ rounding_increment: '1', items: [{ qty: 1, rate: 500, taxes: [VAT21] }, { qty: 1, rate: '100.4464', taxes: [VAT12] }] }));
    expect(r.subtotal_amount).toBe('600.45');
    expect(r.tax_amount).toBe('117.05');
    expect(r.rounding_amount).toBe('0.50');
    expect(r.total_amount).toBe('718.00');
  });

  it('leaves a total that is already whole, and a document without an increment, unrounded', () => {
    expect(computeDocument(czk({ rounding_increment: 1, items: [{ qty: 1, rate: 100, taxes: [VAT21] }] }))).toMatchObject({ rounding_amount: '0.00', total_amount: '121.00' });
    expect(computeDocument(czk({ items: [{ qty: 1, rate: '1000.33', taxes: [VAT21] }] }))).toMatchObject({
      rounding_increment: null,
      rounding_amount: '0.00',
      total_amount: '1210.40',
      rounding_amount_leg: '0.00',
    });
  });

  it('gross prices: 99.90 gross → 100 with a rounding of 0.10', () => {
    const r = computeDocument(czk({ taxes_included: true, rounding_increment: 1, items: [{ qty: 1, rate: '99.90', taxes: [VAT21] }] }));
    expect(r).toMatchObject({ subtotal_amount: '82.56', tax_amount: '17.34', rounding_amount: '0.10', total_amount: '100.00' });
  });

  it('a foreign-currency document: the rounding converted at the document rate, the legal figures reconcile', () => {
    const r = computeDocument({ currency: 'EUR', legal_currency: 'CZK', fx_rate: '25.125', rounding_increment: 1, items: [{ qty: 3, rate: '33.17', taxes: [VAT21] }] });
    expect(r).toMatchObject({ subtotal_amount: '99.51', tax_amount: '20.90', rounding_amount: '-0.41', total_amount: '120.00' });
    expect(r.rounding_amount_leg).toBe('-10.30');
    expect(new Dec(r.subtotal_amount_leg).plus(r.tax_amount_leg).plus(r.rounding_amount_leg).toFixed(2)).toBe(r.total_amount_leg);
  });

  it('a stated rounding (an imported e-invoice) is taken as it is', () => {
    const r = computeDocument({ currency: 'NOK', legal_currency: 'NOK', rounding_amount: '0.22', items: [{ qty: 1, rate: '1441.42', taxes: [{ tax_rate: 25 }] }] });
    expect(r).toMatchObject({ tax_amount: '360.36', rounding_amount: '0.22', total_amount: '1802.00', rounding_increment: null });
  });

  it('a credit note (negative total) rounds away from zero too', () => {
    const r = computeDocument(czk({ rounding_increment: 1, items: [{ qty: -1, rate: '1000.33', taxes: [VAT21] }] }));
    expect(r).toMatchObject({ total_amount: '-1210.00', rounding_amount: '0.40' });
  });

  it('refuses an unusable increment or stated rounding with 400 naming the field', () => {
    const refused = (partial: Partial<DocumentInput>) => {
      try {
        computeDocument(czk({ items: [{ qty: 1, rate: 1, taxes: [VAT21] }], ...partial }));
      } catch (e) {
        expect(e).toBeInstanceOf(DocumentValidationError);
        return (e as DocumentValidationError).errors?.map((x) => `${x.path}: ${x.message}`);
      }
      throw new Error('accepted');
    };
    expect(refused({ rounding_increment: 0 })).toEqual(['rounding_increment: must be greater than 0 (null rounds nothing)']);
    expect(refused({ rounding_increment: 20 })).toEqual(['rounding_increment: must be at most 10']);
    expect(refused({ precision: 0, rounding_increment: '0.5' })).toEqual(["rounding_increment: must be a multiple of the document's smallest unit (0 decimal places)"]);
    expect(refused({ rounding_increment: 'x' })).toEqual(['rounding_increment: must be a finite decimal number']);
    expect(refused({ rounding_amount: '5.01' })).toEqual(['rounding_amount: must be at most 5']);
    expect(refused({ rounding_amount: '0.001' })).toEqual(['rounding_amount: has more than 2 decimal places']);
    expect(refused({ rounding_amount: '0.5', rounding_increment: 1 })).toEqual(['rounding_amount: a document states its rounding or the increment it is rounded to, not both']);
  });
});
