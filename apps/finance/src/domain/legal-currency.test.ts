import { describe, expect, it } from 'vitest';
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
  const base = { amount: '121', currency: 'EUR', legalCurrency: 'CZK' };
  it('rates are 1 in the legal currency, whatever is sent', () => {
    expect(paymentLegal({ ...base, currency: 'CZK', fxRate: 25 })).toEqual({ legalCurrency: 'CZK', fxRate: '1', currencyCoef: '1', source: 'legal', amountLeg: '121.00' });
  });
  it('a given fx_rate (and currency_coef) wins over the document', () => {
    expect(paymentLegal({ ...base, fxRate: 25.5, document: { currency: 'EUR', fx_rate: 25, currency_coef: 1 } })).toMatchObject({ fxRate: '25.5', currencyCoef: '1', source: 'payment', amountLeg: '3085.50' });
    expect(paymentLegal({ ...base, amount: '1000', currency: 'HUF', fxRate: 6.123, currencyCoef: 100 })).toMatchObject({ amountLeg: '61.23', currencyCoef: '100' });
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
        expect.objectContaining({ status: 422, code: 'fx_rate_required', errors: [expect.objectContaining({ path: 'fx_rate', code: 'fx_rate_required' })] }),
      );
    }
  });
});

describe('settlementLeg: the paid document is cleared at its own legal value', () => {
  const invoice = { currency: 'EUR', fx_rate: 25, currency_coef: 1, total_amount: 121, total_amount_leg: 3025, amount_due: 121 };
  it('a full payment clears the legal total, signed like the cash movement', () => {
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '121', legalCurrency: 'CZK', document: invoice })).toBe('3025.00');
    expect(settlementLeg({ type: 'purchase_bill', currency: 'EUR', applied: '121', legalCurrency: 'CZK', document: invoice })).toBe('-3025.00');
  });
  it('parts add up to exactly the legal total (a tax rate other than fx_rate included)', () => {
    const doc = { currency: 'EUR', fx_rate: 25, currency_coef: 1, total_amount: 100.01, total_amount_leg: 2499.9, amount_due: 100.01 };
    const first = settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '33.33', legalCurrency: 'CZK', document: doc })!;
    const second = settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '33.33', legalCurrency: 'CZK', document: { ...doc, amount_due: 66.68 } })!;
    const third = settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '33.35', legalCurrency: 'CZK', document: { ...doc, amount_due: 33.35 } })!;
    expect((Number(first) * 100 + Number(second) * 100 + Number(third) * 100) / 100).toBe(2499.9);
  });
  it('a document in the legal currency clears at the applied amount; without legal figures at its fx_rate; else null', () => {
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '100', legalCurrency: 'CZK', document: { currency: 'CZK', total_amount: 298, amount_due: 298 } })).toBe('100.00');
    // nothing foreign: no settlement figure, the counter account takes the bank amount
    expect(settlementLeg({ type: 'sales_invoice', currency: 'CZK', applied: '298', legalCurrency: 'CZK', document: { currency: 'CZK', total_amount: 298, amount_due: 298 } })).toBeNull();
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '10', legalCurrency: 'CZK', document: { currency: 'EUR', fx_rate: 24.5, currency_coef: 1 } })).toBe('245.00');
    expect(settlementLeg({ type: 'sales_invoice', currency: 'EUR', applied: '10', legalCurrency: 'CZK', document: { currency: 'EUR' } })).toBeNull();
  });
});
