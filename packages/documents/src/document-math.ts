import { Dec, figuresOverLimit, overAmountLimit, roundMoney, toDb, type DecimalInput } from '@ledgerline/core/money';
import { allocateDiscount } from './discount-allocation.js';
import { normalizeDocumentInput, type NormalizedTax } from './document-input.js';
import { paymentStatus } from './payment-status.js';
import { roundingToIncrement } from './rounding.js';
import { DocumentValidationError } from './errors.js';
import type {
  ComputedDiscount,
  ComputedDocument,
  ComputedItem,
  ComputedShippingCharge,
  ComputedTaxLine,
  DocumentInput,
} from './types.js';

export { paymentStatus } from './payment-status.js';

const HUNDRED = new Dec(100);

/**
 * Computes every derived figure of a sales or purchase document (architecture §4), once, from its inputs.
 *
 * 1. Line amount before document discounts: round(qty × rate − discount_explicit) for items,
 *    round(amount) for shipping charges.
 * 2. Document discounts, in the order given, each on the amounts left by the previous ones, are
 *    allocated to the targeted lines as `discount_implicit` (see `allocateDiscount`);
 *    amount = amount before discount − discount_implicit (both already at precision).
 * 3. Line taxes: taxes excluded → base = amount, tax = round(amount × rate / 100); taxes included →
 *    tax = round(amount × rate / (100 + Σ line rates)), base = amount − Σ line taxes. Informational only.
 * 4. Recap, one row per (tax_code, tax_rate): taxes excluded → base = Σ line amounts,
 *    tax = round(base × rate / 100) on the sum (BR-CO-17). Taxes included → per group of lines with the
 *    same taxes, tax = round(Σ gross × rate / (100 + rate)), base = Σ gross − tax, so base + tax is the
 *    gross sum exactly.
 * 5. subtotal = Σ bases (each line once, untaxed lines included), tax = Σ recap tax, rounding =
 *    what makes subtotal + tax a multiple of the rounding increment (or the stated rounding, or 0),
 *    total = subtotal + tax + rounding, amount_due = total − amount_paid.
 * 6. Legal currency: value × fx_rate / currency_coef, rounded; tax fields with tax_fx_rate. Recap rows
 *    round base_leg and tax_leg each; subtotal_leg = Σ per tax group round(base × fx_rate / coef),
 *    tax_leg = Σ recap tax_leg, rounding_leg = round(rounding × fx_rate / coef),
 *    total_leg = subtotal_leg + tax_leg + rounding_leg, so the legal figures reconcile
 *    exactly. With fx_rate = tax_fx_rate and one tax per line, subtotal_leg = Σ recap base_leg
 *    (+ untaxed lines).
 *
 * Throws `DocumentValidationError` (400) for unusable input and `DocumentRuleError` (422) for a
 * discount that cannot be granted.
 */
export function computeDocument(input: DocumentInput): ComputedDocument {
  const doc = normalizeDocumentInput(input);
  const precision = doc.precision;
  const round = (v: DecimalInput) => roundMoney(v, precision);
  const money = (v: DecimalInput) => toDb(v, precision);
  const zero = new Dec(0);

  const toLeg = (v: Dec, rate: Dec) => round(v.times(rate).div(doc.currency_coef));
  // A document in the legal currency (rate 1, coefficient 1) has its legal figures equal to its
  // own, which are already at precision: no multiplication, division and rounding per figure.
  const unit = doc.currency_coef.eq(1);
  const fxLeg = unit && doc.fx_rate.eq(1) ? (v: Dec) => v : (v: Dec) => toLeg(v, doc.fx_rate);
  const taxLeg = unit && doc.tax_fx_rate.eq(1) ? (v: Dec) => v : (v: Dec) => toLeg(v, doc.tax_fx_rate);

  // 1. Lines before document discounts.
  const itemLines = doc.items.map((it): Line => ({
    kind: 'line_item',
    before: round(it.qty.times(it.rate).minus(it.discount_explicit)),
    implicit: zero,
    amount: zero,
    taxes: it.taxes,
    signature: taxSignature(it.taxes),
  }));
  const shippingLines = doc.shipping_charges.map((sc): Line => ({
    kind: 'shipping_line',
    before: round(sc.amount),
    implicit: zero,
    amount: zero,
    taxes: sc.taxes,
    signature: taxSignature(sc.taxes),
  }));
  const lines = [...itemLines, ...shippingLines];

  // 2. Document discounts.
  const discounts: ComputedDiscount[] = doc.discounts.map((discount, k) => {
    const targets = discount.target_type === 'line_item' ? itemLines : shippingLines;
    const shares = allocateDiscount(
      targets.map((l) => ({ amount: l.before.minus(l.implicit), tieKey: l.signature })),
      discount,
      precision,
      `discounts[${k}].value`,
    );
    targets.forEach((l, i) => {
      l.implicit = l.implicit.plus(shares[i]);
    });
    return {
      title: discount.title,
      value: discount.value_type === 'percentage' ? discount.value.toFixed() : money(discount.value),
      value_type: discount.value_type,
      allocation_method: discount.allocation_method,
      target_type: discount.target_type,
      amount: money(shares.reduce((a, s) => a.plus(s), zero)),
      allocations: shares.map(money),
    };
  });

  // 3. Line amounts and line taxes.
  const lineTaxes = (amount: Dec, taxes: NormalizedTax[]): { net: Dec; rows: ComputedTaxLine[] } => {
    const divisor = doc.taxes_included ? HUNDRED.plus(sumRates(taxes)) : HUNDRED;
    const amounts = taxes.map((t) => round(amount.times(t.tax_rate).div(divisor)));
    const net = doc.taxes_included ? amounts.reduce((a, t) => a.minus(t), amount) : amount;
    const rows = taxes.map((t, i) => taxRow(t, net, amounts[i], taxLeg(net), taxLeg(amounts[i]), doc.legal_currency, money));
    return { net, rows };
  };
  for (const l of lines) l.amount = l.before.minus(l.implicit);

  const items: ComputedItem[] = doc.items.map((it, i) => {
    const l = itemLines[i];
    const amount = l.amount;
    const { net, rows } = lineTaxes(amount, it.taxes);
    const rateScale = Math.max(4, precision + 2);
    return {
      qty: it.qty.toFixed(),
      rate: it.rate.toFixed(),
      discount_explicit: it.discount_explicit.toFixed(),
      discount_implicit: money(l.implicit),
      amount_before_discount: money(l.before),
      amount: money(amount),
      rate_discounted: it.qty.isZero() ? it.rate.toFixed() : amount.div(it.qty).toFixed(rateScale),
      net_amount: money(net),
      gl_account: it.gl_account,
      tax_deduction_ratio: it.tax_deduction_ratio ? it.tax_deduction_ratio.toFixed() : null,
      net_deduction_ratio: it.net_deduction_ratio ? it.net_deduction_ratio.toFixed() : null,
      taxes: rows,
    };
  });

  const shipping_charges: ComputedShippingCharge[] = doc.shipping_charges.map((sc, i) => {
    const l = shippingLines[i];
    const amount = l.amount;
    const { net, rows } = lineTaxes(amount, sc.taxes);
    return {
      amount_before_discount: money(l.before),
      discount_implicit: money(l.implicit),
      amount: money(amount),
      net_amount: money(net),
      taxes: rows,
    };
  });

  // 4. Tax recap, by groups of lines carrying the same taxes.
  const groups = new Map<string, { taxes: NormalizedTax[]; gross: Dec }>();
  for (const l of lines) {
    const g = groups.get(l.signature);
    if (g) g.gross = g.gross.plus(l.amount);
    else groups.set(l.signature, { taxes: sortTaxes(l.taxes), gross: l.amount });
  }

  const recap = new Map<string, { tax: NormalizedTax; base: Dec; amount: Dec }>();
  const recapRow = (t: NormalizedTax) => {
    const key = recapKey(t);
    let row = recap.get(key);
    if (!row) recap.set(key, (row = { tax: t, base: zero, amount: zero }));
    return row;
  };

  let subtotal = zero;
  let subtotalLeg = zero;
  for (const g of groups.values()) {
    let net = g.gross;
    if (g.taxes.length && doc.taxes_included) {
      const totalRate = sumRates(g.taxes);
      const divisor = HUNDRED.plus(totalRate);
      const groupTax = round(g.gross.times(totalRate).div(divisor));
      net = g.gross.minus(groupTax);
      const shares = g.taxes.map((t) => round(g.gross.times(t.tax_rate).div(divisor)));
      // Several taxes on one line: the remainder of the combined tax goes to the highest rate.
      const rest = groupTax.minus(shares.reduce((a, s) => a.plus(s), zero));
      if (!rest.isZero()) {
        const top = g.taxes.reduce((best, t, i) => (t.tax_rate.gt(g.taxes[best].tax_rate) ? i : best), 0);
        shares[top] = shares[top].plus(rest);
      }
      g.taxes.forEach((t, i) => {
        const row = recapRow(t);
        row.base = row.base.plus(net);
        row.amount = row.amount.plus(shares[i]);
      });
    } else {
      for (const t of g.taxes) {
        const row = recapRow(t);
        row.base = row.base.plus(g.gross);
      }
    }
    subtotal = subtotal.plus(net);
    subtotalLeg = subtotalLeg.plus(fxLeg(net));
  }
  if (!doc.taxes_included) {
    for (const row of recap.values()) row.amount = round(row.base.times(row.tax.tax_rate).div(100));
  }

  const recapRows = [...recap.values()].sort((a, b) => {
    const byRate = b.tax.tax_rate.comparedTo(a.tax.tax_rate);
    if (byRate !== 0) return byRate;
    const ca = a.tax.tax_code ?? '';
    const cb = b.tax.tax_code ?? '';
    return ca < cb ? -1 : ca > cb ? 1 : 0;
  });

  let taxTotal = zero;
  let taxTotalLeg = zero;
  const taxes = recapRows.map((row) => {
    const baseLeg = taxLeg(row.base);
    const amountLeg = taxLeg(row.amount);
    taxTotal = taxTotal.plus(row.amount);
    taxTotalLeg = taxTotalLeg.plus(amountLeg);
    return taxRow(row.tax, row.base, row.amount, baseLeg, amountLeg, doc.legal_currency, money);
  });

  // 5. Totals.
  const withTax = subtotal.plus(taxTotal);
  const rounding = !doc.rounding ? zero : 'amount' in doc.rounding ? doc.rounding.amount : roundingToIncrement(withTax, doc.rounding.increment);
  const total = withTax.plus(rounding);
  const roundingLeg = rounding.isZero() ? zero : fxLeg(rounding);
  const paid = round(doc.amount_paid);

  const computed: ComputedDocument = {
    precision,
    taxes_included: doc.taxes_included,
    currency: doc.currency,
    currency_leg: doc.legal_currency,
    fx_rate: doc.fx_rate.toFixed(),
    currency_coef: doc.currency_coef.toFixed(),
    tax_fx_rate: doc.tax_fx_rate.toFixed(),
    items,
    shipping_charges,
    discounts,
    taxes,
    subtotal_amount: money(subtotal),
    tax_amount: money(taxTotal),
    rounding_increment: doc.rounding && 'increment' in doc.rounding ? doc.rounding.increment.toFixed() : null,
    rounding_amount: money(rounding),
    total_amount: money(total),
    amount_paid: money(paid),
    amount_due: money(total.minus(paid)),
    payment_status: paymentStatus(total, paid),
    subtotal_amount_leg: money(subtotalLeg),
    tax_amount_leg: money(taxTotalLeg),
    rounding_amount_leg: money(roundingLeg),
    total_amount_leg: money(subtotalLeg.plus(taxTotalLeg).plus(roundingLeg)),
  };
  assertFiguresFit(computed);
  return computed;
}

/**
 * 400 naming every computed figure beyond AMOUNT_LIMIT: each input is bounded by the contracts,
 * but a product (qty × rate), a sum of lines or a legal-currency value can still outgrow the
 * columns that store and post it, and would then be answered 200 and fail in the ledger.
 */
function assertFiguresFit(d: ComputedDocument): void {
  // each figure is checked as it is, and its path spelt out only when it is over: every document
  // pays for the check, only a refused one for the names
  const over: Array<[string, string]> = [];
  const check = (value: string, path: () => string) => {
    if (overAmountLimit(value)) over.push([path(), value]);
  };
  const checkTax = (path: () => string, t: ComputedTaxLine) => {
    check(t.tax_base, () => `${path()}.tax_base`);
    check(t.tax_amount, () => `${path()}.tax_amount`);
    check(t.tax_base_leg, () => `${path()}.tax_base_leg`);
    check(t.tax_amount_leg, () => `${path()}.tax_amount_leg`);
  };
  d.items.forEach((it, i) => {
    check(it.amount_before_discount, () => `items[${i}].amount_before_discount`);
    check(it.amount, () => `items[${i}].amount`);
    it.taxes.forEach((t, j) => checkTax(() => `items[${i}].taxes[${j}]`, t));
  });
  d.shipping_charges.forEach((sc, i) => check(sc.amount, () => `shipping_charges[${i}].amount`));
  d.taxes.forEach((t, i) => checkTax(() => `taxes[${i}]`, t));
  for (const field of ['subtotal_amount', 'tax_amount', 'total_amount', 'amount_due', 'subtotal_amount_leg', 'tax_amount_leg', 'total_amount_leg'] as const) {
    check(d[field], () => field);
  }
  if (over.length) throw new DocumentValidationError(figuresOverLimit(over));
}

interface Line {
  kind: 'line_item' | 'shipping_line';
  /** Amount before document discounts, at precision. */
  before: Dec;
  /** Σ document-discount shares. */
  implicit: Dec;
  /** before − implicit, set once every discount is allocated. */
  amount: Dec;
  taxes: NormalizedTax[];
  /** The line's set of (tax_code, tax_rate): lines with the same signature share recap figures. */
  signature: string;
}

function taxRow(
  t: NormalizedTax,
  base: Dec,
  amount: Dec,
  baseLeg: Dec,
  amountLeg: Dec,
  currencyLeg: string,
  money: (v: Dec) => string,
): ComputedTaxLine {
  const taxBase = money(base);
  const taxAmount = money(amount);
  return {
    tax_code: t.tax_code,
    tax_name: t.tax_name,
    rate_type: t.rate_type,
    tax_index: t.tax_index,
    tax_rate: t.tax_rate.toFixed(),
    tax_base: taxBase,
    tax_amount: taxAmount,
    // in the legal currency the legal figure is the same decimal (`toLeg`): written once
    tax_base_leg: baseLeg === base ? taxBase : money(baseLeg),
    tax_amount_leg: amountLeg === amount ? taxAmount : money(amountLeg),
    currency_leg: currencyLeg,
  };
}

function recapKey(t: NormalizedTax): string {
  return JSON.stringify([t.tax_code, t.tax_rate.toFixed()]);
}

function sortTaxes(taxes: NormalizedTax[]): NormalizedTax[] {
  return [...taxes].sort((a, b) => {
    const ka = recapKey(a);
    const kb = recapKey(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

function taxSignature(taxes: NormalizedTax[]): string {
  return sortTaxes(taxes).map(recapKey).join('|');
}

function sumRates(taxes: NormalizedTax[]): Dec {
  return taxes.reduce((a, t) => a.plus(t.tax_rate), new Dec(0));
}
