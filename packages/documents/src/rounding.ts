import Decimal from 'decimal.js';
import { Dec, type DecimalInput } from '@ledgerline/core/money';

/*
 * Rounding of a document's total (EN 16931 BT-114, "zaokrouhlení" on Czech documents): the
 * amount added to the total with VAT so that what the customer pays is a multiple of a unit —
 * whole crowns in Czechia, 0.05 francs in Switzerland. VAT is computed before it and does not
 * change; the rounding is posted to its own account (architecture §6).
 */

/** The largest increment a total is rounded to; the rounding is then never more than half of it. */
export const MAX_ROUNDING_INCREMENT = 10;
/** The largest rounding a document may state (an imported e-invoice's BT-114), either way. */
export const MAX_ROUNDING_AMOUNT = MAX_ROUNDING_INCREMENT / 2;

/**
 * What to add to `total` to make it the nearest multiple of `increment`, halves away from zero
 * (as the Czech rule rounds: 10.50 → 11, −10.50 → −11). Zero when the total is already one.
 */
export function roundingToIncrement(total: DecimalInput, increment: DecimalInput): Dec {
  const t = new Dec(total);
  const step = new Dec(increment);
  const rounded = t.div(step).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).times(step);
  const r = rounded.minus(t);
  return r.isZero() ? new Dec(0) : r;
}

/**
 * Why an increment cannot round a document of `precision` decimals, or null when it can: it is
 * positive, at most MAX_ROUNDING_INCREMENT and a multiple of the document's smallest unit (0.05
 * cannot round a document kept in whole crowns).
 */
export function incrementProblem(increment: Dec, precision: number): string | null {
  if (!increment.gt(0)) return 'must be greater than 0 (null rounds nothing)';
  if (increment.gt(MAX_ROUNDING_INCREMENT)) return `must be at most ${MAX_ROUNDING_INCREMENT}`;
  if (increment.decimalPlaces() > precision) return `must be a multiple of the document's smallest unit (${precision} decimal places)`;
  return null;
}
