import { Dec } from '@ledgerline/core/money';
import type { DepreciationRun, DepreciationRunRequest } from '@ledgerline/contracts';
import { BusinessRuleError, postingSettingsOf, refuseClosedPeriod, sqlRows, toDb, toWire, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import type { StoredJournalLine } from '../../db/entities.js';
import type { ApplyOptions } from '../../events/ledger-events.js';
import { postJournalEntry } from '../journal-entries.js';
import { ASSET_COLUMNS, ASSET_FROM, plansOf, type AssetRow } from './register.js';

/*
 * A month's depreciation (issue 77): one journal entry of kind depreciation on the month's last
 * day, Dr expense / Cr accumulated depreciation per asset, of what each asset's accounting plan
 * has accumulated by the month and the books do not hold yet (a month missed, or an asset entered
 * late, is caught up, never posted twice). One run a month: the same month asked again answers
 * the run there is (the runs of an organisation's month wait for each other on a lock), and a
 * month in a closed period is 409.
 */

interface RunRow {
  id: string;
  period: string;
  total: string;
  journal_entry_id: string;
  journal_entry_no: string;
  created_ms: string;
}

const RUN_COLUMNS = `r.id, r.period, r.total::text as total, r.journal_entry_id, j.no as journal_entry_no, (extract(epoch from r.created_at) * 1000)::bigint as created_ms`;
const RUN_FROM = 'depreciation_runs r join journal_entries j on j.org_id = r.org_id and j.id = r.journal_entry_id';

async function runViews(scope: TenantScope, runs: RunRow[]): Promise<DepreciationRun[]> {
  if (runs.length === 0) return [];
  const lines = await sqlRows<{ run_id: string; asset_id: string; inventory_number: string; amount: string }>(
    scope.em,
    `select p.run_id, p.asset_id, a.inventory_number, p.amount::text as amount from asset_depreciation_postings p join fixed_assets a on a.id = p.asset_id
      where p.org_id = ? and p.run_id = any(?::bigint[]) order by p.run_id, a.inventory_number`,
    [scope.orgId, runs.map((r) => r.id)],
  );
  return runs.map((r) => ({
    id: Number(r.id),
    period: r.period,
    total: toWire(r.total)!,
    journal_entry: { id: Number(r.journal_entry_id), no: r.journal_entry_no },
    lines: lines.filter((l) => l.run_id === r.id).map((l) => ({ asset_id: Number(l.asset_id), inventory_number: l.inventory_number, amount: toWire(l.amount)! })),
    created_at: new Date(Number(r.created_ms)).toISOString(),
  }));
}

export async function listDepreciationRuns(scope: TenantScope, q: { from: number; take: number }): Promise<{ rows: DepreciationRun[]; total: number }> {
  const [{ n }] = await sqlRows<{ n: string }>(scope.em, 'select count(*) as n from depreciation_runs where org_id = ?', [scope.orgId]);
  const runs = await sqlRows<RunRow>(scope.em, `select ${RUN_COLUMNS} from ${RUN_FROM} where r.org_id = ? order by r.period desc limit ? offset ?`, [scope.orgId, q.take, q.from]);
  return { rows: await runViews(scope, runs), total: Number(n) };
}

const lastDayOf = (period: string) => {
  const [y, m] = period.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};

export async function createDepreciationRun(ctx: TenantContext, req: DepreciationRunRequest, opts: ApplyOptions): Promise<DepreciationRun> {
  const { em, orgId } = ctx;
  await sqlRows(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [`depreciation-run:${orgId}:${req.period}`]);
  const [existing] = await sqlRows<RunRow>(em, `select ${RUN_COLUMNS} from ${RUN_FROM} where r.org_id = ? and r.period = ?`, [orgId, req.period]);
  if (existing) return (await runViews(ctx, [existing]))[0];
  const datePosting = lastDayOf(req.period);
  const books = await postingSettingsOf(ctx);
  refuseClosedPeriod(books.lockDate, `the depreciation of ${req.period}`, [{ field: 'period', date: datePosting }]);

  // every asset in use before the month and not disposed of before its end, locked against a disposal racing the run
  const assets = await sqlRows<AssetRow>(
    em,
    `select ${ASSET_COLUMNS} from ${ASSET_FROM}
      where a.org_id = ? and a.status = 'active' and a.date_in_use < ?::date order by a.inventory_number for update of a`,
    [orgId, `${req.period}-01`],
  );
  const due = assets.flatMap((a) => {
    const upTo = plansOf({ ...a, disposalDate: null }).accounting.filter((row) => row.period <= req.period);
    const amount = upTo.reduce((s, row) => s.plus(row.depreciation), new Dec(0)).minus(a.posted);
    return amount.gt(0) ? [{ asset: a, amount }] : [];
  });
  if (due.length === 0) {
    const message = `Nothing to depreciate in ${req.period}: no asset in use has depreciation due by then that is not posted`;
    throw new BusinessRuleError(message, 'nothing_to_depreciate', [{ path: 'period', message, code: 'nothing_to_depreciate' }]);
  }
  const lines: StoredJournalLine[] = due.flatMap(({ asset, amount }, i) => [
    { order: 2 * i + 1, account_number: asset.expense_account, debit: toDb(amount), credit: toDb(0), description: `${asset.inventory_number} ${asset.name}`.slice(0, 255) },
    { order: 2 * i + 2, account_number: asset.accumulated_account, debit: toDb(0), credit: toDb(amount), description: `${asset.inventory_number} ${asset.name}`.slice(0, 255) },
  ]);
  const total = due.reduce((s, d) => s.plus(d.amount), new Dec(0));
  const entry = await postJournalEntry(ctx, opts, {
    kind: 'depreciation',
    datePosting,
    description: `Depreciation of fixed assets, ${req.period}`,
    reference: `depreciation_run:${req.period}`,
    currency: books.legalCurrency,
    lines,
    total,
    reversesId: null,
  });
  const [{ id }] = await sqlRows<{ id: string }>(em, 'insert into depreciation_runs (org_id, period, total, journal_entry_id, created_at) values (?, ?, ?, ?, ?) returning id', [orgId, req.period, toDb(total), entry.id, ctx.now()]);
  for (const { asset, amount } of due) {
    await sqlRows(em, 'insert into asset_depreciation_postings (org_id, asset_id, period, amount, run_id, journal_entry_id) values (?, ?, ?, ?, ?, ?)', [orgId, asset.id, req.period, toDb(amount), id, entry.id]);
  }
  const [run] = await sqlRows<RunRow>(em, `select ${RUN_COLUMNS} from ${RUN_FROM} where r.org_id = ? and r.id = ?`, [orgId, id]);
  return (await runViews(ctx, [run]))[0];
}
