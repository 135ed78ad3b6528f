import { Dec } from '@ledgerline/core/money';
import type { DepreciationReport } from '@ledgerline/contracts';
import { sqlRows, toWire, type TenantScope } from '@ledgerline/service-kit';
import { ASSET_COLUMNS, ASSET_FROM, plansOf, type AssetRow } from './register.js';

/*
 * A tax year's depreciation per asset (issue 77): the tax plan's depreciation of the year (half in
 * the year of disposal) and the tax residual price a disposal makes an expense, against what the
 * books posted in the year (depreciation runs and disposals) and the book value a disposal cleared
 * to 541. The difference, accounting less tax, is what an income tax return adds to (or takes off)
 * the profit (§23(3) and §24(2)(a), (b) of the Income Tax Act).
 */

export async function depreciationReport(scope: TenantScope, year: number): Promise<DepreciationReport> {
  const assets = await sqlRows<AssetRow & { booked: string }>(
    scope.em,
    `select ${ASSET_COLUMNS},
       coalesce((select sum(p.amount) from asset_depreciation_postings p where p.asset_id = a.id and p.period like ?), 0)::text as booked
       from ${ASSET_FROM}
      where a.org_id = ? and a.date_in_use <= ?::date and (a.disposal is null or (a.disposal->>'date') >= ?)
      order by a.inventory_number`,
    [`${year}-%`, scope.orgId, `${year}-12-31`, `${year}-01-01`],
  );
  const zero = new Dec(0);
  const totals = { tax_depreciation: zero, tax_residual_expensed: zero, accounting_depreciation: zero, accounting_residual_expensed: zero, difference: zero };
  const rows = assets.map((a) => {
    const disposedThisYear = a.disposal !== null && a.disposal.date.startsWith(String(year));
    const tax = new Dec(plansOf({ ...a, disposalDate: a.disposal?.date ?? null }).tax.find((r) => r.year === year)?.depreciation ?? 0);
    const taxResidual = disposedThisYear ? new Dec(a.disposal!.tax_residual) : zero;
    const booked = new Dec(a.booked);
    const bookResidual = disposedThisYear ? new Dec(a.disposal!.residual) : zero;
    const difference = booked.plus(bookResidual).minus(tax).minus(taxResidual);
    totals.tax_depreciation = totals.tax_depreciation.plus(tax);
    totals.tax_residual_expensed = totals.tax_residual_expensed.plus(taxResidual);
    totals.accounting_depreciation = totals.accounting_depreciation.plus(booked);
    totals.accounting_residual_expensed = totals.accounting_residual_expensed.plus(bookResidual);
    totals.difference = totals.difference.plus(difference);
    return {
      asset_id: Number(a.id),
      inventory_number: a.inventory_number,
      name: a.name,
      tax_depreciation: toWire(tax.toFixed(2))!,
      tax_residual_expensed: toWire(taxResidual.toFixed(2))!,
      accounting_depreciation: toWire(booked.toFixed(2))!,
      accounting_residual_expensed: toWire(bookResidual.toFixed(2))!,
      difference: toWire(difference.toFixed(2))!,
    };
  });
  const wire = (d: Dec) => toWire(d.toFixed(2))!;
  return {
    year,
    rows,
    totals: { tax_depreciation: wire(totals.tax_depreciation), tax_residual_expensed: wire(totals.tax_residual_expensed), accounting_depreciation: wire(totals.accounting_depreciation), accounting_residual_expensed: wire(totals.accounting_residual_expensed), difference: wire(totals.difference) },
  };
}
