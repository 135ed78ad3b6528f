import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assertCreditHeadroom, creditHeadroom } from './credit-limit.js';

describe('creditHeadroom', () => {
  it.each([
    // total, earlier credits, new credit, exceeds, credited after, left
    ['121.00', [], '121.00', false, '121', '121'],
    ['121.00', [], '121.01', true, '121.01', '121'],
    ['121.00', ['-100.00'], '-21.00', false, '121', '21'],
    ['121.00', ['-100.00'], '-21.01', true, '121.01', '21'],
    ['121.00', ['100.00', '21.00'], '0.01', true, '121.01', '0'],
    ['121.00', ['150.00'], '1', true, '151', '0'], // an earlier over-credit leaves nothing, never less than zero
    ['-50.00', [], '50.00', false, '50', '50'], // a negative document total counts by its size
    ['0.3', ['0.1', '0.1'], '0.1', false, '0.3', '0.1'], // exact decimals: 0.1 + 0.1 + 0.1 is 0.3
    ['1000', [], '0', false, '0', '1000'],
  ])('total %s, earlier %j, new %s → exceeds %s', (total, earlier, credit, exceeds, after, left) => {
    const r = creditHeadroom(total, earlier, credit);
    expect(r.exceeds).toBe(exceeds);
    expect(r.creditedAfter.toString()).toBe(after);
    expect(r.left.toString()).toBe(left);
  });

  it('crediting exactly what is left never exceeds; a cent more always does', () => {
    const cents = fc.integer({ min: 0, max: 10_000_000 });
    fc.assert(
      fc.property(cents, fc.array(cents, { maxLength: 6 }), (totalC, earlierC) => {
        const total = (totalC / 100).toFixed(2);
        const earlier = earlierC.map((c) => (c / 100).toFixed(2));
        const { left } = creditHeadroom(total, earlier, 0);
        if (left.isZero()) return;
        expect(creditHeadroom(total, earlier, left).exceeds).toBe(false);
        expect(creditHeadroom(total, earlier, left.plus('0.01')).exceeds).toBe(true);
        expect(creditHeadroom(total, earlier, left.negated()).exceeds).toBe(false);
      }),
    );
  });
});

describe('assertCreditHeadroom', () => {
  const base = { creditedTotal: '2420', earlierCredits: ['1210'], precision: 2, creditsOf: 'Vendor credits of bill B1', document: 'bill', code: 'credit_exceeds_document' };
  it('passes within what is left', () => {
    expect(() => assertCreditHeadroom({ ...base, credit: '1210.00' })).not.toThrow();
  });
  it('422 naming total_amount, with what can still be credited', () => {
    expect(() => assertCreditHeadroom({ ...base, credit: '1210.01' })).toThrow(
      expect.objectContaining({
        status: 422,
        code: 'credit_exceeds_document',
        message: 'Vendor credits of bill B1 would total 2420.01, above its total 2420.00; at most 1210.00 can still be credited',
        errors: [{ path: 'total_amount', message: 'exceeds what is left to credit on the bill', code: 'credit_exceeds_document' }],
      }),
    );
  });
});
