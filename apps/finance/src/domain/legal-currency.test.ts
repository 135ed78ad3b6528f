import { describe, expect, it } from 'vitest';
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { paymentLegal, settlementLeg, toLegal } from './legal-currency.js';

describe('toLegal', () => {
  it('amount × fx_rate / currency_coef, half away from zero to the cent', () => {
    expect(toLegal('121', '25.5').toFixed(2)).toBe('3085.50');
    expect(toLegal('1000', '6.123', 100).toFixed(2)).toBe('61.23');
    expect(toLegal('0.01', '0.5').toFixed(2)).toBe('0.01');
    expect(toLegal('-0.01', '0.5').toFixed(2)).toBe('-0.01');
  });
});

describe('paymentLegal', () => {
  const base = { amount: '121', currency: 'EUR', legalCurrency: 'CZK', date: '2026-03-02' };
  const cnb = { currency: 'EUR', amount: 1, rate: '24.365', rate_date: '2026-02-27', source: 'cnb' as const };
  it('rates are 1 in the legal currency, whatever is sent', () => {
    expect(paymentLegal({ ...base, currency: 'CZK', fxRate: 25 })).toEqual({ legalCurrency: 'CZK', fxRate: '1', currencyCoef: '1', source: 'legal', rateDate: null, amountLeg: '121.00' });
  });
  it('a given fx_rate (and currency_coef) wins over the document', () => {
    expect(paymentLegal({ ...base, fxRate: 25.5, document: { currency: 'EUR', fx_rate: 25, currency_coef: 1 } })).toMatchObject({ fxRate: '25.5', currencyCoef: '1', source: 'payment', amountLeg: '3085.50' });
    expect(paymentLegal({ ...base, amount: '1000', currency: 'HUF', fxRate: 6.123, currencyCoef: 100 })).toMatchObject({ amountLeg: '61.23', currencyCoef: '100' });
  });
  it("without one, the table's rate in force on the booking day, before the paid document's", () => {
    expect(paymentLegal({ ...base, tableRate: cnb, document: { currency: 'EUR', fx_rate: 25, currency_coef: 1 } })).toEqual({
      legalCurrency: 'CZK',
      fxRate: '24.365',
      currencyCoef: '1',
      source: 'cnb',
      rateDate: '2026-02-27',
      amountLeg: '2948.17',
    });
    expect(paymentLegal({ ...base, amount: '1000', currency: 'HUF', tableRate: { ...cnb, currency: 'HUF', amount: 100, rate: '6.123' } })).toMatchObject({ amountLeg: '61.23', currencyCoef: '100' });
    // a stored rate priced again keeps where it came from
    expect(paymentLegal({ ...base, fxRate: 24.365, stated: { source: 'cnb', rateDate: '2026-02-27' } })).toMatchObject({ source: 'cnb', rateDate: '2026-02-27', amountLeg: '2948.17' });
  });
  it('without one, the paid document in the same currency gives its rate', () => {
    expect(paymentLegal({ ...base, document: { currency: 'EUR', fx_rate: 25, currency_coef: 1 } })).toMatchObject({ fxRate: '25', source: 'paid_document', amountLeg: '3025.00' });
  });
  it('a document in the legal currency with payment_amount: that amount is the legal value', () => {
    expect(paymentLegal({ ...base, amount: '-4', paymentAmount: -100, document: { currency: 'CZK', fx_rate: 1, currency_coef: 1 } })).toMatchObject({ fxRate: '25', source: 'payment_amount', amountLeg: '-100.00' });
  });
  it('otherwise 422 fx_rate_required naming fx_rate', () => {
    const czkDoc = { currency: 'CZK', fx_rate: 1, currency_coef: 1 };
    expect(() => paymentLegal({ ...base, amount: '0.01', paymentAmount: 1e9, document: czkDoc })).toThrowError(expect.objectContaining({ code: 'fx_rate_required' }));
    for (const document of [null, { currency: 'USD', fx_rate: 22, currency_coef: 1 }, czkDoc]) {
      expect(() => paymentLegal({ ...base, document })).toThrowError(
        expect.objectContaining({
          status: 422,
          code: 'fx_rate_required',
          message: expect.stringContaining('No EUR rate to CZK in force on 2026-03-02'),
          errors: [expect.objectContaining({ path: 'fx_rate', code: 'fx_rate_required' })],
        }),
      );
    }
  });
});

describe('settlementLeg: the paid document is cleared at its own legal value', () => {
  const NOTHING = { applied: 0, clearedLeg: 0 };
  const invoice = { currency: 'EUR', fx_rate: 25, currency_coef: 1, total_amount: 121, total_amount_leg: 3025 };
  it('a full payment clears the legal total, signed like the cash movement', () => {
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '121', legalCurrency: 'CZK', document: invoice, before: NOTHING })).toBe('3025.00');
    expect(settlementLeg({ type: 'purchase_bill', currency: 'EUR', applied: '121', legalCurrency: 'CZK', document: invoice, before: NOTHING })).toBe('-3025.00');
  });
  it('parts add up to exactly the legal total (a tax rate other than fx_rate included)', () => {
    const doc = { currency: 'EUR', fx_rate: 25, currency_coef: 1, total_amount: 100.01, total_amount_leg: 2499.9 };
    const first = settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '33.33', legalCurrency: 'CZK', document: doc, before: NOTHING })!;
    expect(first).toBe('833.13'); // round(2499.90 × 33.33 / 100.01 = 833.1333…)
    const second = settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '33.33', legalCurrency: 'CZK', document: doc, before: { applied: '33.33', clearedLeg: first } })!;
    const third = settlementLeg({
      type: 'sales_invoice',
      currency: 'EUR',
      applied: '33.35',
      legalCurrency: 'CZK',
      document: doc,
      before: { applied: '66.66', clearedLeg: new Decimal(first).plus(second) },
    })!;
    expect(new Decimal(first).plus(second).plus(third).toFixed(2)).toBe('2499.90');
  });
  it("an advance is held at what was paid: a proforma's or an advance bill's payment clears nothing at the document's rate", () => {
    const proforma = { currency: 'EUR', fx_rate: 25, currency_coef: 1, total_amount: 121, total_amount_leg: null };
    expect(settlementLeg({ type: 'sales_proforma', currency: 'EUR', applied: '121', legalCurrency: 'CZK', document: proforma, before: NOTHING })).toBeNull();
    expect(settlementLeg({ type: 'purchase_advance', currency: 'EUR', applied: '121', legalCurrency: 'CZK', document: { ...proforma, total_amount_leg: 3025 }, before: NOTHING })).toBeNull();
  });
  it("a final document's payments clear the rest after its advances, at the rest's legal value", () => {
    // 1 210 EUR, 30 250 CZK in all; 605 EUR deducted at the advance's 15 427.50: the other 605 are 14 822.50 (24.50 a euro)
    const final = { currency: 'EUR', fx_rate: 24.5, currency_coef: 1, total_amount: 1210, total_amount_leg: 30250, advance_amount: 605, advance_amount_leg: 15427.5 };
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '605', legalCurrency: 'CZK', document: final, before: NOTHING })).toBe('14822.50');
    const half = settlementLeg({ type: 'purchase_bill', currency: 'EUR', applied: '302.50', legalCurrency: 'CZK', document: final, before: NOTHING })!;
    expect(half).toBe('-7411.25');
    expect(settlementLeg({ type: 'purchase_bill', currency: 'EUR', applied: '302.50', legalCurrency: 'CZK', document: final, before: { applied: '302.50', clearedLeg: '7411.25' } })).toBe('-7411.25');
    // wholly deducted: an overpayment clears at the document's rate
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '10', legalCurrency: 'CZK', document: { ...final, advance_amount: 1210, advance_amount_leg: 30855 }, before: NOTHING })).toBe('245.00');
  });
  it('what earlier payments actually cleared is what counts, so an odd earlier figure is absorbed by the next', () => {
    // an earlier payment of 60.50 cleared 1500.00 (not the proportional 1512.50): the rest clears 1525.00
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '60.50', legalCurrency: 'CZK', document: invoice, before: { applied: '60.50', clearedLeg: '1500' } })).toBe('1525.00');
  });
  it('any split of a document into payments clears exactly its legal total', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 8 }),
        fc.constantFrom('sales_invoice', 'purchase_bill') as fc.Arbitrary<'sales_invoice' | 'purchase_bill'>,
        (totalCents, totalLegCents, weights, type) => {
          const total = new Decimal(totalCents).div(100);
          const totalLeg = new Decimal(totalLegCents).div(100);
          // split the total into cent parts by the weights, the last part taking the rest
          const sumW = weights.reduce((a, b) => a + b, 0);
          const parts: Decimal[] = [];
          let left = total;
          weights.forEach((w, i) => {
            const part = i === weights.length - 1 ? left : total.times(w).div(sumW).toDecimalPlaces(2, Decimal.ROUND_DOWN);
            parts.push(part);
            left = left.minus(part);
          });
          const doc = { currency: 'EUR', total_amount: total.toNumber(), total_amount_leg: totalLeg.toNumber() };
          let applied = new Decimal(0);
          let cleared = new Decimal(0);
          const sign = type === 'sales_invoice' ? 1 : -1;
          for (const part of parts) {
            const s = settlementLeg({ type, currency: 'EUR', applied: part, legalCurrency: 'CZK', document: doc, before: { applied, clearedLeg: cleared } })!;
            applied = applied.plus(part);
            cleared = cleared.plus(new Decimal(s).times(sign));
          }
          expect(cleared.toFixed(2)).toBe(totalLeg.toFixed(2));
        },
      ),
    );
  });
  it('a document in the legal currency clears at the applied amount; without legal figures at its fx_rate; else null', () => {
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '100', legalCurrency: 'CZK', document: { currency: 'CZK', total_amount: 298 }, before: NOTHING })).toBe('100.00');
    // nothing foreign: no settlement figure, the counter account takes the bank amount
    expect(settlementLeg({ type: 'sales_invoice', currency: 'CZK', applied: '298', legalCurrency: 'CZK', document: { currency: 'CZK', total_amount: 298 }, before: NOTHING })).toBeNull();
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '10', legalCurrency: 'CZK', document: { currency: 'EUR', fx_rate: 24.5, currency_coef: 1 }, before: NOTHING })).toBe('245.00');
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '10', legalCurrency: 'CZK', document: { currency: 'EUR' }, before: NOTHING })).toBeNull();
  });
});
