import { Dec, roundMoney } from '@ledgerline/core/money';
import { DocumentRuleError } from './errors.js';
import type { DiscountAllocationMethod, DiscountValueType } from './types.js';

type Decimal = Dec;

export interface AllocationTarget {
  /** The line's current amount (already at the document precision). */
  amount: Decimal;
  /**
   * Breaks ties between lines of equal amount when choosing where the rounding remainder goes, so the
   * choice does not depend on line order. Lines with equal amount and key must be interchangeable for
   * the document totals (the tax signature of the line is a good key).
   */
  tieKey?: string;
}

export interface DiscountRule {
  /** Percent for `percentage`; amount for `fixed_amount` (rounded to `precision` first). Never negative. */
  value: Decimal;
  value_type: DiscountValueType;
  allocation_method: DiscountAllocationMethod;
}

/**
 * The share of one document discount for each targeted line (index-aligned with `targets`), each at
 * `precision`. A discount reduces a line towards zero: on a negative line the share is negative.
 *
 * - `percentage` + `each`: round(amount × value / 100) per line.
 * - `percentage` + `across`: the same per line, then the rounding remainder so that the shares add up to
 *   round(Σ amounts × value / 100) exactly.
 * - `fixed_amount` + `each`: the value on every line, capped at the line amount.
 * - `fixed_amount` + `across`: the value spread in proportion to the amounts; the shares add up to the
 *   value exactly. A value larger than Σ amounts is refused (`discount_exceeds_amount`).
 *
 * The rounding remainder goes to the largest line (ties: `tieKey`, then position); it spills to the next
 * largest only when putting it on the largest would take that line's share outside [0, its amount].
 */
export function allocateDiscount(
  targets: readonly AllocationTarget[],
  rule: DiscountRule,
  precision: number,
  path = 'discounts',
): Decimal[] {
  const zero = new Dec(0);
  if (targets.length === 0) {
    if (rule.value_type === 'fixed_amount' && rule.allocation_method === 'across' && !roundMoney(rule.value, precision).isZero()) {
      throw new DocumentRuleError(
        'discount_not_allocatable',
        'A fixed discount spread across lines needs at least one targeted line',
        path,
      );
    }
    return [];
  }
  const amounts = targets.map((t) => new Dec(t.amount));

  if (rule.value_type === 'percentage') {
    const pct = new Dec(rule.value);
    const shares = amounts.map((a) => roundMoney(a.times(pct).div(100), precision));
    if (rule.allocation_method === 'each') return shares;
    const total = sum(amounts);
    const sign = total.lt(0) ? -1 : 1;
    const target = roundMoney(total.abs().times(pct).div(100), precision);
    return settleRemainder(shares, amounts, target, sign, targets);
  }

  const value = roundMoney(rule.value, precision);
  if (rule.allocation_method === 'each') {
    return amounts.map((a) => (a.isZero() ? zero : Dec.min(value, a.abs()).times(a.lt(0) ? -1 : 1)));
  }

  if (value.isZero()) return amounts.map(() => zero);
  const total = sum(amounts);
  if (total.isZero() || value.gt(total.abs())) {
    throw new DocumentRuleError(
      'discount_exceeds_amount',
      `A fixed discount of ${value.toFixed(precision)} exceeds the ${total.abs().toFixed(precision)} of the lines it is spread across`,
      path,
    );
  }
  const sign = total.lt(0) ? -1 : 1;
  const shares = amounts.map((a) => roundMoney(value.times(a).div(total.abs()), precision));
  return settleRemainder(shares, amounts, value, sign, targets);
}

/**
 * Adjusts `shares` (signed like the lines) so that, measured in the document's direction `sign`, they add
 * up to `target` exactly; the difference goes to the largest line first.
 */
function settleRemainder(
  shares: Decimal[],
  amounts: Decimal[],
  target: Decimal,
  sign: 1 | -1,
  targets: readonly AllocationTarget[],
): Decimal[] {
  // Work in the document's direction: w = amount × sign, d = share × sign, Σ d must equal target.
  const w = amounts.map((a) => a.times(sign));
  const d = shares.map((s) => s.times(sign));
  let rest = target.minus(sum(d));
  if (rest.isZero()) return shares;

  const order = largestFirst(w, targets);
  for (const i of order) {
    if (rest.isZero()) break;
    const lo = Dec.min(0, w[i]);
    const hi = Dec.max(0, w[i]);
    const up = rest.gt(0);
    const room = up ? hi.minus(d[i]) : d[i].minus(lo);
    if (!room.gt(0)) continue;
    const take = Dec.min(rest.abs(), room).times(up ? 1 : -1);
    d[i] = d[i].plus(take);
    rest = rest.minus(take);
  }
  // Cannot happen for validated input; keeps the sum exact regardless.
  if (!rest.isZero()) d[order[0]] = d[order[0]].plus(rest);
  return d.map((x) => x.times(sign));
}

/** Indices by amount (in the document's direction) descending, then tieKey, then position. */
function largestFirst(w: Decimal[], targets: readonly AllocationTarget[]): number[] {
  return w
    .map((_, i) => i)
    .sort((a, b) => {
      const byAmount = w[b].comparedTo(w[a]);
      if (byAmount !== 0) return byAmount;
      const ka = targets[a].tieKey ?? '';
      const kb = targets[b].tieKey ?? '';
      if (ka !== kb) return ka < kb ? -1 : 1;
      return a - b;
    });
}

function sum(values: readonly Decimal[]): Decimal {
  return values.reduce((acc, v) => acc.plus(v), new Dec(0));
}
