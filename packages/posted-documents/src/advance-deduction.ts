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
