import { Dec, dec, type DecimalInput } from '@ledgerline/service-kit';

/** A proforma's recap line as a tax document needs it: its rate, code and what it asks with VAT. */
export interface RecapRate {
  tax_rate: DecimalInput;
  tax_code?: string | null;
  tax_name?: string | null;
  rate_type?: string | null;
  tax_base: DecimalInput;
  tax_amount: DecimalInput;
}

/** One line of an advance tax document: the part of the received amount at one rate (VAT included). */
export interface AdvanceShare {
  tax_rate: string;
  tax_code: string | null;
  tax_name: string | null;
  rate_type: string | null;
  gross: Dec;
}

/**
 * The amount a tax document declares (VAT included), split over the proforma's rates in proportion
 * to what the proforma asks at each (§28 ZDPH: the VAT of an advance is the VAT of the supply it
 * pays, rate by rate); the cent left by rounding goes to the largest share. `amount` may be
 * negative (a refund's tax document). Rates of zero take their share too, but it is never taxed:
 * only rates above zero become lines (the zero-rated part of an advance stays untaxed on 324).
 */
export function advanceShares(amount: DecimalInput, recap: readonly RecapRate[], precision = 2): AdvanceShare[] {
  const total = dec(amount);
  const grossOf = (r: RecapRate) => dec(r.tax_base).plus(dec(r.tax_amount));
  const weights = recap.map(grossOf);
  const sum = weights.reduce((s, w) => s.plus(w), dec(0));
  if (total.isZero() || recap.length === 0 || !sum.gt(0)) return [];
  const shares = weights.map((w) => total.times(w).div(sum).toDecimalPlaces(precision, Dec.ROUND_HALF_UP));
  const rest = total.minus(shares.reduce((s, v) => s.plus(v), dec(0)));
  if (!rest.isZero()) {
    let largest = 0;
    weights.forEach((w, i) => {
      if (w.gt(weights[largest])) largest = i;
    });
    shares[largest] = shares[largest].plus(rest);
  }
  return recap
    .map((r, i) => ({ tax_rate: dec(r.tax_rate).toString(), tax_code: r.tax_code ?? null, tax_name: r.tax_name ?? null, rate_type: r.rate_type ?? null, gross: shares[i] }))
    .filter((s) => dec(s.tax_rate).gt(0) && !s.gross.isZero());
}

/**
 * What a tax document should have declared in all once `paid` has been received on a proforma of
 * `total`: the payments up to the proforma's total (an overpayment is held untaxed until it is
 * refunded or deducted), never below nothing.
 */
export function taxableAdvance(paid: DecimalInput, total: DecimalInput): Dec {
  return Dec.max(dec(0), Dec.min(dec(paid), dec(total)));
}
