import type { JournalEntry, YearEndClosing, YearEndClosingRequest } from '@ledgerline/contracts';
import { BusinessRuleError, ConflictError, NotFoundError, dec, postingSettingsOf, sqlRows, toWire, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import type { StoredJournalLine } from '../db/entities.js';
import type { ApplyOptions } from '../events/ledger-events.js';
import { GENERAL_LEDGER_BOOK } from './chart.js';
import { listJournalEntries, postJournalEntry, readJournalEntry } from './journal-entries.js';
import { closingFigures, reversingLines, yearEndClosingLines } from './journal-lines.js';
import { trialBalanceFigures } from './trial-balance.js';

/*
 * The closing of a year (decision 170): every account of classes 5 and 6 closed to 710 on
 * 31 December and the result carried to 431, as one journal entry of kind year_end_close, posted
 * like any journal entry (numbered, announced, in the ledger in the request's transaction,
 * replayed by a rebuild). The year must already be closed for postings (its last day on or before
 * the lock date): its figures are final, and the closing is the one posting allowed into it.
 * Reopening reverses the closing entry on the same day, so a correction can be posted (after an
 * admin moved the lock date back) and the year closed again.
 */

const lastDayOf = (year: number) => `${year}-12-31`;

/** One closing or reopening of an organisation's year at a time: the second waits, then finds the first's. */
async function lockYear(scope: TenantScope, year: number): Promise<void> {
  const { em, orgId } = scope;
  await sqlRows(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [`year-end:${orgId}:${year}`]);
}

/** The year's closing entry that is not reversed, if any. */
async function activeClosing(scope: TenantScope, year: number): Promise<{ id: number; no: string; currency: string; total: string; lines: StoredJournalLine[] } | null> {
  const { em, orgId } = scope;
  const [row] = await sqlRows<{ id: string; no: string; currency: string; total: string; lines: StoredJournalLine[] }>(
    em,
    `select id, no, currency, total, lines from journal_entries
      where org_id = ? and kind = 'year_end_close' and date_posting = ?::date and reverses_id is null and reversed_by_id is null
      for update`,
    [orgId, lastDayOf(year)],
  );
  return row ? { ...row, id: Number(row.id) } : null;
}

/** A closing as answered: read off its journal entry (the journal's own view, its reversal linked). */
function closingView(entry: JournalEntry): YearEndClosing {
  const { revenue, expenses, profit } = closingFigures(entry.lines);
  return {
    year: Number(entry.date_posting.slice(0, 4)),
    status: entry.reversed_by ? 'reopened' : 'closed',
    date_posting: entry.date_posting,
    currency: entry.currency,
    revenue: toWire(revenue)!,
    expenses: toWire(expenses)!,
    profit: toWire(profit)!,
    journal_entry: { id: entry.id, no: entry.no },
    reopened_by: entry.reversed_by ?? null,
    created_at: entry.created_at,
    created_by: entry.created_by,
  };
}

export async function closeYear(ctx: TenantContext, req: YearEndClosingRequest, opts: ApplyOptions): Promise<YearEndClosing> {
  const { em, orgId } = ctx;
  const { year } = req;
  const lastDay = lastDayOf(year);
  await lockYear(ctx, year);
  const books = await postingSettingsOf(ctx);
  if (books.lockDate === null || books.lockDate < lastDay) {
    const message = `Close the period first: ${year} can be closed once the organisation's lock_date is ${lastDay} or later (it is ${books.lockDate ?? 'not set'}), so that nothing posts into the year after its closing`;
    throw new ConflictError(message, 'period_open', [{ path: 'year', message, code: 'period_open' }]);
  }
  const closed = await activeClosing(ctx, year);
  if (closed) throw new ConflictError(`${year} is already closed by journal entry ${closed.no}; reopen it first to close it again`, 'year_already_closed');

  const figures = (await trialBalanceFigures(ctx, { bookId: GENERAL_LEDGER_BOOK.id, dateFrom: `${year}-01-01`, dateTo: lastDay, today: lastDay })).filter(
    (f) => f.number.startsWith('5') || f.number.startsWith('6'),
  );
  // classes 5 and 6 start every year at nil once the years before are closed
  const carried = figures.filter((f) => !dec(f.ob).isZero());
  if (carried.length) {
    const shown = carried.slice(0, 5).map((f) => `${f.number} ${dec(f.ob).toFixed(2)}`);
    const message = `The years before ${year} are not closed: on ${year - 1}-12-31 classes 5 and 6 hold ${shown.join(', ')}${carried.length > 5 ? ', …' : ''}. Close ${year - 1} first (reopen and close it again if it was posted to after its closing)`;
    throw new ConflictError(message, 'earlier_year_open', [{ path: 'year', message, code: 'earlier_year_open' }]);
  }
  const closing = yearEndClosingLines(
    figures.map((f) => ({ number: f.number, debit: dec(f.debit), credit: dec(f.credit) })),
    year,
  );
  if (closing.lines.length === 0) {
    const message = `Classes 5 and 6 hold nothing in ${year}: there is nothing to close`;
    throw new BusinessRuleError(message, 'nothing_to_close', [{ path: 'year', message, code: 'nothing_to_close' }]);
  }
  const entry = await postJournalEntry(ctx, opts, {
    kind: 'year_end_close',
    datePosting: lastDay,
    description: `Closing of ${year}`,
    reference: null,
    currency: books.legalCurrency,
    lines: closing.lines,
    total: closing.total,
    reversesId: null,
  });
  return closingView(entry);
}

export async function reopenYear(ctx: TenantContext, year: number, opts: ApplyOptions): Promise<YearEndClosing> {
  const { em, orgId } = ctx;
  await lockYear(ctx, year);
  const closing = await activeClosing(ctx, year);
  if (!closing) {
    const [ever] = await sqlRows(em, `select 1 from journal_entries where org_id = ? and kind = 'year_end_close' and date_posting = ?::date limit 1`, [orgId, lastDayOf(year)]);
    if (ever) throw new ConflictError(`${year} is not closed: its closing was reversed already`, 'year_not_closed');
    throw new NotFoundError(`${year} has not been closed`, 'year_end_closing_not_found');
  }
  const reversal = await postJournalEntry(ctx, opts, {
    kind: 'year_end_close',
    datePosting: lastDayOf(year),
    description: `Reopening of ${year}: reversal of ${closing.no}`,
    reference: null,
    currency: closing.currency,
    lines: reversingLines(closing.lines),
    total: dec(closing.total),
    reversesId: closing.id,
  });
  await sqlRows(em, 'update journal_entries set reversed_by_id = ? where org_id = ? and id = ?', [reversal.id, orgId, closing.id]);
  return closingView(await readJournalEntry(ctx, closing.id));
}

/** The closings of years, newest first: the journal's closing entries that are not themselves reversals. */
export async function listYearEndClosings(scope: TenantScope, q: { from: number; take: number }): Promise<{ rows: YearEndClosing[]; total: number }> {
  const { em, orgId } = scope;
  const page = await listJournalEntries(em, orgId, { ...q, kind: 'year_end_close', reversals: false, sort: ['-date_posting', '-id'] });
  return { rows: page.rows.map(closingView), total: page.total };
}
