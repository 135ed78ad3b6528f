import { dec, roundMoney, toWire, type Dec } from '@ledgerline/service-kit';

/*
 * What a final document deducts of one advance (issue 75, decisions 236 and 237), alike for a
 * sales invoice deducting a proforma and a bill deducting an advance bill: what was paid on the
 * advance, per rate as its tax documents taxed it, and an untaxed rest (an overpayment, or any
 * payment no tax document covers) converted at the final document's rate.
 */

/** A tax document of the advance: its total, its total in the legal currency, its stored tax recap. */
export interface AdvanceTaxDocument {
  total_amount: string;
  total_leg: string | null;
  taxes: Array<{
    tax_rate: number | string;
    tax_code?: string | null;
    tax_base: number | string;
    tax_amount: number | string;
    tax_base_leg?: number | string | null;
    tax_amount_leg?: number | string | null;
  }>;
}

export interface AdvanceDeductionFigures {
  amount: number;
  amount_leg: number;
  untaxed_amount: number;
  taxes: Array<{ tax_rate: number; tax_code: string | null; tax_base: number; tax_amount: number; tax_base_leg: number; tax_amount_leg: number }>;
}

/**
 * The deduction of an advance of which `paid` was paid, its tax documents `docs`; `legPerUnit` is
 * the final document's legal currency per unit (for the untaxed rest), `precision` its decimals.
 */
export function advanceDeductionFigures(paid: Dec, docs: AdvanceTaxDocument[], legPerUnit: Dec, precision: number): AdvanceDeductionFigures {
  const rates = new Map<string, { tax_rate: Dec; tax_code: string | null; base: Dec; tax: Dec; baseLeg: Dec; taxLeg: Dec }>();
  let taxed = dec(0);
  let taxedLeg = dec(0);
  for (const d of docs) {
    taxed = taxed.plus(d.total_amount);
    taxedLeg = taxedLeg.plus(d.total_leg ?? d.total_amount);
    for (const t of d.taxes) {
      const key = `${dec(t.tax_rate).toString()}|${t.tax_code ?? ''}`;
      const r = rates.get(key) ?? { tax_rate: dec(t.tax_rate), tax_code: t.tax_code ?? null, base: dec(0), tax: dec(0), baseLeg: dec(0), taxLeg: dec(0) };
      r.base = r.base.plus(t.tax_base);
      r.tax = r.tax.plus(t.tax_amount);
      r.baseLeg = r.baseLeg.plus(t.tax_base_leg ?? t.tax_base);
      r.taxLeg = r.taxLeg.plus(t.tax_amount_leg ?? t.tax_amount);
      rates.set(key, r);
    }
  }
  const untaxed = paid.minus(taxed);
  const w = (v: Dec) => toWire(v.toFixed(precision))!;
  return {
    amount: w(paid),
    // the taxed part at the tax documents' legal values, an untaxed rest at the final document's rate
    amount_leg: w(taxedLeg.plus(roundMoney(untaxed.times(legPerUnit)))),
    untaxed_amount: w(untaxed),
    taxes: [...rates.values()]
      .filter((r) => !r.base.isZero() || !r.tax.isZero())
      .map((r) => ({ tax_rate: toWire(r.tax_rate.toString())!, tax_code: r.tax_code, tax_base: w(r.base), tax_amount: w(r.tax), tax_base_leg: w(r.baseLeg), tax_amount_leg: w(r.taxLeg) })),
  };
}

/** The legal-currency figures of a final document that `legalFiguresAfterAdvances` restates. */
export interface LegalFigures {
  currency: string;
  currency_leg: string;
  precision: number;
  tax_fx_rate: string;
  currency_coef: string;
  taxes: Array<{ tax_rate: string; tax_base: string; tax_amount: string; tax_base_leg: string; tax_amount_leg: string }>;
  subtotal_amount_leg: string;
  tax_amount_leg: string;
  rounding_amount_leg: string;
  total_amount_leg: string;
}

/**
 * A foreign-currency final document's legal figures with the part of the supply its advances'
 * tax documents already taxed kept at their values: that part was converted at the rate of the
 * payment's day and is not converted again (§ 37a of the VAT Act changes a base only when the
 * amount changes; the Coordination Committee's conclusion 390/23.01.13 converts only the rest at
 * the rate of the supply's day; advances are not revalued, interpretation I-43 of the National
 * Accounting Council). At each rate the base and VAT become what the advances taxed there plus
 * the rest converted at the document's tax rate, so the VAT declared over advance and final
 * document is the supply's once, in the legal currency too, and a fully paid supply leaves no
 * receivable in the legal currency. A document in the legal currency is answered unchanged.
 */
export function legalFiguresAfterAdvances<F extends LegalFigures>(figures: F, deductions: Array<Pick<AdvanceDeductionFigures, 'taxes'>>): F {
  if (figures.currency === figures.currency_leg) return figures;
  // as the document's own figures are converted: amount × rate / coefficient, rounded to its precision
  const toLeg = (v: Dec) => roundMoney(v.times(figures.tax_fx_rate).div(figures.currency_coef || 1), figures.precision);
  const taxed = new Map<string, { base: Dec; tax: Dec; baseLeg: Dec; taxLeg: Dec }>();
  for (const t of deductions.flatMap((d) => d.taxes)) {
    const key = dec(t.tax_rate).toString();
    const r = taxed.get(key) ?? { base: dec(0), tax: dec(0), baseLeg: dec(0), taxLeg: dec(0) };
    taxed.set(key, { base: r.base.plus(t.tax_base), tax: r.tax.plus(t.tax_amount), baseLeg: r.baseLeg.plus(t.tax_base_leg), taxLeg: r.taxLeg.plus(t.tax_amount_leg) });
  }
  if (taxed.size === 0) return figures;
  const money = (v: Dec) => v.toFixed(figures.precision);
  let subtotalLeg = dec(figures.subtotal_amount_leg);
  let taxLeg = dec(0);
  const taxes = figures.taxes.map((line) => {
    const t = taxed.get(dec(line.tax_rate).toString());
    // one recap line per rate takes what the advances taxed at it (the ledger takes it back the same way)
    if (t) taxed.delete(dec(line.tax_rate).toString());
    const baseLeg = t ? t.baseLeg.plus(toLeg(dec(line.tax_base).minus(t.base))) : dec(line.tax_base_leg);
    const amountLeg = t ? t.taxLeg.plus(toLeg(dec(line.tax_amount).minus(t.tax))) : dec(line.tax_amount_leg);
    subtotalLeg = subtotalLeg.minus(line.tax_base_leg).plus(baseLeg);
    taxLeg = taxLeg.plus(amountLeg);
    return { ...line, tax_base_leg: money(baseLeg), tax_amount_leg: money(amountLeg) };
  });
  return {
    ...figures,
    taxes,
    subtotal_amount_leg: money(subtotalLeg),
    tax_amount_leg: money(taxLeg),
    total_amount_leg: money(subtotalLeg.plus(taxLeg).plus(figures.rounding_amount_leg)),
  };
}
