import type { VatReturn, TaxPeriodQuery } from '@ledgerline/contracts';
import { dec, refuseReversedPeriod, roundMoney, sqlRows, toWire, type Dec, type TenantContext } from '@ledgerline/service-kit';
import { ENTRY_SIGN, PERIOD_TAX_ROWS, readTaxReport, reportPeriodState } from './tax-period.js';

/*
 * The VAT return of a period, summed from the reporting fields every ledger tax row carries
 * (architecture §9, decision 157): the Czech return's rows with their base and tax, and the form's
 * totals. The return is what an accountant files before closing the period (decision 156).
 */

/** The rows posting can report (vat.ts), as the form names them. */
export const VAT_RETURN_ROWS: Readonly<Record<string, string>> = {
  '1': 'Domestic supplies, basic rate',
  '2': 'Domestic supplies, reduced rate',
  '3': 'Goods acquired from another EU state, basic rate',
  '4': 'Goods acquired from another EU state, reduced rate',
  '5': 'Services received from another EU state, basic rate',
  '6': 'Services received from another EU state, reduced rate',
  '10': 'Domestic reverse-charge receipts, basic rate',
  '11': 'Domestic reverse-charge receipts, reduced rate',
  '12': 'Other supplies received from abroad with reverse charge, basic rate',
  '13': 'Other supplies received from abroad with reverse charge, reduced rate',
  '20': 'Goods supplied to another EU state',
  '21': 'Services supplied to another EU state',
  '22': 'Exports of goods',
  '25': 'Domestic reverse-charge supplies',
  '40': 'Deduction: domestic purchases, basic rate',
  '41': 'Deduction: domestic purchases, reduced rate',
  '43': 'Deduction: EU acquisitions and reverse charge, basic rate',
  '44': 'Deduction: EU acquisitions and reverse charge, reduced rate',
};

/** Σ base and Σ tax of one row of the form, as the ledger's tax rows report it. */
export interface VatRowSum {
  row: string;
  base: Dec;
  tax: Dec;
}

const rowNumber = (row: string) => (/^\d+$/.test(row) ? Number(row) : Number.MAX_SAFE_INTEGER);
const within = (row: string, from: number, to: number) => rowNumber(row) >= from && rowNumber(row) <= to;

/**
 * The form's totals from its rows: output tax (row 62) is the tax of rows 1–13, deductions
 * (row 46, carried to 63) the tax of rows 40–45; the difference is the tax due (64) or the excess
 * deduction (65), never both. Rows without figures are left out; the rest are in the form's order.
 */
export function vatReturnTotals(sums: ReadonlyArray<VatRowSum>) {
  const rows = sums.filter((r) => !r.base.isZero() || !r.tax.isZero()).sort((a, b) => rowNumber(a.row) - rowNumber(b.row) || a.row.localeCompare(b.row));
  const total = (from: number, to: number) => rows.filter((r) => within(r.row, from, to)).reduce((s, r) => s.plus(r.tax), dec(0));
  const output = total(1, 13);
  const deductible = total(40, 45);
  const difference = output.minus(deductible);
  return {
    rows,
    output,
    deductible,
    due: difference.isPositive() && !difference.isZero() ? difference : dec(0),
    excess: difference.isNegative() && !difference.isZero() ? difference.negated() : dec(0),
  };
}

/**
 * Each tax row reports up to four figures, each to the row its field names; a reversal's rows
 * count negated (its figures keep the posting's signs, its debit and credit swap). Only entries
 * posted within the period count, by the day they were posted. The period's tax rows are summed
 * per combination of the rows they report to (a handful), which are then split into the form's
 * rows: splitting each tax row first cost twice as much arithmetic over a month of a large
 * organisation (decision 218).
 */
const SUMS = `
  with taxed as (
    select t.transaction_id, t.tax_return_base_out, t.tax_return_amount_out, t.tax_return_base_in, t.tax_return_amount_claim,
           t.tax_base_out_leg, t.tax_base_in_leg, t.tax_amount_out_leg, t.tax_amount_claim_leg,
           ${ENTRY_SIGN} as sign
      from ${PERIOD_TAX_ROWS}
  ), combinations as (
    select tax_return_base_out, tax_return_amount_out, tax_return_base_in, tax_return_amount_claim, sign,
           sum(coalesce(tax_base_out_leg, tax_base_in_leg, 0)) as base_out,
           sum(coalesce(tax_amount_out_leg, 0)) as amount_out,
           sum(coalesce(tax_base_in_leg, 0)) as base_in,
           sum(coalesce(tax_amount_claim_leg, 0)) as amount_claim
      from taxed group by 1, 2, 3, 4, 5
  )
  select p.row, sum(p.base)::text as base, sum(p.tax)::text as tax, (select count(distinct transaction_id) from taxed)::int as entries
    from combinations
    cross join lateral (values
      (tax_return_base_out, base_out * sign, 0),
      (tax_return_amount_out, 0, amount_out * sign),
      (tax_return_base_in, base_in * sign, 0),
      (tax_return_amount_claim, 0, amount_claim * sign)
    ) as p(row, base, tax)
   where p.row is not null
   group by p.row`;

/**
 * The return as it is filed: every row's base and tax in whole units of the legal currency
 * (rounded half away from zero, row by row), and the totals summed from the rounded rows, as the
 * form computes them. A row that rounds to nothing is left out, like an empty one.
 */
export function filedVatReturn(sums: ReadonlyArray<VatRowSum>) {
  return vatReturnTotals(sums.map((r) => ({ row: r.row, base: roundMoney(r.base, 0), tax: roundMoney(r.tax, 0) })));
}

export async function vatReturn(ctx: TenantContext, q: TaxPeriodQuery, defaultCurrency: string): Promise<VatReturn> {
  refuseReversedPeriod(q);
  const { orgId } = ctx;
  const found = await readTaxReport(ctx, (tem) => sqlRows<{ row: string; base: string; tax: string; entries: number }>(tem, SUMS, [orgId, q.date_from, q.date_to]));
  const { currency, closed } = await reportPeriodState(ctx, q, defaultCurrency);
  const sums = found.map((r) => ({ row: r.row, base: dec(r.base), tax: dec(r.tax) }));
  const { rows, output, deductible, due, excess } = vatReturnTotals(sums);
  const filed = filedVatReturn(sums);
  const rowView = (r: VatRowSum) => ({ row: r.row, name: VAT_RETURN_ROWS[r.row] ?? `Row ${r.row}`, base: toWire(r.base), tax: toWire(r.tax) });
  return {
    currency,
    date_from: q.date_from,
    date_to: q.date_to,
    rows: rows.map(rowView),
    output_tax: toWire(output),
    deductible_tax: toWire(deductible),
    tax_due: toWire(due),
    excess_deduction: toWire(excess),
    filed: {
      rows: filed.rows.map(rowView),
      output_tax: toWire(filed.output),
      deductible_tax: toWire(filed.deductible),
      tax_due: toWire(filed.due),
      excess_deduction: toWire(filed.excess),
    },
    entries: found[0]?.entries ?? 0,
    closed,
  };
}
