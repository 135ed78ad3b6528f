import { describe, expect, it } from 'vitest';
import { appliedAmount, completedPaidRecord } from './matching.js';
import { payoutTotal } from './payouts.js';

describe('appliedAmount: positive pays the document', () => {
  it('money in pays sales invoices and vendor credits; money out pays vendor bills and sales credit notes', () => {
    expect(appliedAmount('sales_invoice', '298')).toBe('298.00');
    expect(appliedAmount('purchase_vendor_credit', '1210')).toBe('1210.00');
    expect(appliedAmount('purchase_bill', '-298')).toBe('298.00');
    expect(appliedAmount('sales_credit_note', '-50.5')).toBe('50.50');
    // Money in on a bill (a vendor refund of a payment) takes a payment back.
    expect(appliedAmount('purchase_bill', '20')).toBe('-20.00');
  });
});

describe('payoutTotal', () => {
  it('sums the lines exactly in decimals', () => {
    expect(payoutTotal([{ amount: 100 }, { amount: -5 }], 95)).toBe('95.00');
    expect(payoutTotal([{ amount: 0.1 }, { amount: 0.2 }], 0.3)).toBe('0.30');
    expect(payoutTotal([{ amount: 10 }], null)).toBe('10.00');
    expect(payoutTotal([], undefined)).toBe('0.00');
  });

  it('refuses a total that differs from the lines with 422 naming total_amount', () => {
    expect(() => payoutTotal([{ amount: 100 }, { amount: -5 }], 1000)).toThrowError(
      expect.objectContaining({ status: 422, code: 'payout_total_mismatch', errors: [expect.objectContaining({ path: 'total_amount' })] }),
    );
  });
});

describe('completedPaidRecord', () => {
  it('keeps the client reference and completes it from the matched document', () => {
    expect(completedPaidRecord(null, null)).toBeNull();
    expect(completedPaidRecord({ type: 'purchase_bill', id: 9 }, null)).toEqual({ type: 'purchase_bill', id: 9 });
    expect(
      completedPaidRecord(
        { type: 'purchase_bill', no: 'BILL1' },
        { type: 'purchase_bill', id: 9, no: 'BILL1', amount: '1.00', currency: 'CZK', contact: { id: 1, business_name: 'A' } },
      ),
    ).toEqual({ type: 'purchase_bill', id: 9, no: 'BILL1', contact: { id: 1, business_name: 'A' } });
  });
});
