import { Dec, dec, type DecimalInput } from '@ledgerline/core/money';
import { BusinessRuleError } from '@ledgerline/core/errors';

export interface CreditHeadroom {
  /** True when the new credit would take the credits of the document above its total. */
  exceeds: boolean;
  /** What all credits of the document would total with the new one (absolute). */
  creditedAfter: Dec;
  /** What can still be credited before the new one (absolute, never below zero). */
  left: Dec;
}

/**
 * A credit document (credit note, vendor credit) may credit at most what is left of the document
 * it credits: |total| − Σ |earlier credits|. Signs are ignored, so a credit stored negative and one
 * stored positive count alike; the comparison is exact.
 */
export function creditHeadroom(creditedTotal: DecimalInput, earlierCredits: readonly DecimalInput[], credit: DecimalInput): CreditHeadroom {
  const total = dec(creditedTotal).abs();
  const credited = earlierCredits.reduce<Dec>((acc, c) => acc.plus(dec(c).abs()), dec(0));
  const creditedAfter = credited.plus(dec(credit).abs());
  const left = Dec.max(total.minus(credited), 0);
  return { exceeds: creditedAfter.gt(total), creditedAfter, left };
}

/**
 * 422 `code` naming `total_amount` when the new credit would take the credits of the document
 * above its total; the message says what can still be credited.
 */
export function assertCreditHeadroom(p: {
  creditedTotal: DecimalInput;
  earlierCredits: readonly DecimalInput[];
  credit: DecimalInput;
  precision: number;
  /** e.g. `Credit notes of invoice INV2026001`. */
  creditsOf: string;
  /** e.g. `invoice`. */
  document: string;
  code: string;
}): void {
  const { exceeds, creditedAfter, left } = creditHeadroom(p.creditedTotal, p.earlierCredits, p.credit);
  if (!exceeds) return;
  const f = (v: DecimalInput) => dec(v).toFixed(p.precision);
  throw new BusinessRuleError(
    `${p.creditsOf} would total ${f(creditedAfter)}, above its total ${f(dec(p.creditedTotal).abs())}; at most ${f(left)} can still be credited`,
    p.code,
    [{ path: 'total_amount', message: `exceeds what is left to credit on the ${p.document}`, code: p.code }],
  );
}
