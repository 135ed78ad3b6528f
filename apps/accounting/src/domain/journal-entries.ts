import type { EntityManager } from '@mikro-orm/postgresql';
import { SUBJECTS, type CloudEvent, type JournalEntry, type JournalEntryKind, type JournalEntryRequest, type JournalEntryReverse } from '@ledgerline/contracts';
import {
  BusinessRuleError,
  ConflictError,
  NotFoundError,
  dec,
  insertRows,
  listEntityPage,
  type ListedPage,
  parseRange,
  postingSettingsOf,
  readEntity,
  recordPreparedEvent,
  refuseClosedPeriod,
  sortedPage,
  sqlRows,
  toDb,
  toWire,
  where,
  type Dec,
  type SqlCondition,
  type TenantContext,
  type TenantScope,
} from '@ledgerline/service-kit';
import { JournalEntrySchema, type JournalEntryRecord, type StoredJournalLine } from '../db/entities.js';
import { applyLedgerEvent, type ApplyOptions } from '../events/ledger-events.js';
import { journalLines, journalNo, reversingLines } from './journal-lines.js';

/*
 * Manual journal entries (decision 165). An entry is numbered, stored, announced and posted to
 * the ledger in the request's one transaction: answered 200 means in the ledger once, and a
 * refused entry leaves nothing — not its number either. A posted entry never changes; a
 * reversing entry undoes it.
 */

/**
 * The next number of the organisation's series for the year: the counter row stays locked until
 * the entry commits, so concurrent entries are numbered in commit order and a rolled-back one
 * gives its number back.
 */
async function nextJournalNo(scope: TenantScope, datePosting: string): Promise<string> {
  const { em, orgId } = scope;
  const year = Number(datePosting.slice(0, 4));
  const [row] = await sqlRows<{ last: number }>(
    em,
    `insert into journal_entry_numbers (org_id, year, last) values (?, ?, 1)
     on conflict (org_id, year) do update set last = journal_entry_numbers.last + 1 returning last`,
    [orgId, year],
  );
  return journalNo(year, Number(row.last));
}

const notFound = (id: number) => new NotFoundError(`Journal entry ${id} does not exist`, 'journal_entry_not_found');

/** The numbers of linked entries, for views: one statement for a page. */
export async function numbersOf(scope: TenantScope, ids: number[]): Promise<Map<number, string>> {
  const { em, orgId } = scope;
  if (!ids.length) return new Map();
  const rows = await sqlRows<{ id: string; no: string }>(em, 'select id, no from journal_entries where org_id = ? and id = any(?::bigint[])', [orgId, `{${ids.join(',')}}`]);
  return new Map(rows.map((r) => [Number(r.id), r.no]));
}

export function journalEntryView(r: JournalEntryRecord, numbers: ReadonlyMap<number, string>): JournalEntry {
  const link = (id: number | null | undefined) => (id == null ? null : { id: Number(id), no: numbers.get(Number(id)) ?? '' });
  return {
    id: Number(r.id),
    no: r.no,
    kind: r.kind,
    date_posting: r.datePosting,
    description: r.description,
    reference: r.reference ?? null,
    currency: r.currency,
    total: toWire(r.total),
    lines: r.lines.map((l) => ({ order: l.order, account_number: l.account_number, debit: toWire(l.debit), credit: toWire(l.credit), description: l.description })),
    reverses: link(r.reversesId),
    reversed_by: link(r.reversedById),
    created_at: new Date(r.createdAt).toISOString(),
    created_by: r.createdBy,
  };
}

async function viewsOf(scope: TenantScope, rows: JournalEntryRecord[]): Promise<JournalEntry[]> {
  const { em, orgId } = scope;
  const linked = rows.flatMap((r) => [r.reversesId, r.reversedById]).filter((id): id is number => id != null).map(Number);
  const numbers = await numbersOf(scope, [...new Set(linked)]);
  return rows.map((r) => journalEntryView(r, numbers));
}

export async function readJournalEntry(scope: TenantScope, id: number): Promise<JournalEntry> {
  const { em, orgId } = scope;
  const r = await readEntity(em, JournalEntrySchema, orgId, id);
  if (!r) throw notFound(id);
  return (await viewsOf(scope, [r]))[0];
}

const SORTABLE: Record<string, string> = { id: 'id', no: 'no', date_posting: 'date_posting', total: 'total', created_at: 'created_at' };

export async function listJournalEntries(
  em: EntityManager,
  orgId: number,
  q: { from: number; take: number; cursor?: string; exact_total?: boolean; date_posting?: string; kind?: JournalEntryKind; reversals?: false; search?: string; sort?: string[] },
): Promise<ListedPage<JournalEntry>> {
  const conditions: SqlCondition[] = [...where.within('date_posting', parseRange('date_posting', q.date_posting, 'date'))];
  if (q.kind) conditions.push(where.eq('kind', q.kind));
  if (q.reversals === false) conditions.push({ sql: 'reverses_id is null', params: [] });
  if (q.search) conditions.push(where.containsAny(['no', 'description', 'reference'], q.search));
  const page = await listEntityPage(em, JournalEntrySchema, {
    orgId,
    conditions,
    ...sortedPage(q, SORTABLE, [
      { field: 'date_posting', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]),
  });
  return { ...page, rows: await viewsOf({ em, orgId }, page.rows) };
}

/**
 * Stores an entry, announces it (`accounting.journal_entry.posted`) and posts it to the ledger
 * from that same event, as a rebuild would replay it, in the request's transaction.
 */
export async function postJournalEntry(
  ctx: TenantContext,
  opts: ApplyOptions,
  entry: { kind: JournalEntryKind; datePosting: string; description: string; reference: string | null; currency: string; lines: StoredJournalLine[]; total: Dec; reversesId: number | null },
): Promise<JournalEntry> {
  const { em, orgId } = ctx;
  const no = await nextJournalNo(ctx, entry.datePosting);
  const [row] = (await insertRows(
    em,
    JournalEntrySchema,
    [{ orgId, no, kind: entry.kind, datePosting: entry.datePosting, description: entry.description, reference: entry.reference, currency: entry.currency, total: toDb(entry.total), lines: entry.lines, reversesId: entry.reversesId, createdBy: ctx.actor }],
    { returning: ['id', 'created_at'] },
  )) as Array<{ id: string; created_at: Date }>;
  const id = Number(row.id);
  const record: JournalEntryRecord = {
    id,
    orgId,
    no,
    kind: entry.kind,
    datePosting: entry.datePosting,
    description: entry.description,
    reference: entry.reference,
    currency: entry.currency,
    total: toDb(entry.total),
    lines: entry.lines,
    reversesId: entry.reversesId,
    reversedById: null,
    createdAt: row.created_at,
    createdBy: ctx.actor,
  };
  const [view] = await viewsOf(ctx, [record]);
  // the ledger posts from the envelope exactly as the relay will publish it, as a rebuild reads it
  const announced = ctx.prepareEvent({ subject: SUBJECTS.accountingJournalEntryPosted, orgId, resource: String(id), data: view });
  await recordPreparedEvent(em, announced);
  const event = JSON.parse(announced.json) as CloudEvent;
  await applyLedgerEvent({ em, emit: ctx.emit }, 'journal_entry', event, opts);
  return view;
}

export async function createJournalEntry(ctx: TenantContext, req: JournalEntryRequest, opts: ApplyOptions): Promise<JournalEntry> {
  const books = await postingSettingsOf(ctx);
  refuseClosedPeriod(books.lockDate, 'the journal entry', [{ field: 'date_posting', date: req.date_posting }]);
  const { lines, total } = journalLines(req.lines);
  return postJournalEntry(ctx, opts, {
    kind: 'manual',
    datePosting: req.date_posting,
    description: req.description,
    reference: req.reference ?? null,
    currency: books.legalCurrency,
    lines,
    total,
    reversesId: null,
  });
}

/**
 * Reverses an entry with a new one, every line on the other side, posted on `date_posting` (the
 * reversed entry's own day when absent; never before it: 422 `reversal_before_entry`). 409 when the entry is already reversed or is itself a
 * reversal; the reversed entry is locked first, so two reversals racing make one.
 */
export async function reverseJournalEntry(ctx: TenantContext, id: number, req: JournalEntryReverse, opts: ApplyOptions): Promise<JournalEntry> {
  const { em, orgId } = ctx;
  const [original] = await sqlRows<{ no: string; kind: JournalEntryKind; date_posting: string; description: string; reference: string | null; currency: string; total: string; lines: StoredJournalLine[]; reverses_id: string | null; reversed_by_id: string | null }>(
    em,
    `select no, kind, to_char(date_posting, 'YYYY-MM-DD') as date_posting, description, reference, currency, total, lines, reverses_id, reversed_by_id
       from journal_entries where org_id = ? and id = ? for update`,
    [orgId, id],
  );
  if (!original) throw notFound(id);
  if (original.reversed_by_id !== null) {
    const [by] = (await numbersOf(ctx, [Number(original.reversed_by_id)])).values();
    throw new ConflictError(`Journal entry ${original.no} is already reversed by ${by}`, 'journal_entry_reversed');
  }
  if (original.kind === 'year_end_close') {
    const year = original.date_posting.slice(0, 4);
    throw new ConflictError(
      `Journal entry ${original.no} is part of the closing of ${year}: a year is reopened with POST /v1/accounting/year-end-closings/${year}/reopen, and closed again with POST /v1/accounting/year-end-closings`,
      'journal_entry_is_closing',
    );
  }
  if (original.kind === 'fx_revaluation' || original.kind === 'fx_settlement') {
    const by = original.kind === 'fx_revaluation' ? 'its revaluation, which reverses it on the next day' : 'the set-off it belongs to: taking the allocation back reverses it';
    throw new ConflictError(`Journal entry ${original.no} is posted and reversed by ${by}`, 'journal_entry_is_automatic');
  }
  if (original.reverses_id !== null) {
    throw new ConflictError(`Journal entry ${original.no} is a reversal itself: post a new entry instead of reversing it`, 'journal_entry_is_reversal');
  }
  const datePosting = req.date_posting ?? original.date_posting;
  if (datePosting < original.date_posting) {
    const message = `The reversal would post on ${datePosting}, before journal entry ${original.no} itself (${original.date_posting})`;
    throw new BusinessRuleError(message, 'reversal_before_entry', [{ path: 'date_posting', message, code: 'reversal_before_entry' }]);
  }
  const books = await postingSettingsOf(ctx);
  refuseClosedPeriod(books.lockDate, `the reversal of journal entry ${original.no}`, [{ field: req.date_posting ? 'date_posting' : 'id', date: datePosting }]);
  const reversal = await postJournalEntry(ctx, opts, {
    kind: 'manual',
    datePosting,
    description: req.description ?? `Reversal of ${original.no}: ${original.description}`.slice(0, 255),
    reference: original.reference,
    currency: original.currency,
    lines: reversingLines(original.lines),
    total: dec(original.total),
    reversesId: id,
  });
  await sqlRows(em, 'update journal_entries set reversed_by_id = ? where org_id = ? and id = ?', [reversal.id, orgId, id]);
  return reversal;
}
