import { dec, type DecimalInput } from '@ledgerline/core/money';
import type { PaymentStatus } from './types.js';

/**
 * Payment status of a document from its total and the amount paid on it, compared exactly.
 * A negative total is treated like a positive one with both figures negated. A zero total is `paid`
 * while nothing is paid on it and `overpaid` once anything is.
 */
export function paymentStatus(total: DecimalInput, paid: DecimalInput): PaymentStatus {
  let t = dec(total);
  let p = dec(paid);
  if (t.lt(0)) {
    t = t.negated();
    p = p.negated();
  }
  if (t.isZero()) return p.isZero() ? 'paid' : 'overpaid';
  if (p.lte(0)) return 'unpaid';
  if (p.lt(t)) return 'partially_paid';
  if (p.eq(t)) return 'paid';
  return 'overpaid';
}
