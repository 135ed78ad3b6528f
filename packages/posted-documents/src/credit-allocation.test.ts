import { describe, expect, it } from 'vitest';
import { allocationAmount } from './credit-allocation.js';
import { figuresAfterPayment } from './payment-application.js';

const rule = { words: { credit: 'credit_note', target: 'invoice', creditLabel: 'credit note', targetLabel: 'invoice', party: 'customer' } };
const credit = (amountDue: string, precision = 2) => ({ amountDue, precision, no: 'CN1' });
const invoice = (amountDue: string, precision = 2) => ({ amountDue, precision, no: 'INV1' });
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code: string; status: number; errors?: Array<{ path: string }> }).code + ' ' + (e as { errors?: Array<{ path: string }> }).errors?.map((x) => x.path).join(',');
  }
  return 'allowed';
};

describe('allocationAmount', () => {
  it('without an amount: the smaller of the two amounts due', () => {
    expect(allocationAmount(rule, credit('121.00'), invoice('298.00'), undefined).toFixed(2)).toBe('121.00');
    expect(allocationAmount(rule, credit('121.00'), invoice('100.10'), undefined).toFixed(2)).toBe('100.10');
    expect(allocationAmount(rule, credit('0.01'), invoice('0.01'), undefined).toFixed(2)).toBe('0.01');
  });

  it('without an amount and nothing due on either: nothing to allocate, naming the document', () => {
    expect(code(() => allocationAmount(rule, credit('0.00'), invoice('298.00'), undefined))).toBe('nothing_to_allocate invoice_id');
    expect(code(() => allocationAmount(rule, credit('121.00'), invoice('0.00'), undefined))).toBe('nothing_to_allocate invoice_id');
    // an overpaid document has a negative amount due
    expect(code(() => allocationAmount(rule, credit('121.00'), invoice('-5.00'), undefined))).toBe('nothing_to_allocate invoice_id');
  });

  it('an amount up to both amounts due, to the cent', () => {
    expect(allocationAmount(rule, credit('121.00'), invoice('298.00'), 121).toFixed(2)).toBe('121.00');
    expect(allocationAmount(rule, credit('121.00'), invoice('298.00'), 0.01).toFixed(2)).toBe('0.01');
    expect(code(() => allocationAmount(rule, credit('121.00'), invoice('298.00'), 121.01))).toBe('allocation_exceeds_credit amount');
    expect(code(() => allocationAmount(rule, credit('500.00'), invoice('298.00'), 298.01))).toBe('allocation_exceeds_due amount');
    // 0.1 + 0.2 is no concern: the amount is read as the decimal the JSON number was written as
    expect(allocationAmount(rule, credit('0.30'), invoice('0.30'), 0.3).toFixed(2)).toBe('0.30');
  });

  it('no more decimals than the less precise document', () => {
    expect(code(() => allocationAmount(rule, credit('121.00'), invoice('298.00'), 1.001))).toBe('validation_error amount');
    expect(code(() => allocationAmount(rule, credit('121.0000', 4), invoice('298.00', 2), 1.005))).toBe('validation_error amount');
    expect(allocationAmount(rule, credit('121.0000', 4), invoice('298.0000', 4), 1.0005).toFixed(4)).toBe('1.0005');
    expect(code(() => allocationAmount(rule, credit('121', 0), invoice('298', 0), 1.5))).toBe('validation_error amount');
    expect(code(() => allocationAmount(rule, credit('121.00'), invoice('298.00'), 1e-7))).toBe('validation_error amount');
  });
});

describe('figuresAfterPayment (what a payment and an allocation store)', () => {
  const doc = (amountPaid: string, totalAmount = '298.00', precision = 2) => ({ totalAmount, amountPaid, precision });
  it('moves amount paid by the delta, amount due and status following, at the document precision', () => {
    expect(figuresAfterPayment(doc('0.00'), '121')).toEqual({ amountPaid: '121.00', amountDue: '177.00', paymentStatus: 'partially_paid' });
    expect(figuresAfterPayment(doc('121.00'), '177.00')).toEqual({ amountPaid: '298.00', amountDue: '0.00', paymentStatus: 'paid' });
    expect(figuresAfterPayment(doc('298.00'), '0.01')).toEqual({ amountPaid: '298.01', amountDue: '-0.01', paymentStatus: 'overpaid' });
    // taken back
    expect(figuresAfterPayment(doc('121.00'), '-121')).toEqual({ amountPaid: '0.00', amountDue: '298.00', paymentStatus: 'unpaid' });
    expect(figuresAfterPayment(doc('0', '999', 0), 333)).toEqual({ amountPaid: '333', amountDue: '666', paymentStatus: 'partially_paid' });
  });
});
