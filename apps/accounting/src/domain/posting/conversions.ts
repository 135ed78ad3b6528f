import { Dec, dec, roundMoney } from '@ledgerline/service-kit';
import { MissingLegalFiguresError } from './errors.js';

/* Conversions to the legal currency: stored `_leg` figures first, the document's rate otherwise. */

// --- conversions ------------------------------------------------------------------------------

export interface Conversion {
  isLegal: boolean;
  rate: Dec | null;
  coef: Dec;
  what: string;
}

export function conversion(currency: string, legalCurrency: string, rate: number | null | undefined, coef: number | null | undefined, what: string): Conversion {
  return { isLegal: currency === legalCurrency, rate: rate ? dec(rate) : null, coef: coef ? dec(coef) : dec(1), what };
}

/** The stored `_leg` figure, else the value itself in the legal currency, else value × rate / coef. */
export function legal(value: Dec | number | null | undefined, stored: number | null | undefined, conv: Conversion): Dec {
  if (stored !== null && stored !== undefined) return dec(stored);
  if (conv.isLegal) return dec(value);
  if (!conv.rate) throw new MissingLegalFiguresError(conv.what);
  return roundMoney(dec(value).times(conv.rate).div(conv.coef));
}

export function fxRates(currency: string, legalCurrency: string, fx?: number | null, taxFx?: number | null) {
  if (currency === legalCurrency) return [];
  const out: Array<{ rate: number; currency: string; source: string }> = [];
  if (fx) out.push({ rate: fx, currency, source: 'document' });
  if (taxFx && taxFx !== fx) out.push({ rate: taxFx, currency, source: 'document_tax' });
  return out;
}

/**
 * The rate a payment was converted at, as the ledger shows it: `source` says where finance took it
 * from (`payment`: the request, `paid_document`: the paid document's rate, `payment_amount`: the
 * bank's own conversion). Empty in the legal currency; rates of several payout lines are listed once each.
 */
export function paymentFxRates(
  currency: string,
  legalCurrency: string,
  rates: Array<{ fx_rate?: number | null; fx_rate_source?: string | null }>,
): Array<{ rate: number; currency: string; source: string }> {
  if (currency === legalCurrency) return [];
  const out: Array<{ rate: number; currency: string; source: string }> = [];
  for (const r of rates) {
    if (!r.fx_rate) continue;
    const source = r.fx_rate_source ?? 'payment';
    if (!out.some((o) => o.rate === r.fx_rate && o.source === source)) out.push({ rate: r.fx_rate, currency, source });
  }
  return out;
}

/**
 * Realised exchange difference of a payment in the legal currency: what the bank moved
 * (`amountLeg`) less the value it clears the paid document with (`settlementLeg`, at the
 * document's rate). Positive is a gain (663), negative a loss (563); both come back non-negative.
 */
export function fxDifference(amountLeg: Dec, settlementLeg: Dec): { gain: Dec; loss: Dec } {
  const diff = amountLeg.minus(settlementLeg);
  return diff.isNegative() ? { gain: dec(0), loss: diff.negated() } : { gain: diff, loss: dec(0) };
}
