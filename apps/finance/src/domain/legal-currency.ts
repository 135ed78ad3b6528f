import type { PaidRecordType } from '@ledgerline/contracts/common';
import type { DocumentLookupAnswer } from '@ledgerline/contracts';
import { dec, noRateInForce, roundMoney, toDb, type Dec, type DecimalInput, type RateInForce, type TableRateSource } from '@ledgerline/service-kit';

/*
 * Payments in the legal currency (pure). Every payment carries its value in the organisation's
 * legal currency (`amount_leg = round(amount × fx_rate / currency_coef)`, half away from zero), and
 * a matched payment also the legal value at which it clears the paid document
 * (`settlement_amount_leg`, at the document's own rate). The ledger posts the bank with the first
 * and the receivable/payable with the second; the difference is a realised FX gain or loss.
 */

export type FxRateSource = 'legal' | 'payment' | 'paid_document' | 'payment_amount' | TableRateSource;

export interface PaymentLegal {
  legalCurrency: string;
  /** Decimal strings as stored. */
  fxRate: string;
  currencyCoef: string;
  source: FxRateSource;
  /** The day of the table's rate taken (null when none was). */
  rateDate: string | null;
  amountLeg: string;
}

/** value × rate / coef in the legal currency, rounded half away from zero to 2 decimals. */
export function toLegal(value: DecimalInput, rate: DecimalInput, coef: DecimalInput = 1): Dec {
  return roundMoney(dec(value).times(dec(rate)).div(dec(coef)));
}

/**
 * The legal-currency value of a payment of `amount` in `currency`:
 * - in the legal currency: rates 1;
 * - a given `fx_rate` (and `currency_coef`, default 1): converted at it (`stated` says where a
 *   stored rate came from when a transaction is priced again);
 * - else the exchange-rate table's rate in force on the booking day (`tableRate`);
 * - else a matched document in the payment's currency: converted at the document's fx_rate;
 * - else a matched document in the legal currency with `payment_amount` (the amount applied to it,
 *   in its currency): that amount is the legal value (the bank's own conversion);
 * - else 422 `fx_rate_required` naming `path`, the currency and the day.
 */
export function paymentLegal(p: {
  amount: DecimalInput;
  currency: string;
  legalCurrency: string;
  /** The booking day (the day whose rate the table would give). */
  date: string;
  fxRate?: number | null;
  currencyCoef?: number | null;
  stated?: { source: FxRateSource; rateDate: string | null } | null;
  tableRate?: RateInForce | null;
  paymentAmount?: number | null;
  /** The matched document (null when nothing is matched). */
  document?: Pick<DocumentLookupAnswer, 'currency' | 'fx_rate' | 'currency_coef'> | null;
  path?: string;
}): PaymentLegal {
  const { currency, legalCurrency } = p;
  if (currency === legalCurrency) return { legalCurrency, fxRate: '1', currencyCoef: '1', source: 'legal', rateDate: null, amountLeg: toDb(dec(p.amount)) };
  const at = (rate: DecimalInput, coef: DecimalInput, source: FxRateSource, rateDate: string | null = null): PaymentLegal => ({
    legalCurrency,
    fxRate: dec(rate).toString(),
    currencyCoef: dec(coef).toString(),
    source,
    rateDate,
    amountLeg: toDb(toLegal(p.amount, rate, coef)),
  });
  if (p.fxRate != null) return at(p.fxRate, p.currencyCoef ?? 1, p.stated?.source ?? 'payment', p.stated?.rateDate ?? null);
  if (p.tableRate) return at(p.tableRate.rate, p.tableRate.amount, p.tableRate.source, p.tableRate.rate_date);
  const doc = p.document;
  if (doc?.currency === currency && doc.fx_rate != null && doc.fx_rate > 0) {
    return at(doc.fx_rate, doc.currency_coef != null && doc.currency_coef > 0 ? doc.currency_coef : 1, 'paid_document');
  }
  if (doc?.currency === legalCurrency && p.paymentAmount != null && !dec(p.amount).isZero()) {
    const leg = roundMoney(dec(p.paymentAmount));
    const rate = leg.div(dec(p.amount)).abs().toDecimalPlaces(10);
    // a rate the store cannot hold (or zero) is not a conversion: ask for the rate instead
    if (rate.gt(0) && rate.lt(1e10)) return { legalCurrency, fxRate: rate.toString(), currencyCoef: '1', source: 'payment_amount', rateDate: null, amountLeg: toDb(leg) };
  }
  throw noRateInForce(currency, p.date, legalCurrency, p.path ?? 'fx_rate');
}

/** Whether a payment needs the table's rate: in a foreign currency, without a rate of its own. */
export const needsTableRate = (cash: { currency: string; fx_rate?: number | null }, legalCurrency: string) => cash.currency !== legalCurrency && cash.fx_rate == null;

/** Money in pays sales invoices and vendor credits; money out vendor bills and sales credit notes. */
export const PAID_BY_MONEY_IN: Record<PaidRecordType, boolean> = {
  sales_invoice: true,
  purchase_vendor_credit: true,
  purchase_bill: false,
  sales_credit_note: false,
  // an advance asked by a proforma is paid by money in; money out on it is a refund
  sales_proforma: true,
  // an advance bill is paid by money out, as a bill
  purchase_advance: false,
};

/** The paid records that are advances: a proforma's payment, an advance bill's. */
const ADVANCES: ReadonlySet<PaidRecordType> = new Set(['sales_proforma', 'purchase_advance']);

/**
 * Whether pricing a payment of this document needs what earlier payments applied and cleared: a
 * document in a foreign currency with a legal total. Payments of documents in the legal currency
 * clear at the applied amount and skip the lock and the lookup.
 */
export function settlementNeedsHistory(document: Pick<DocumentLookupAnswer, 'currency' | 'total_amount' | 'total_amount_leg'>, legalCurrency: string): boolean {
  return document.currency !== legalCurrency && document.total_amount_leg != null && document.total_amount != null && document.total_amount !== 0;
}

/**
 * The legal value at which a matched payment clears its document, signed like the cash movement.
 * `applied` is the amount applied to the document in its currency (positive pays it); `before` is
 * what earlier payments applied and cleared. The document is cleared in proportion to its legal
 * total: round(total_leg × paid_after / total) less what earlier payments actually cleared, so a
 * document paid in any number of parts is cleared at exactly its legal total once it is paid.
 * Without a legal total the document's fx_rate is used; null when the document gives neither, and
 * when payment and document are both in the legal currency (no exchange: the counter account takes
 * the bank amount as before).
 */
export function settlementLeg(p: {
  type: PaidRecordType;
  applied: DecimalInput;
  /** Currency of the cash movement. */
  currency: string;
  legalCurrency: string;
  document: Pick<DocumentLookupAnswer, 'currency' | 'fx_rate' | 'currency_coef' | 'total_amount' | 'total_amount_leg' | 'advance_amount' | 'advance_amount_leg'>;
  before: { applied: DecimalInput; clearedLeg: DecimalInput };
}): string | null {
  const doc = p.document;
  if (p.currency === p.legalCurrency && doc.currency === p.legalCurrency) return null;
  // an advance is no receivable or payable: it is held on 324 / 314 at what was received or paid
  // (advances are not revalued, the National Accounting Council's I-43), so it makes no exchange difference
  if (ADVANCES.has(p.type)) return null;
  const applied = dec(p.applied);
  // what payments clear of a final document is its total less the advances it deducted, at the rest's legal value
  const total = dec(doc.total_amount ?? 0).minus(dec(doc.advance_amount ?? 0));
  let cleared: Dec | null = null;
  if (doc.currency === p.legalCurrency) cleared = applied;
  else if (doc.total_amount_leg != null && !total.isZero()) {
    const totalLeg = dec(doc.total_amount_leg).minus(dec(doc.advance_amount_leg ?? 0));
    const paidAfter = dec(p.before.applied).plus(applied);
    cleared = roundMoney(totalLeg.times(paidAfter).div(total)).minus(dec(p.before.clearedLeg));
  } else if (doc.fx_rate != null && doc.fx_rate > 0) {
    cleared = toLegal(applied, doc.fx_rate, doc.currency_coef != null && doc.currency_coef > 0 ? doc.currency_coef : 1);
  }
  if (cleared === null) return null;
  return toDb(PAID_BY_MONEY_IN[p.type] ? cleared : cleared.negated());
}
