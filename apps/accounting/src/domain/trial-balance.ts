import type { TrialBalanceExport } from '@ledgerline/contracts';
import { dec, NotFoundError, organisationReplica, sqlRows, toWire, type OrganisationReplica, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { daySums } from './day-sums.js';
import { ensureChart } from './ledger-store.js';
import { glAccountView, accountsOf } from './transactions.js';
import type { ChartLocale } from './chart.js';

/*
 * Trial balance of a book (architecture §6), computed with one aggregate over the ledger's sums
 * per day and account (`daySums`, decision 215), whatever the number of rows behind them.
 */

export interface TrialBalanceQuery {
  bookId: number;
  dateFrom?: string;
  dateTo?: string;
  accountFrom?: string;
  accountTo?: string;
  /** Today, for year-to-date figures when the range has no end. */
  today: string;
}

export interface TrialBalanceFigures {
  number: string;
  ob: string;
  debit: string;
  credit: string;
  ytd_debit: string;
  ytd_credit: string;
}

/** 1 January of the year of `date_to` (or of today when the range is open-ended). */
export function yearStart(dateTo: string | undefined, today: string): string {
  return `${(dateTo ?? today).slice(0, 4)}-01-01`;
}

export async function trialBalanceFigures(scope: TenantScope, q: TrialBalanceQuery): Promise<TrialBalanceFigures[]> {
  const { em, orgId } = scope;
  const ytdFrom = yearStart(q.dateTo, q.today);
  const params: unknown[] = [];
  const before = q.dateFrom ? 'r.date_posting < ?::date' : 'false';
  if (q.dateFrom) params.push(q.dateFrom);
  const within = [q.dateFrom ? 'r.date_posting >= ?::date' : 'true', q.dateTo ? 'r.date_posting <= ?::date' : 'true'].join(' and ');
  const withinParams = [...(q.dateFrom ? [q.dateFrom] : []), ...(q.dateTo ? [q.dateTo] : [])];
  params.push(...withinParams, ...withinParams);
  const ytd = `r.date_posting >= ?::date${q.dateTo ? ' and r.date_posting <= ?::date' : ''}`;
  const ytdParams = [ytdFrom, ...(q.dateTo ? [q.dateTo] : [])];
  params.push(...ytdParams, ...ytdParams);

  const where = ['r.org_id = ?', 'r.book_id = ?'];
  const whereParams: unknown[] = [orgId, q.bookId];
  if (q.dateTo) {
    where.push('r.date_posting <= ?::date');
    whereParams.push(q.dateTo);
  }
  if (q.accountFrom !== undefined) {
    where.push('r.gl_account_number collate "C" >= ? collate "C"');
    whereParams.push(q.accountFrom);
  }
  if (q.accountTo !== undefined) {
    where.push('r.gl_account_number collate "C" <= ? collate "C"');
    whereParams.push(q.accountTo);
  }
  const sums = daySums(where.join(' and '));
  params.push(...sums.params(whereParams));
  const sql = `
    select r.gl_account_number as number,
      coalesce(sum(case when ${before} then r.debit - r.credit end), 0) as ob,
      coalesce(sum(case when ${within} then r.debit end), 0) as debit,
      coalesce(sum(case when ${within} then r.credit end), 0) as credit,
      coalesce(sum(case when ${ytd} then r.debit end), 0) as ytd_debit,
      coalesce(sum(case when ${ytd} then r.credit end), 0) as ytd_credit
    from ${sums.from}
    group by r.gl_account_number
    order by r.gl_account_number collate "C"`;
  const rows = await sqlRows<Record<string, string>>(em, sql, params);
  return rows
    .map((r) => ({ number: r.number, ob: String(r.ob), debit: String(r.debit), credit: String(r.credit), ytd_debit: String(r.ytd_debit), ytd_credit: String(r.ytd_credit) }))
    .filter((r) => [r.ob, r.debit, r.credit, r.ytd_debit, r.ytd_credit].some((v) => !dec(v).isZero()));
}

/** The organisation's legal currency: its profile (read here unless the caller has it), else its latest entry's, else the default. */
export async function legalCurrencyOf(scope: TenantScope, fallback: string, known?: OrganisationReplica | null): Promise<string> {
  const { em, orgId } = scope;
  const profile = known !== undefined ? known : await organisationReplica(scope);
  if (profile) return profile.legalCurrency;
  const rows = await sqlRows<{ legal_currency: string }>(em, 'select legal_currency from accounting_transactions where org_id = ? order by id desc limit 1', [orgId]);
  return rows[0]?.legal_currency ?? fallback;
}

export interface TrialBalanceRowView {
  gl_account: ReturnType<typeof glAccountView>;
  ob: number;
  debit: number;
  credit: number;
  cb: number;
  ytd_debit: number;
  ytd_credit: number;
}

export interface TrialBalanceView {
  currency: string;
  period_from: string | null;
  period_to: string | null;
  date_from: string | null;
  date_to: string | null;
  rows: TrialBalanceRowView[];
}

export async function trialBalance({ em, orgId }: TenantContext, q: TrialBalanceQuery, locale: ChartLocale, defaultCurrency: string): Promise<TrialBalanceView> {
  await ensureChart({ em, orgId });
  const book = await sqlRows(em, 'select id from books where org_id = ? and id = ?', [orgId, q.bookId]);
  if (book.length === 0) throw new NotFoundError(`Book ${q.bookId} does not exist`, 'book_not_found');
  const figures = await trialBalanceFigures({ em, orgId }, q);
  const accounts = await accountsOf(em);
  const currency = await legalCurrencyOf({ em, orgId }, defaultCurrency);
  return {
    currency,
    period_from: q.dateFrom ? q.dateFrom.slice(0, 7) : null,
    period_to: q.dateTo ? q.dateTo.slice(0, 7) : null,
    date_from: q.dateFrom ?? null,
    date_to: q.dateTo ?? null,
    rows: figures.map((f) => ({
      gl_account: glAccountView(f.number, accounts, locale),
      ob: toWire(f.ob)!,
      debit: toWire(f.debit)!,
      credit: toWire(f.credit)!,
      cb: toWire(dec(f.ob).plus(f.debit).minus(f.credit))!,
      ytd_debit: toWire(f.ytd_debit)!,
      ytd_credit: toWire(f.ytd_credit)!,
    })),
  };
}

// --- export shapes -------------------------------------------------------------------------------

export const ALL_COLUMNS = ['gl_account.number', 'gl_account.name', 'ob', 'debit', 'credit', 'cb', 'ytd_debit', 'ytd_credit'] as const;
export type ColumnKey = (typeof ALL_COLUMNS)[number];
export interface Column {
  key: ColumnKey;
  title?: string;
}

/** The first non-empty `columns` list of the body selects and orders the columns; else all of them. */
export function selectedColumns(body: Array<{ columns?: Column[] | null }> | undefined | null): Column[] {
  const chosen = (body ?? []).find((b) => b.columns && b.columns.length > 0)?.columns;
  return chosen ?? ALL_COLUMNS.map((key) => ({ key }));
}

function cell(row: TrialBalanceRowView, key: ColumnKey): string | number | null {
  switch (key) {
    case 'gl_account.number':
      return row.gl_account.number;
    case 'gl_account.name':
      return row.gl_account.name;
    default:
      return row[key];
  }
}

/** JSON rows keep only the selected figures (gl_account with the selected fields and its id). */
export function projectRows(tb: TrialBalanceView, columns: Column[]): TrialBalanceExport {
  const all = columns.length === ALL_COLUMNS.length && ALL_COLUMNS.every((k) => columns.some((c) => c.key === k));
  if (all) return tb;
  return {
    ...tb,
    rows: tb.rows.map((row) => {
      const out: Record<string, unknown> = {};
      for (const c of columns) {
        if (c.key.startsWith('gl_account.')) {
          const ga = (out.gl_account as Record<string, unknown>) ?? { id: row.gl_account.id };
          ga[c.key.slice('gl_account.'.length)] = cell(row, c.key);
          out.gl_account = ga;
        } else out[c.key] = cell(row, c.key);
      }
      return out as TrialBalanceExport['rows'][number];
    }),
  };
}

function csvField(v: string | number | null): string {
  if (v === null) return '';
  const s = typeof v === 'number' ? dec(v).toFixed(2) : v;
  return /[",\r\n;]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** UTF-8 CSV with a header row (titles, or the keys), amounts with two decimals. */
export function trialBalanceCsv(tb: TrialBalanceView, columns: Column[]): string {
  const lines = [columns.map((c) => csvField(c.title ?? c.key)).join(',')];
  for (const row of tb.rows) lines.push(columns.map((c) => csvField(cell(row, c.key))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
