import { Dec } from '@ledgerline/core/money';
import type { Asset, AssetDisposalRequest, AssetImprovementRequest, AssetListQuery, AssetRequest, AssetTaxInterruptionsRequest } from '@ledgerline/contracts';
import { BusinessRuleError, ConflictError, NotFoundError, postingSettingsOf, refuseClosedPeriod, sqlRows, toDb, toWire, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import type { StoredJournalLine } from '../../db/entities.js';
import type { ApplyOptions } from '../../events/ledger-events.js';
import { postJournalEntry } from '../journal-entries.js';
import { accountingPlan, AccountingPlanRefusal, addMonths, periodOf, type AccountingPlanRow } from './accounting-depreciation.js';
import { taxPlan, TaxPlanRefusal, type TaxPlanRow } from './tax-depreciation.js';
import type { FirstYearIncrease, TaxGroup } from './tax-depreciation-tables.js';

/*
 * The register of fixed assets (issue 77, decision 240). An asset is stored as it was asked for;
 * its plans are computed from it whenever it is read (the law's tables and the plan rules are
 * data and pure functions: domain/assets/). What the books hold of it is journal entries:
 * putting a bill-booked acquisition into use (Dr 022 / Cr 042, kind fixed_asset), a month's
 * depreciation (depreciation-runs.ts), its disposal (Dr 082, Dr 541 / Cr 022).
 */

const ACQUISITION_ACCOUNT = '042';
const DISPOSAL_EXPENSE_ACCOUNT = '541';

export interface AssetRow {
  id: string;
  name: string;
  inventory_number: string;
  acquisition_cost: string;
  date_acquired: string;
  date_in_use: string;
  asset_account: string;
  accumulated_account: string;
  expense_account: string;
  accounting_months: number;
  tax_group: number;
  tax_method: 'straight_line' | 'accelerated';
  first_year_increase: number;
  interrupted_years: number[];
  improvements: Array<{ date: string; amount: number; description?: string | null }>;
  bill_id: string | null;
  in_use_entry_id: string | null;
  in_use_entry_no: string | null;
  status: 'active' | 'disposed';
  disposal: { date: string; kind: 'sale' | 'scrapping'; residual: string; tax_residual: string; journal_entry_id: number; journal_entry_no: string } | null;
  posted: string;
  created_ms: string;
  updated_ms: string;
}

export const ASSET_COLUMNS = `a.id, a.name, a.inventory_number, a.acquisition_cost::text as acquisition_cost, a.date_acquired::text as date_acquired,
  a.date_in_use::text as date_in_use, a.asset_account, a.accumulated_account, a.expense_account, a.accounting_months, a.tax_group, a.tax_method,
  a.first_year_increase, a.interrupted_years, a.improvements, a.bill_id, a.in_use_entry_id, j.no as in_use_entry_no, a.status, a.disposal,
  coalesce((select sum(p.amount) from asset_depreciation_postings p where p.asset_id = a.id), 0)::text as posted,
  (extract(epoch from a.created_at) * 1000)::bigint as created_ms, (extract(epoch from a.updated_at) * 1000)::bigint as updated_ms`;
export const ASSET_FROM = 'fixed_assets a left join journal_entries j on j.org_id = a.org_id and j.id = a.in_use_entry_id';

type PlanInput = Pick<AssetRow, 'acquisition_cost' | 'date_in_use' | 'accounting_months' | 'tax_group' | 'tax_method' | 'first_year_increase' | 'interrupted_years' | 'improvements'> & { disposalDate: string | null };

/** Both plans of an asset; a rule the asset breaks is 422 naming the field. */
export function plansOf(a: PlanInput): { tax: TaxPlanRow[]; accounting: AccountingPlanRow[] } {
  const improvements = a.improvements.map((i) => ({ date: i.date, amount: String(i.amount) }));
  try {
    return {
      tax: taxPlan({
        cost: a.acquisition_cost,
        firstYear: Number(a.date_in_use.slice(0, 4)),
        group: a.tax_group as TaxGroup,
        method: a.tax_method,
        firstYearIncrease: a.first_year_increase as FirstYearIncrease,
        improvements: improvements.map((i) => ({ year: Number(i.date.slice(0, 4)), amount: i.amount })),
        interruptedYears: a.interrupted_years,
        disposalYear: a.disposalDate ? Number(a.disposalDate.slice(0, 4)) : null,
      }),
      accounting: accountingPlan({ cost: a.acquisition_cost, dateInUse: a.date_in_use, months: a.accounting_months, improvements, disposalDate: a.disposalDate }),
    };
  } catch (err) {
    if (err instanceof TaxPlanRefusal || err instanceof AccountingPlanRefusal) throw new BusinessRuleError(err.message, 'asset_plan_invalid', [{ path: err.path, message: err.message, code: 'asset_plan_invalid' }]);
    throw err;
  }
}

const wire = (v: string | number) => toWire(String(v))!;

export function assetView(r: AssetRow): Asset {
  const plans = plansOf({ ...r, disposalDate: r.disposal?.date ?? null });
  const cost = r.improvements.reduce((s, i) => s.plus(i.amount), new Dec(r.acquisition_cost));
  return {
    id: Number(r.id),
    name: r.name,
    inventory_number: r.inventory_number,
    acquisition_cost: wire(r.acquisition_cost),
    date_acquired: r.date_acquired,
    date_in_use: r.date_in_use,
    accounting_depreciation: { method: 'straight_line', months: r.accounting_months },
    tax_depreciation: { group: r.tax_group as TaxGroup, method: r.tax_method, first_year_increase: r.first_year_increase as FirstYearIncrease, interrupted_years: r.interrupted_years },
    asset_account: r.asset_account,
    accumulated_account: r.accumulated_account,
    expense_account: r.expense_account,
    improvements: r.improvements.map((i) => ({ date: i.date, amount: i.amount, description: i.description ?? null })),
    bill_id: r.bill_id === null ? null : Number(r.bill_id),
    status: r.status,
    cost: wire(cost.toFixed(2)),
    accumulated_depreciation: wire(r.posted),
    tax_plan: plans.tax.map((t) => ({ year: t.year, depreciation: wire(t.depreciation), residual: wire(t.residual), kind: t.kind })),
    accounting_plan: plans.accounting.map((p) => ({ period: p.period, depreciation: wire(p.depreciation), accumulated: wire(p.accumulated), residual: wire(p.residual) })),
    in_use_entry: r.in_use_entry_id === null ? null : { id: Number(r.in_use_entry_id), no: r.in_use_entry_no ?? '' },
    disposal: r.disposal
      ? { date: r.disposal.date, kind: r.disposal.kind, residual: wire(r.disposal.residual), tax_residual: wire(r.disposal.tax_residual), journal_entry: { id: r.disposal.journal_entry_id, no: r.disposal.journal_entry_no } }
      : null,
    created_at: new Date(Number(r.created_ms)).toISOString(),
    updated_at: new Date(Number(r.updated_ms)).toISOString(),
  };
}

export async function readAssetRow(scope: TenantScope, id: number, forUpdate = false): Promise<AssetRow> {
  const [row] = await sqlRows<AssetRow>(scope.em, `select ${ASSET_COLUMNS} from ${ASSET_FROM} where a.org_id = ? and a.id = ?${forUpdate ? ' for update of a' : ''}`, [scope.orgId, id]);
  if (!row) throw new NotFoundError(`Fixed asset ${id} not found`, 'asset_not_found');
  return row;
}

export const readAsset = async (scope: TenantScope, id: number) => assetView(await readAssetRow(scope, id));

export async function listAssets(scope: TenantScope, q: AssetListQuery): Promise<{ rows: Asset[]; total: number }> {
  const status = q.status?.length ? q.status : ['active', 'disposed'];
  const [{ n }] = await sqlRows<{ n: string }>(scope.em, 'select count(*) as n from fixed_assets where org_id = ? and status = any(?::text[])', [scope.orgId, status]);
  const rows = await sqlRows<AssetRow>(scope.em, `select ${ASSET_COLUMNS} from ${ASSET_FROM} where a.org_id = ? and a.status = any(?::text[]) order by a.id limit ? offset ?`, [scope.orgId, status, q.take, q.from]);
  return { rows: rows.map(assetView), total: Number(n) };
}

/** The stored columns of a request (defaults applied), its plans checked. */
function storedOf(req: AssetRequest) {
  if (req.date_in_use < req.date_acquired) {
    const message = `date_in_use ${req.date_in_use} comes before date_acquired ${req.date_acquired}`;
    throw new BusinessRuleError(message, 'asset_dates_invalid', [{ path: 'date_in_use', message, code: 'asset_dates_invalid' }]);
  }
  const stored = {
    name: req.name,
    inventory_number: req.inventory_number,
    acquisition_cost: toDb(String(req.acquisition_cost)),
    date_acquired: req.date_acquired,
    date_in_use: req.date_in_use,
    asset_account: req.asset_account ?? '022',
    accumulated_account: req.accumulated_account ?? '082',
    expense_account: req.expense_account ?? '551',
    accounting_months: req.accounting_depreciation.months,
    tax_group: req.tax_depreciation.group,
    tax_method: req.tax_depreciation.method,
    first_year_increase: req.tax_depreciation.first_year_increase ?? 0,
    interrupted_years: [...new Set(req.tax_depreciation.interrupted_years ?? [])].sort(),
    improvements: (req.improvements ?? []).map((i) => ({ date: i.date, amount: i.amount, description: i.description ?? null })).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)),
    bill_id: req.bill_id ?? null,
  };
  plansOf({ ...stored, disposalDate: null });
  return stored;
}

const inventoryTaken = (no: string) => new ConflictError(`Inventory number ${no} is already in the register`, 'asset_inventory_number_taken', [{ path: 'inventory_number', message: 'taken', code: 'asset_inventory_number_taken' }]);

/**
 * A bill-booked acquisition: the bill's net debit on 042 in the ledger must cover this asset and
 * every other asset put into use from it.
 */
async function refuseUncoveredBill(ctx: TenantContext, billId: number, cost: string, exceptAsset: number | null): Promise<void> {
  const [{ booked, taken }] = await sqlRows<{ booked: string; taken: string }>(
    ctx.em,
    `select coalesce((select sum(r.debit - r.credit) from ledger_rows r join accounting_transactions t on t.id = r.transaction_id
                       where t.org_id = ? and t.source_type = 'purchase_bill' and t.source_id = ? and r.gl_account_number = ?), 0)::text as booked,
            coalesce((select sum(acquisition_cost) from fixed_assets where org_id = ? and bill_id = ? and id <> ?), 0)::text as taken`,
    [ctx.orgId, billId, ACQUISITION_ACCOUNT, ctx.orgId, billId, exceptAsset ?? 0],
  );
  const left = new Dec(booked).minus(taken);
  if (left.gte(cost)) return;
  const message = `Bill ${billId} booked ${new Dec(booked).toFixed(2)} to ${ACQUISITION_ACCOUNT}${new Dec(taken).gt(0) ? `, of which ${new Dec(taken).toFixed(2)} went to other assets` : ''}: ${left.toFixed(2)} is left, not ${new Dec(cost).toFixed(2)}`;
  throw new BusinessRuleError(message, 'asset_bill_not_covering', [{ path: 'bill_id', message, code: 'asset_bill_not_covering' }]);
}

const line = (order: number, account: string, debit: Dec, credit: Dec, description: string): StoredJournalLine => ({ order, account_number: account, debit: toDb(debit), credit: toDb(credit), description });

export async function createAsset(ctx: TenantContext, req: AssetRequest, opts: ApplyOptions): Promise<Asset> {
  const stored = storedOf(req);
  const books = stored.bill_id !== null ? await postingSettingsOf(ctx) : null;
  if (books && stored.bill_id !== null) {
    refuseClosedPeriod(books.lockDate, 'putting the asset into use', [{ field: 'date_in_use', date: stored.date_in_use }]);
    await refuseUncoveredBill(ctx, stored.bill_id, stored.acquisition_cost, null);
  }
  const inserted = await sqlRows<{ id: string }>(
    ctx.em,
    `insert into fixed_assets (org_id, name, inventory_number, acquisition_cost, date_acquired, date_in_use, asset_account, accumulated_account, expense_account,
       accounting_months, tax_group, tax_method, first_year_increase, interrupted_years, improvements, bill_id, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::int[], ?::jsonb, ?, ?, ?)
     on conflict (org_id, inventory_number) do nothing returning id`,
    [ctx.orgId, stored.name, stored.inventory_number, stored.acquisition_cost, stored.date_acquired, stored.date_in_use, stored.asset_account, stored.accumulated_account, stored.expense_account,
      stored.accounting_months, stored.tax_group, stored.tax_method, stored.first_year_increase, `{${stored.interrupted_years.join(',')}}`, JSON.stringify(stored.improvements), stored.bill_id, ctx.now(), ctx.now()],
  );
  // the unique (organisation, inventory number) decides, also between two requests at once
  if (!inserted.length) throw inventoryTaken(stored.inventory_number);
  const id = inserted[0].id;
  if (books && stored.bill_id !== null) {
    const cost = new Dec(stored.acquisition_cost);
    const entry = await postJournalEntry(ctx, opts, {
      kind: 'fixed_asset',
      datePosting: stored.date_in_use,
      description: `Put into use: ${stored.inventory_number} ${stored.name}`.slice(0, 255),
      reference: `fixed_asset:${id}`,
      currency: books.legalCurrency,
      lines: [line(1, stored.asset_account, cost, new Dec(0), stored.name), line(2, ACQUISITION_ACCOUNT, new Dec(0), cost, `Bill ${stored.bill_id}`)],
      total: cost,
      reversesId: null,
    });
    await sqlRows(ctx.em, 'update fixed_assets set in_use_entry_id = ? where org_id = ? and id = ?', [entry.id, ctx.orgId, id]);
  }
  return readAsset(ctx, Number(id));
}

export async function replaceAsset(ctx: TenantContext, id: number, req: AssetRequest): Promise<Asset> {
  const current = await readAssetRow(ctx, id, true);
  if (current.in_use_entry_id !== null || current.status !== 'active' || new Dec(current.posted).gt(0)) {
    throw new ConflictError(`Fixed asset ${current.inventory_number} is posted already (its depreciation, its putting into use or its disposal): it can no longer be replaced`, 'asset_posted');
  }
  const stored = storedOf(req);
  if (stored.bill_id !== null) {
    const message = 'an asset put into use from a bill is posted at once: enter it with bill_id when it is created';
    throw new BusinessRuleError(message, 'asset_bill_on_replace', [{ path: 'bill_id', message, code: 'asset_bill_on_replace' }]);
  }
  if (stored.inventory_number !== current.inventory_number) {
    const [taken] = await sqlRows(ctx.em, 'select 1 from fixed_assets where org_id = ? and inventory_number = ? and id <> ?', [ctx.orgId, stored.inventory_number, id]);
    if (taken) throw inventoryTaken(stored.inventory_number);
  }
  await sqlRows(
    ctx.em,
    `update fixed_assets set name = ?, inventory_number = ?, acquisition_cost = ?, date_acquired = ?, date_in_use = ?, asset_account = ?, accumulated_account = ?,
       expense_account = ?, accounting_months = ?, tax_group = ?, tax_method = ?, first_year_increase = ?, interrupted_years = ?::int[], improvements = ?::jsonb, updated_at = ?
     where org_id = ? and id = ?`,
    [stored.name, stored.inventory_number, stored.acquisition_cost, stored.date_acquired, stored.date_in_use, stored.asset_account, stored.accumulated_account, stored.expense_account,
      stored.accounting_months, stored.tax_group, stored.tax_method, stored.first_year_increase, `{${stored.interrupted_years.join(',')}}`, JSON.stringify(stored.improvements), ctx.now(), ctx.orgId, id],
  );
  return readAsset(ctx, id);
}

/** The last month the books hold depreciation of the asset for, if any. */
async function lastPostedPeriod(scope: TenantScope, id: number): Promise<string | null> {
  const [row] = await sqlRows<{ period: string | null }>(scope.em, 'select max(period) as period from asset_depreciation_postings where org_id = ? and asset_id = ?', [scope.orgId, id]);
  return row?.period ?? null;
}

/**
 * A technical improvement of an asset in use (§33 of the Income Tax Act; in the books it raises
 * the cost): the accounting plan spreads it over the months left from the month after it, the tax
 * plan raises the input price from its year. It may not reach back before a month already posted
 * (the posted months would no longer be the plan's). Booked to 042 by a bill, it is moved to the
 * asset account on its date.
 */
export async function improveAsset(ctx: TenantContext, id: number, req: AssetImprovementRequest, opts: ApplyOptions): Promise<Asset> {
  const asset = await readAssetRow(ctx, id, true);
  if (asset.status === 'disposed') throw new ConflictError(`Fixed asset ${asset.inventory_number} was disposed of on ${asset.disposal?.date}`, 'asset_disposed');
  const posted = await lastPostedPeriod(ctx, id);
  if (posted !== null && periodOf(req.date) < posted) {
    const message = `the improvement of ${req.date} comes before ${posted}, whose depreciation is posted already`;
    throw new BusinessRuleError(message, 'asset_improvement_before_posted', [{ path: 'date', message, code: 'asset_improvement_before_posted' }]);
  }
  const improvements = [...asset.improvements, { date: req.date, amount: req.amount, description: req.description ?? null }].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  if (improvements.length > 100) throw new BusinessRuleError('An asset takes at most 100 improvements', 'asset_improvements_too_many', [{ path: 'date', message: 'at most 100', code: 'asset_improvements_too_many' }]);
  // the plans must still hold (an improvement after the accounting plan ends is 422)
  plansOf({ ...asset, improvements, disposalDate: null });
  if (req.bill_id != null) {
    const books = await postingSettingsOf(ctx);
    refuseClosedPeriod(books.lockDate, 'the improvement', [{ field: 'date', date: req.date }]);
    await refuseUncoveredBill(ctx, req.bill_id, toDb(String(req.amount)), null);
    const amount = new Dec(req.amount);
    await postJournalEntry(ctx, opts, {
      kind: 'fixed_asset',
      datePosting: req.date,
      description: `Technical improvement of ${asset.inventory_number} ${asset.name}`.slice(0, 255),
      reference: `fixed_asset:${id}`,
      currency: books.legalCurrency,
      lines: [line(1, asset.asset_account, amount, new Dec(0), req.description ?? asset.name), line(2, ACQUISITION_ACCOUNT, new Dec(0), amount, `Bill ${req.bill_id}`)],
      total: amount,
      reversesId: null,
    });
  }
  await sqlRows(ctx.em, 'update fixed_assets set improvements = ?::jsonb, updated_at = ? where org_id = ? and id = ?', [JSON.stringify(improvements), ctx.now(), ctx.orgId, id]);
  return readAsset(ctx, id);
}

/** The tax years the taxpayer interrupts the asset's tax depreciation in (the books are not touched). */
export async function setTaxInterruptions(ctx: TenantContext, id: number, req: AssetTaxInterruptionsRequest): Promise<Asset> {
  const asset = await readAssetRow(ctx, id, true);
  const years = [...new Set(req.years)].sort();
  plansOf({ ...asset, interrupted_years: years, disposalDate: asset.disposal?.date ?? null });
  await sqlRows(ctx.em, 'update fixed_assets set interrupted_years = ?::int[], updated_at = ? where org_id = ? and id = ?', [`{${years.join(',')}}`, ctx.now(), ctx.orgId, id]);
  return readAsset(ctx, id);
}

/**
 * A sale or scrapping: the accounting depreciation of the months before the disposal's month not
 * yet posted (Dr 551 / Cr 082), then the accumulated depreciation and the cost cleared and the
 * book value left to 541 (Dr 082, Dr 541 / Cr 022), one journal entry on the day. The tax plan's
 * year of disposal claims half (§26(8)); what is left of the tax residual price is an expense of
 * that year. What the sale earns is invoiced as any sale.
 */
export async function disposeAsset(ctx: TenantContext, id: number, req: AssetDisposalRequest, opts: ApplyOptions): Promise<Asset> {
  const asset = await readAssetRow(ctx, id, true);
  if (asset.status === 'disposed') throw new ConflictError(`Fixed asset ${asset.inventory_number} was disposed of on ${asset.disposal?.date}`, 'asset_disposed');
  if (req.date < asset.date_in_use) {
    const message = `the disposal (${req.date}) comes before the asset was put into use (${asset.date_in_use})`;
    throw new BusinessRuleError(message, 'asset_dates_invalid', [{ path: 'date', message, code: 'asset_dates_invalid' }]);
  }
  const later = asset.improvements.filter((i) => i.date > req.date);
  if (later.length) {
    const message = `the asset was improved on ${later[0].date}, after the disposal (${req.date})`;
    throw new BusinessRuleError(message, 'asset_dates_invalid', [{ path: 'date', message, code: 'asset_dates_invalid' }]);
  }
  const books = await postingSettingsOf(ctx);
  refuseClosedPeriod(books.lockDate, 'the disposal', [{ field: 'date', date: req.date }]);
  const plans = plansOf({ ...asset, disposalDate: req.date });
  const planned = plans.accounting.reduce((s, r) => s.plus(r.depreciation), new Dec(0));
  const posted = new Dec(asset.posted);
  const catchUp = Dec.max(planned.minus(posted), 0);
  const cost = asset.improvements.reduce((s, i) => s.plus(i.amount), new Dec(asset.acquisition_cost));
  const accumulated = posted.plus(catchUp);
  const residual = cost.minus(accumulated);
  const label = `${asset.inventory_number} ${asset.name}`;
  const lines: StoredJournalLine[] = [];
  if (catchUp.gt(0)) {
    lines.push(line(lines.length + 1, asset.expense_account, catchUp, new Dec(0), `Depreciation to ${addMonths(periodOf(req.date), -1)}: ${label}`));
    lines.push(line(lines.length + 1, asset.accumulated_account, new Dec(0), catchUp, `Depreciation to ${addMonths(periodOf(req.date), -1)}: ${label}`));
  }
  if (accumulated.gt(0)) lines.push(line(lines.length + 1, asset.accumulated_account, accumulated, new Dec(0), `Accumulated depreciation cleared: ${label}`));
  if (residual.gt(0)) lines.push(line(lines.length + 1, DISPOSAL_EXPENSE_ACCOUNT, residual, new Dec(0), `Book value of ${label} (${req.kind})`));
  lines.push(line(lines.length + 1, asset.asset_account, new Dec(0), cost, `Cost cleared: ${label}`));
  const entry = await postJournalEntry(ctx, opts, {
    kind: 'fixed_asset',
    datePosting: req.date,
    description: `${req.kind === 'sale' ? 'Sale' : 'Scrapping'} of ${label}`.slice(0, 255),
    reference: `fixed_asset:${id}`,
    currency: books.legalCurrency,
    lines,
    total: lines.reduce((s, l) => s.plus(l.debit), new Dec(0)),
    reversesId: null,
  });
  if (catchUp.gt(0)) {
    await sqlRows(ctx.em, 'insert into asset_depreciation_postings (org_id, asset_id, period, amount, run_id, journal_entry_id) values (?, ?, ?, ?, null, ?)', [ctx.orgId, id, periodOf(req.date), toDb(catchUp), entry.id]);
  }
  const taxResidual = plans.tax.at(-1)?.residual ?? toDb(String(cost));
  const disposal = { date: req.date, kind: req.kind, residual: residual.toFixed(2), tax_residual: taxResidual, journal_entry_id: entry.id, journal_entry_no: entry.no };
  await sqlRows(ctx.em, `update fixed_assets set status = 'disposed', disposal = ?::jsonb, updated_at = ? where org_id = ? and id = ?`, [JSON.stringify(disposal), ctx.now(), ctx.orgId, id]);
  return readAsset(ctx, id);
}

