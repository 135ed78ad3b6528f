import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountingJournalEntryPostedEvent } from '@ledgerline/contracts';
import { ConflictError, insertRows, sqlRows, type TenantScope } from '@ledgerline/service-kit';
import { ClosedYearSchema } from '../db/entities.js';

/**
 * What settings knows of the years accounting has closed (decision 173), from its journal-entry
 * events: a closing entry (kind `year_end_close`, reversing nothing) closes the year of its
 * posting day; the entry reversing it reopens that year. Keyed by the closing entry, so a
 * reopening that arrives before its closing still leaves the year open.
 */
export async function recordClosingEntry(scope: TenantScope, entry: Pick<AccountingJournalEntryPostedEvent, 'id' | 'kind' | 'date_posting' | 'reverses'>): Promise<void> {
  const { em, orgId } = scope;
  if (entry.kind !== 'year_end_close') return;
  const year = Number(entry.date_posting.slice(0, 4));
  if (entry.reverses) {
    await insertRows(em, ClosedYearSchema, [{ orgId, closingEntryId: entry.reverses.id, year, reopened: true }], { onConflict: '(org_id, closing_entry_id) do update set reopened = true' });
    return;
  }
  await insertRows(em, ClosedYearSchema, [{ orgId, closingEntryId: entry.id, year, reopened: false }], { onConflict: 'do nothing' });
}

/** The latest year of the organisation that is closed and not reopened, or null. */
export async function latestClosedYear(em: EntityManager, orgId: number): Promise<number | null> {
  const [row] = await sqlRows<{ year: number | null }>(em, 'select max(year) as year from closed_years where org_id = ? and not reopened', [orgId]);
  return row?.year ?? null;
}

/**
 * A lock date may not reopen a closed year: postings into it would stand beside its closing entry,
 * its profit and loss accounts no longer closed and the next year's closing refused. The year is
 * reopened first (its closing reversed), then the lock date moved. `requested` null reopens every
 * period, so it is refused while any year is closed.
 */
export function refuseLockDateInClosedYear(requested: string | null, latestClosed: number | null): void {
  if (latestClosed === null) return;
  const yearEnd = `${latestClosed}-12-31`;
  if (requested !== null && requested >= yearEnd) return;
  throw new ConflictError(
    `${latestClosed} is closed: reopen it (POST /v1/accounting/year-end-closings/${latestClosed}/reopen) before moving the lock date before ${yearEnd}`,
    'year_closed',
    [{ path: 'lock_date', message: `${latestClosed} is closed: the lock date stays on or after ${yearEnd} until the year is reopened`, code: 'year_closed' }],
  );
}
