import { hash } from 'node:crypto';
import type { EntityManager, EntitySchema } from '@mikro-orm/postgresql';
import { dec, insertRows, rowJsonOf, sqlRows, tableShape, toDb, type TableShape, type TenantScope } from '@ledgerline/service-kit';
import { AccountingTransactionSchema, BookSchema, GlAccountSchema, LedgerRowSchema, LedgerTaxRowSchema, type AccountingTransactionRecord, type LedgerRowRecord, type LedgerTaxRowRecord } from '../db/entities.js';
import { DEFAULT_CHART, GENERAL_LEDGER_BOOK } from './chart.js';
import { reversalOf, type DraftRow, type DraftTaxRow, type LedgerEntryDraft } from './posting.js';
import type { SourceType } from './posting-map.js';
import { storeViews } from './entry-views.js';

/*
 * Writing the ledger. Plain SQL, always with `org_id` explicit; run inside the caller's
 * transaction (a consumer's inbox transaction, or a rebuild's).
 */

/**
 * Organisations whose chart is known to be committed, per database (the ORM's configuration is
 * one object per database): their postings skip the seeding statements.
 */
const seededCharts = new WeakMap<object, Set<number>>();

/**
 * Seeds the chart of accounts and book 1 of an organisation (idempotent). The seed runs on each
 * organisation's first posting in a process (so accounts added to the default chart reach existing
 * organisations after a deploy); once the book is seen committed — visible before this
 * transaction's own insert — later postings skip it. Never cached on the strength of an insert
 * that might still roll back.
 */
export async function ensureChart(scope: TenantScope): Promise<void> {
  const { em, orgId } = scope;
  const known = seededCharts.get(em.config) ?? new Set<number>();
  seededCharts.set(em.config, known);
  if (known.has(orgId)) return;
  const [book] = await sqlRows<{ committed: boolean }>(em, 'select exists (select 1 from books where org_id = ? and id = ?) as committed', [orgId, GENERAL_LEDGER_BOOK.id]);
  const accounts = DEFAULT_CHART.map((a) => ({ orgId, number: a.number, nameCs: a.name['cs-CZ'], nameEn: a.name['en-US'] }));
  await insertRows(em, GlAccountSchema, accounts, { onConflict: '(org_id, number) do nothing' });
  await insertRows(em, BookSchema, [{ orgId, id: GENERAL_LEDGER_BOOK.id, name: GENERAL_LEDGER_BOOK.name }], { onConflict: 'do nothing' });
  if (book?.committed) known.add(orgId);
}

/** Deterministic uid of an entry: the same source fact always yields the same uid (rebuilds too). */
export function entryUid(orgId: number, source: { type: string; id: number; version: number }, kind: 'posting' | 'reversal'): string {
  const h = hash('sha256', `ledgerline:${orgId}:${source.type}:${source.id}:${source.version}:${kind}`, 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

const n = (v: { toFixed: (d: number) => string } | null | undefined, dp = 2) => (v === null || v === undefined ? null : v.toFixed(dp));

export interface StoredEntry {
  id: number;
  uid: string;
  entry: LedgerEntryDraft;
  /**
   * The rows as stored (database column names, decimals as strings), from which the posted event
   * is built, with the chart's accounts they name.
   */
  stored: { transaction: Record<string, unknown>; rows: Array<Record<string, unknown>>; taxRows: Array<Record<string, unknown>>; accounts: Array<Record<string, unknown>> };
}

/**
 * What `ledger_insert_entry` answers: what the database chose for the stored rows (the header's
 * id and `created_at`, the rows' and tax rows' ids in the order sent), or why nothing was stored.
 */
type PostAnswer =
  | { skipped: 'duplicate' | 'stale_version'; replaces?: undefined; transaction?: undefined }
  | { replaces: number; skipped?: undefined; transaction?: undefined }
  | {
      transaction: { id: number; created_at: string };
      row_ids: number[];
      tax_row_ids: number[];
      accounts: Array<Record<string, unknown>>;
      skipped?: undefined;
      replaces?: undefined;
    };

/** The advisory lock that serialises postings of one source document (concurrent versions of a payout). */
const sourceLock = (orgId: number, source: { type: string; id: number }) => `${orgId}:${source.type}:${source.id}`;

/** An entry as `ledger_insert_entry` takes it: its lock, the header and rows in their columns' form, the accounts they name. */
interface EntryPayload {
  uid: string;
  entry: LedgerEntryDraft;
  lock: string;
  header: Record<string, unknown>;
  rows: Array<Record<string, unknown>>;
  taxes: Array<Record<string, unknown>>;
  accounts: string[];
}

/** The outcome of storing one entry. */
type StoreOutcome = { stored: StoredEntry } | { skipped: 'duplicate' | 'stale_version' } | { replaces: number };

/** The ledger tables' shapes (columns and casts) rows are built with: plain data, so a drafting thread has them too. */
export interface LedgerShapes {
  transaction: TableShape;
  row: TableShape;
  tax: TableShape;
}

export function ledgerShapes(em: EntityManager): LedgerShapes {
  return { transaction: tableShape(em, AccountingTransactionSchema), row: tableShape(em, LedgerRowSchema), tax: tableShape(em, LedgerTaxRowSchema) };
}

function entryPayload(scope: TenantScope, entry: LedgerEntryDraft, eventId: string | null, reversesId: number | null): EntryPayload {
  return entryPayloadOf(ledgerShapes(scope.em), scope.orgId, entry, eventId, reversesId);
}

function entryPayloadOf(shapes: LedgerShapes, orgId: number, entry: LedgerEntryDraft, eventId: string | null, reversesId: number | null): EntryPayload {
  const uid = entryUid(orgId, entry.source, entry.entry_kind);
  const transaction: Partial<AccountingTransactionRecord> = {
    uid,
    bookId: GENERAL_LEDGER_BOOK.id,
    type: entry.type,
    sourceType: entry.source.type,
    sourceId: entry.source.id,
    sourceVersion: entry.source.version,
    entryKind: entry.entry_kind,
    sourceEventId: eventId,
    reversesId,
    accountingStatus: 'posted',
    no: entry.no,
    vendorDocNo: entry.vendor_doc_no,
    creditedDocNo: entry.credited_doc_no,
    paymentReference: entry.payment_reference,
    description: entry.description,
    dateIssued: entry.date_issued,
    dateDue: entry.date_due,
    datePosting: entry.date_posting,
    dateTaxable: entry.date_taxable,
    dateTaxApplied: entry.date_tax_applied,
    currency: entry.currency,
    legalCurrency: entry.legal_currency,
    precision: entry.precision ?? 2,
    transactionType: entry.transaction_type,
    contact: entry.contact,
    bankAccount: entry.bank_account,
    taxNexus: entry.tax_nexus,
    paidRecord: entry.paid_record,
    fxRates: entry.fx_rates ?? [],
    taxDeductionRatio: n(entry.tax_deduction_ratio, 6),
    netDeductionRatio: n(entry.net_deduction_ratio, 6),
    amountPaid: n(entry.amount_paid),
    amountDue: n(entry.amount_due),
    total: toDb(entry.total),
  };
  const rows = entry.rows.map((r: DraftRow, i) =>
    rowJsonOf(shapes.row, {
      bookId: GENERAL_LEDGER_BOOK.id,
      ord: i + 1,
      role: r.role,
      datePosting: entry.date_posting,
      glAccountNumber: r.gl_account_number,
      debit: toDb(r.debit),
      credit: toDb(r.credit),
      description: r.description,
      currency: r.currency,
      paymentAmount: n(r.payment_amount),
      paymentReference: r.payment_reference,
      contact: r.contact,
      paidRecord: r.paid_record,
      fxRates: entry.fx_rates,
      taxDeductionRatio: n(r.tax_deduction_ratio, 6),
      netDeductionRatio: n(r.net_deduction_ratio, 6),
    } satisfies Partial<LedgerRowRecord>),
  );
  let k = 0;
  const taxes = entry.rows.flatMap((r, i) =>
    r.taxes.map((t: DraftTaxRow) =>
      rowJsonOf(
        shapes.tax,
        {
          ord: ++k,
          glAccountNumber: t.gl_account_number,
          debit: toDb(t.debit),
          credit: toDb(t.credit),
          description: t.description,
          currency: t.currency,
          taxRate: n(t.tax_rate, 4),
          taxRateRc: n(t.tax_rate_rc, 4),
          isReverseCharge: t.is_reverse_charge ?? false,
          taxIndex: t.tax_index,
          taxCode: t.tax_code,
          taxName: t.tax_name,
          taxBaseIn: n(t.tax_base_in),
          taxBaseInLeg: n(t.tax_base_in_leg),
          taxBaseOut: n(t.tax_base_out),
          taxBaseOutLeg: n(t.tax_base_out_leg),
          taxAmountIn: n(t.tax_amount_in),
          taxAmountInLeg: n(t.tax_amount_in_leg),
          taxAmountClaim: n(t.tax_amount_claim),
          taxAmountClaimLeg: n(t.tax_amount_claim_leg),
          taxAmountOut: n(t.tax_amount_out),
          taxAmountOutLeg: n(t.tax_amount_out_leg),
          taxReturnBaseIn: t.tax_return_base_in,
          taxReturnBaseOut: t.tax_return_base_out,
          taxReturnAmountClaim: t.tax_return_amount_claim,
          taxReturnAmountOut: t.tax_return_amount_out,
          taxControlStatement: t.tax_control_statement,
          taxEuSalesReport: t.tax_eu_sales_report,
          taxDeductionRatio: n(t.tax_deduction_ratio, 6),
          netDeductionRatio: n(t.net_deduction_ratio, 6),
        } satisfies Partial<LedgerTaxRowRecord>,
        { row_ord: i + 1 },
      ),
    ),
  );
  const header = rowJsonOf(shapes.transaction, transaction);
  return { uid, entry, lock: sourceLock(orgId, entry.source), header, rows, taxes, accounts: entry.rows.map((r) => r.gl_account_number) };
}

/** Each column of an entity's table, null: what a column the caller did not send holds once stored. */
const nullRows = new WeakMap<object, Record<string, null>>();
function nullRow(em: EntityManager, schema: EntitySchema<any, any>): Record<string, null> {
  let row = nullRows.get(schema);
  if (!row) {
    row = Object.fromEntries([...tableShape(em, schema).columns.values()].map((c) => [c.column, null]));
    nullRows.set(schema, row);
  }
  return row;
}

/**
 * The stored rows of an answer: what was sent, with what the database chose (ids, links,
 * `created_at`) laid over it and null in each column not sent. Every value sent is already in its
 * column's form (decimals at the column's scale), so nothing the database holds differs from
 * them (decisions 109, 125).
 */
function outcomeOf(scope: TenantScope, p: EntryPayload, answer: PostAnswer): StoreOutcome {
  const { em, orgId } = scope;
  if (answer.skipped) return { skipped: answer.skipped };
  if (answer.replaces !== undefined) return { replaces: answer.replaces };
  const transactionId = Number(answer.transaction.id);
  const stored = {
    transaction: { ...nullRow(em, AccountingTransactionSchema), ...p.header, id: transactionId, org_id: orgId, created_at: answer.transaction.created_at },
    rows: p.rows.map((sent, i) => ({ ...nullRow(em, LedgerRowSchema), ...sent, id: answer.row_ids[i], org_id: orgId, transaction_id: transactionId })),
    // `row_ord` only told the function which row a tax row belongs to; `row_id` says it now
    taxRows: p.taxes.map(({ row_ord: rowOrd, ...sent }, i) => ({
      ...nullRow(em, LedgerTaxRowSchema),
      ...sent,
      id: answer.tax_row_ids[i],
      org_id: orgId,
      transaction_id: transactionId,
      row_id: answer.row_ids[Number(rowOrd) - 1],
    })),
    accounts: answer.accounts,
  };
  return { stored: { id: transactionId, uid: p.uid, entry: p.entry, stored } };
}

/**
 * Stores an entry through `ledger_insert_entry` (migration accounting_0008): the lock, the
 * version check (postings only), header, accounts, rows, tax rows and the balance check in one
 * round trip.
 */
async function storeEntry(scope: TenantScope, entry: LedgerEntryDraft, eventId: string | null, reversesId: number | null): Promise<StoreOutcome> {
  const { em, orgId } = scope;
  const p = entryPayload(scope, entry, eventId, reversesId);
  const [{ answer }] = await sqlRows<{ answer: PostAnswer }>(
    em,
    'select ledger_insert_entry(?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?::text[]) as answer',
    [orgId, p.lock, JSON.stringify(p.header), JSON.stringify(p.rows), JSON.stringify(p.taxes), p.accounts],
    { prepared: true },
  );
  const outcome = outcomeOf(scope, p, answer);
  if ('stored' in outcome) await storeViews(scope, [outcome.stored]);
  return outcome;
}

/**
 * Stores the postings of a batch of events in one round trip (`ledger_insert_entries`, migration
 * accounting_0008): each as `storeEntry` would, in lock order, so two batches never wait for each
 * other's locks in a circle. Answers in the order given; `replaces` (a newer version of a posted
 * document) is left to `postLedgerEntry`.
 */
export async function storeEntries(scope: TenantScope, postings: Array<{ entry: LedgerEntryDraft; eventId: string }>): Promise<StoreOutcome[]> {
  const { em, orgId } = scope;
  if (postings.length === 0) return [];
  await ensureChart(scope);
  const payloads = postings.map((p) => entryPayload(scope, p.entry, p.eventId, null));
  const order = payloads.map((_, i) => i).sort((a, b) => (payloads[a].lock < payloads[b].lock ? -1 : payloads[a].lock > payloads[b].lock ? 1 : 0));
  const sent = order.map((i) => ({ lock: payloads[i].lock, tx: payloads[i].header, rows: payloads[i].rows, taxes: payloads[i].taxes, accounts: payloads[i].accounts }));
  const [{ answers }] = await sqlRows<{ answers: PostAnswer[] }>(em, 'select ledger_insert_entries(?, ?::jsonb) as answers', [orgId, JSON.stringify(sent)], { prepared: true });
  const outcomes: StoreOutcome[] = new Array(payloads.length);
  order.forEach((i, k) => (outcomes[i] = outcomeOf(scope, payloads[i], answers[k])));
  await storeViews(scope, outcomes.flatMap((o) => ('stored' in o ? [o.stored] : [])));
  return outcomes;
}

/** A row as JSON without its null columns: the database reads a missing key as null, and most of a row's columns are null. */
function withoutNulls(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in row) if (row[k] !== null && row[k] !== undefined) out[k] = row[k];
  return out;
}

/**
 * Stores a rebuild's postings of documents new to the ledger in one round trip
 * (`ledger_replay_entries`, migration accounting_0015): one insert per table and one balance
 * check for the batch, nothing answered but that they are stored. A posting whose document the
 * ledger already has in some version, or that repeats one earlier in the batch, is not sent
 * (false): the caller stores it as the live path would (`postLedgerEntry`). Throws, having stored
 * nothing, when the database refuses the batch (one of them does not balance).
 */
export async function replayEntries(scope: TenantScope, postings: Array<{ entry: LedgerEntryDraft; eventId: string }>): Promise<boolean[]> {
  const { em, orgId } = scope;
  if (postings.length === 0) return [];
  await ensureChart(scope);
  const keyOf = (e: LedgerEntryDraft) => `${e.source.type}:${e.source.id}`;
  const inLedger = await sqlRows<{ key: string }>(
    em,
    `select t.source_type || ':' || t.source_id as key
       from unnest(?::text[], ?::bigint[]) as k(type, id)
       join accounting_transactions t on t.org_id = ? and t.source_type = k.type and t.source_id = k.id and t.entry_kind = 'posting'`,
    [postings.map((p) => p.entry.source.type), postings.map((p) => p.entry.source.id), orgId],
  );
  const seen = new Set(inLedger.map((r) => r.key));
  const fresh = postings.map((p) => {
    const key = keyOf(p.entry);
    if (p.entry.entry_kind !== 'posting' || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const shapes = ledgerShapes(em);
  const sent = postings
    .filter((_, i) => fresh[i])
    .map((p) => {
      const { header, ...staged } = replayedEntry(shapes, orgId, p.entry, p.eventId);
      return { tx: header, ...staged };
    });
  if (sent.length) await sqlRows(em, 'select ledger_replay_entries(?, ?::jsonb)', [orgId, JSON.stringify(sent)]);
  return fresh;
}

/** An entry's rows in their columns' form (keyed by column), with the accounts they name. */
export interface StagedEntry {
  header: Record<string, unknown>;
  rows: Array<Record<string, unknown>>;
  /** Each tax row with `row_ord`, the 1-based position of its row. */
  taxes: Array<Record<string, unknown>>;
  accounts: string[];
}

/** The rows of a new posting, a column the entry leaves empty null or absent: what a ledger generation stages as COPY lines (`ledger-generation.ts`). */
export function stagedEntry(shapes: LedgerShapes, orgId: number, entry: LedgerEntryDraft, eventId: string): StagedEntry {
  const p = entryPayloadOf(shapes, orgId, entry, eventId, null);
  return { header: p.header, rows: p.rows, taxes: p.taxes, accounts: p.accounts };
}

/** `stagedEntry` without the null columns: what `replayEntries` sends to `ledger_replay_entries` as JSON (a missing key reads as null). */
function replayedEntry(shapes: LedgerShapes, orgId: number, entry: LedgerEntryDraft, eventId: string): StagedEntry {
  const p = stagedEntry(shapes, orgId, entry, eventId);
  return { header: withoutNulls(p.header), rows: p.rows.map(withoutNulls), taxes: p.taxes.map(withoutNulls), accounts: p.accounts };
}

/** Rows of a stored entry as drafts (for its reversal). */
async function loadRows(scope: TenantScope, transactionId: number): Promise<DraftRow[]> {
  const { em, orgId } = scope;
  const rows = await sqlRows<Record<string, any>>(em, 'select * from ledger_rows where org_id = ? and transaction_id = ? order by ord', [orgId, transactionId]);
  return rows.map((r) => ({
    role: r.role,
    gl_account_number: r.gl_account_number,
    debit: dec(r.debit),
    credit: dec(r.credit),
    description: r.description,
    currency: r.currency,
    payment_amount: r.payment_amount === null ? null : dec(r.payment_amount),
    payment_reference: r.payment_reference,
    contact: r.contact,
    paid_record: r.paid_record,
    tax_deduction_ratio: r.tax_deduction_ratio === null ? null : dec(r.tax_deduction_ratio),
    net_deduction_ratio: r.net_deduction_ratio === null ? null : dec(r.net_deduction_ratio),
    taxes: [],
  }));
}

export interface PostOutcome {
  posted: StoredEntry | null;
  reversed: StoredEntry | null;
  /** Why nothing was posted: the same or a newer version of the document is in the ledger. */
  skipped?: 'duplicate' | 'stale_version';
}

/**
 * Posts an entry for a source document, exactly once per (organisation, source type, id,
 * version). A higher version of a document already in the ledger first reverses the posted
 * entry (status `reversed` plus a reversing entry); a lower or equal version changes nothing.
 * The balance is checked before returning (the deferred trigger, made immediate).
 */
export async function postLedgerEntry(scope: TenantScope, entry: LedgerEntryDraft, eventId: string | null, reversesId: number | null = null): Promise<PostOutcome> {
  const { em, orgId } = scope;
  await ensureChart(scope);
  const first = await storeEntry(scope, entry, eventId, reversesId);
  if ('stored' in first) return { posted: first.stored, reversed: null };
  if ('skipped' in first) return { posted: null, reversed: null, skipped: first.skipped };
  // A newer version of a posted document (the lock is held from here to the commit): reverse the
  // posted entry, then post this one.
  const prevId = first.replaces;
  const [prev] = await sqlRows<Record<string, any>>(
    em,
    `select source_version, to_char(date_posting, 'YYYY-MM-DD') as date_posting, no, vendor_doc_no, credited_doc_no, payment_reference,
            currency, legal_currency, transaction_type, contact, paid_record, fx_rates
       from accounting_transactions where org_id = ? and id = ?`,
    [orgId, prevId],
  );
  const prevRows = await loadRows(scope, prevId);
  // the reversing entry restates the replaced version's own header, with debit and credit swapped
  const prevEntry: LedgerEntryDraft = {
    ...entry,
    source: { ...entry.source, version: prev.source_version, no: prev.no },
    no: prev.no,
    vendor_doc_no: prev.vendor_doc_no,
    credited_doc_no: prev.credited_doc_no,
    payment_reference: prev.payment_reference,
    currency: prev.currency,
    legal_currency: prev.legal_currency,
    transaction_type: prev.transaction_type,
    contact: prev.contact,
    paid_record: prev.paid_record,
    fx_rates: prev.fx_rates ?? [],
    date_posting: prev.date_posting,
    rows: prevRows,
    total: prevRows.reduce((s, r) => s.plus(r.debit), dec(0)),
  };
  const reversal = await storeEntry(scope, reversalOf(prevEntry), eventId, prevId);
  await markReversed(scope, prevId);
  const posting = await storeEntry(scope, entry, eventId, null);
  const posted = 'stored' in posting ? posting.stored : null;
  return { posted, reversed: 'stored' in reversal ? reversal.stored : null, skipped: posted ? undefined : 'duplicate' };
}

/** An entry's status once another entry reverses it (the one change the ledger's guard allows). */
export async function markReversed(scope: TenantScope, transactionId: number): Promise<void> {
  const { em, orgId } = scope;
  await sqlRows(em, `update accounting_transactions set accounting_status = 'reversed', edited_at = now() where org_id = ? and id = ?`, [orgId, transactionId]);
}

/** The credited document as the ledger knows it: whether it is posted, and its control-statement section. */
export interface CreditedSection {
  posted: boolean;
  section: string | null;
}

/**
 * The posted credited document of each (i, id, number) asked, by id or by number (two index
 * lookups each, accounting_0007), with its first control-statement section. Exported for the test
 * that reads its plan.
 */
export const CREDITED_SECTIONS_SQL = `select k.i, (select t.tax_control_statement from ledger_tax_rows t
                where t.org_id = a.org_id and t.transaction_id = a.id and t.tax_control_statement is not null order by t.ord limit 1) as cs
    from unnest(?::int[], ?::bigint[], ?::text[]) as k(i, id, no)
    cross join lateral (
      select a.id, a.org_id from accounting_transactions a
       where a.org_id = ? and a.source_type = ? and a.entry_kind = 'posting' and (a.source_id = k.id or a.no = k.no)
       order by a.source_version desc limit 1) a`;

/**
 * The credited documents of several credits, in one read: whether each is posted, and its
 * control-statement section (a credit note reports where its original did). Answers in the
 * order asked.
 */
export async function creditedDocumentSections(
  em: EntityManager,
  orgId: number,
  type: SourceType,
  refs: ReadonlyArray<{ id: number | null | undefined; no: string | null | undefined }>,
): Promise<CreditedSection[]> {
  // a missing id or number is null, which matches nothing (text cannot carry a NUL as a marker)
  const asked = refs.map((r, i) => ({ i, id: r.id || null, no: r.no || null })).filter((a) => a.id !== null || a.no !== null);
  const found = new Map<number, string | null>();
  if (asked.length) {
    const rows = await sqlRows<{ i: number; cs: string | null }>(em, CREDITED_SECTIONS_SQL, [asked.map((a) => a.i), asked.map((a) => a.id), asked.map((a) => a.no), orgId, type]);
    for (const r of rows) found.set(Number(r.i), r.cs);
  }
  return refs.map((_, i) => (found.has(i) ? { posted: true, section: found.get(i) ?? null } : { posted: false, section: null }));
}

/** The credited document of one credit (`creditedDocumentSections`). */
export async function creditedDocumentSection(scope: TenantScope, type: SourceType, id: number | null | undefined, no: string | null | undefined): Promise<CreditedSection> {
  const { em, orgId } = scope;
  const [one] = await creditedDocumentSections(em, orgId, type, [{ id, no }]);
  return one;
}
