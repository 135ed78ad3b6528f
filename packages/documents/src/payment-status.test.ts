import { describe, expect, it } from 'vitest';
import { paymentStatus } from './payment-status.js';

describe('paymentStatus', () => {
  it.each([
    ['100.00', '0', 'unpaid'],
    ['100.00', '-5', 'unpaid'],
    ['100.00', '0.01', 'partially_paid'],
    ['100.00', '99.99', 'partially_paid'],
    ['100.00', '100', 'paid'],
    ['100.00', '100.01', 'overpaid'],
    ['0', '0', 'paid'],
    ['0.00', 0, 'paid'],
    ['0', '1', 'overpaid'],
    ['0', '-1', 'overpaid'],
    ['-100.00', '0', 'unpaid'],
    ['-100.00', '-40', 'partially_paid'],
    ['-100.00', '-100.00', 'paid'],
    ['-100.00', '-100.01', 'overpaid'],
    ['-100.00', '10', 'unpaid'],
  ] as const)('total %s, paid %s → %s', (total, paid, status) => {
    expect(paymentStatus(total, paid)).toBe(status);
  });

  it('compares decimals exactly, never as floats', () => {
    expect(paymentStatus('0.3', 0.1 + 0.2)).toBe('overpaid'); // 0.30000000000000004 as given
    expect(paymentStatus('0.3', '0.3000')).toBe('paid');
    expect(paymentStatus(298, '298.00')).toBe('paid');
  });
});
