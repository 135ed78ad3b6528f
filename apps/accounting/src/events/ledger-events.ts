import type { TenantScope } from '@ledgerline/service-kit';
import {
  PoisonMessageError,
  organisationReplica,
  sqlRows,
  type BatchContext,
  type BatchItem,
  type BatchItemResult,
  type ConsumerContext,
  type ConsumerDefinition,
  type NewEvent,
  type OperationContext,
  type OrganisationReplica,
  type TenantContext,
} from '@ledgerline/service-kit';
import { EVENT_DATA_SCHEMAS, SUBJECTS, type AccountingTransactionPostedEvent, type CloudEvent, type EventData } from '@ledgerline/contracts';
import { transactionViewOfInserted } from '../domain/transactions.js';
import {
  ledgerEntryForBankTransaction,
  ledgerEntryForJournal,
  ledgerEntryForPayout,
  ledgerEntryForPurchaseDocument,
  ledgerEntryForSalesDocument,
  MissingLegalFiguresError,
  UnbalancedEntryError,
  type LedgerEntryDraft,
  type PostingOptions,
} from '../domain/posting.js';
import type { SourceType } from '../domain/posting-map.js';
import { creditedDocument, type JournalDocument, type PurchaseDocument, type SalesDocument } from '../domain/source-documents.js';
import { creditedDocumentSection, creditedDocumentSections, markReversed, postLedgerEntry, replayEntries, storeEntries, type CreditedSection, type PostOutcome, type StoredEntry } from '../domain/ledger-store.js';

/**
 * The events the ledger posts, each subject with the source type it posts: declared once, read
 * both ways (the document's contract by type, the type by subject). The documents' events reach
 * the ledger through live consumers; a journal entry is posted by the request that makes it, in
 * the same transaction as its event (not live), and only a rebuild replays that event.
 */
const SUBJECT_OF = {
  sales_invoice: SUBJECTS.salesInvoicePosted,
  sales_credit_note: SUBJECTS.salesCreditNotePosted,
  sales_advance_tax_document: SUBJECTS.salesAdvanceTaxDocumentPosted,
  purchase_bill: SUBJECTS.purchaseBillPosted,
  purchase_vendor_credit: SUBJECTS.purchaseVendorCreditPosted,
  purchase_advance_tax_document: SUBJECTS.purchaseAdvanceTaxDocumentPosted,
  bank_transaction: SUBJECTS.financeBankTransactionRecorded,
  payout: SUBJECTS.financePayoutPosted,
  journal_entry: SUBJECTS.accountingJournalEntryPosted,
} as const satisfies Record<SourceType, keyof typeof EVENT_DATA_SCHEMAS>;
/** Posted by the request that makes it: no live consumer. */
const NOT_LIVE: ReadonlySet<SourceType> = new Set(['journal_entry']);

export const LEDGER_SOURCES: ReadonlyArray<{ subject: string; type: SourceType; live?: false }> = (Object.keys(SUBJECT_OF) as SourceType[]).map((type) => ({
  subject: SUBJECT_OF[type],
  type,
  ...(NOT_LIVE.has(type) ? { live: false as const } : {}),
}));

export interface ApplyOptions {
  legalCurrency: string;
  orgCountry: string;
  /**
   * A credit of a document the ledger has not posted yet is retried rather than posted: its
   * control-statement section comes from the credited document, whose event (another consumer)
   * may still be on its way. Set for the first deliveries only; after them it posts with its own.
   */
  awaitCredited?: boolean;
}

/** What an entry is drafted in: the organisation's transaction (the credited document's section is read there). */
export type PostingContext = Pick<TenantContext, 'em' | 'orgId'>;

/**
 * What an event is applied in: a consumer's context, which announces what it posted on the bus
 * (`emit`), or a rebuild's transaction, which re-posts silently (no `emit`).
 */
export type LedgerContext = Pick<OperationContext, 'em'> & Partial<Pick<OperationContext, 'emit'>> & Pick<ConsumerContext, 'organisation'>;

/** The credited document is not in the ledger yet: the event is redelivered after a backoff. */
export class CreditedDocumentPendingError extends Error {}

/** Tries of a credit before it posts without its credited document (the kit's backoff: about 6 s). */
const CREDITED_DOCUMENT_TRIES = 3;

/**
 * The event's document, parsed once with its producer's contract schema, whose output types the
 * posting rules: data that does not fit the contract is poison (the producer broke it), and
 * fields the contract does not declare never reach the rules.
 */
function parseDocument<T extends SourceType>(type: T, event: CloudEvent): EventData<(typeof SUBJECT_OF)[T]> {
  const subject = SUBJECT_OF[type];
  const contract = EVENT_DATA_SCHEMAS[subject].safeParse(event.data);
  if (!contract.success) {
    throw new PoisonMessageError(`${event.type} ${event.id}: data breaks the ${subject} contract: ${contract.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return contract.data as EventData<(typeof SUBJECT_OF)[T]>;
}

/** A source document as the posting rules take it. */
type SourceDocument =
  | SalesDocument
  | PurchaseDocument
  | EventData<typeof SUBJECTS.financeBankTransactionRecorded>
  | EventData<typeof SUBJECTS.financePayoutPosted>
  | JournalDocument;

/** The type of document a credit of `type` credits (its control-statement section comes from there); null for other documents. */
const CREDITED_TYPE: Partial<Record<SourceType, SourceType>> = { sales_credit_note: 'sales_invoice', purchase_vendor_credit: 'purchase_bill' };

/** The document a credit names, when the event is a credit. */
function creditedRef(type: SourceType, doc: SourceDocument): { id: number | null; no: string | null } | null {
  return CREDITED_TYPE[type] ? creditedDocument(doc as SalesDocument | PurchaseDocument) : null;
}

/**
 * The control-statement section a credit posts with, from what the ledger knows of its credited
 * document; a credited document the ledger has not posted yet is awaited (`awaitCredited`).
 */
function creditedSectionOf(event: CloudEvent, type: SourceType, ref: { id: number | null } | null, credited: CreditedSection | null, opts: ApplyOptions): string | null {
  if (!ref || !credited) return null;
  if (!credited.posted && ref.id != null && opts.awaitCredited) {
    throw new CreditedDocumentPendingError(`${event.type} ${event.id}: credited ${CREDITED_TYPE[type]} ${ref.id} is not in the ledger yet`);
  }
  return credited.section;
}

/** The ledger entry of a parsed document (pure). */
function draftEntry(type: SourceType, doc: SourceDocument, event: CloudEvent, opts: ApplyOptions, controlStatement: string | null): LedgerEntryDraft {
  const base: PostingOptions = { legalCurrency: opts.legalCurrency, orgCountry: opts.orgCountry, fallbackDate: event.time?.slice(0, 10) };
  try {
    switch (type) {
      case 'sales_invoice':
      case 'sales_credit_note':
      case 'sales_advance_tax_document':
        return ledgerEntryForSalesDocument(type, doc as SalesDocument, { ...base, controlStatementOverride: type === 'sales_credit_note' ? controlStatement : null });
      case 'purchase_bill':
      case 'purchase_vendor_credit':
      case 'purchase_advance_tax_document':
        return ledgerEntryForPurchaseDocument(type, doc as PurchaseDocument, { ...base, controlStatementOverride: type === 'purchase_vendor_credit' ? controlStatement : null });
      case 'bank_transaction':
        return ledgerEntryForBankTransaction(doc as EventData<typeof SUBJECTS.financeBankTransactionRecorded>, base);
      case 'payout':
        return ledgerEntryForPayout(doc as EventData<typeof SUBJECTS.financePayoutPosted>, base);
      case 'journal_entry':
        return ledgerEntryForJournal(doc as JournalDocument);
    }
  } catch (err) {
    if (err instanceof UnbalancedEntryError || err instanceof MissingLegalFiguresError) throw new PoisonMessageError(err.message);
    throw err;
  }
}

/** The ledger entry an event asks for (pure, apart from reading the credited document's section). */
export async function entryForEvent({ em, orgId }: PostingContext, type: SourceType, event: CloudEvent, opts: ApplyOptions): Promise<LedgerEntryDraft> {
  const doc = parseDocument(type, event);
  const ref = creditedRef(type, doc);
  const credited = ref ? await creditedDocumentSection({ em, orgId }, CREDITED_TYPE[type]!, ref.id, ref.no) : null;
  return draftEntry(type, doc, event, opts, creditedSectionOf(event, type, ref, credited, opts));
}

/**
 * The posting of an event whose draft reads nothing from the ledger (any but a credit, whose
 * control-statement section comes from its credited document, and a journal entry, which may
 * reverse another): what a ledger generation stages. Throws as `applyLedgerEvent` would for an
 * event that cannot post.
 */
export function draftStandalone(type: SourceType, event: CloudEvent, opts: ApplyOptions, organisation: OrganisationReplica | null): LedgerEntryDraft {
  if (readsOtherPostings(type)) throw new Error(`a ${type} is not drafted standalone`);
  return draftEntry(type, parseDocument(type, event), event, withOrganisation(opts, organisation), null);
}

/** Whether events of the type read another posting as they are drafted (credits, journal entries). */
export function readsOtherPostings(type: SourceType): boolean {
  return Boolean(CREDITED_TYPE[type]) || type === 'journal_entry';
}

/** The document a credit event names (null for other events, and for a credit that does not parse). */
export function creditedDocumentOf(type: SourceType, event: CloudEvent): { type: SourceType; id: number | null; no: string | null } | null {
  const credited = CREDITED_TYPE[type];
  if (!credited) return null;
  try {
    const ref = creditedRef(type, parseDocument(type, event));
    // as `creditedDocumentSections` reads them: an empty number or id 0 names nothing
    return ref ? { type: credited, id: ref.id || null, no: ref.no || null } : null;
  } catch {
    return null;
  }
}

function isBalanceViolation(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  return e?.code === '23514' || /does not balance/.test(String(e?.message ?? ''));
}

/**
 * Applies one posted-document event to the ledger in the caller's transaction: one accounting
 * transaction per source fact (and a reversal when a newer version replaces a posted one).
 */
export async function applyLedgerEvent(ctx: LedgerContext, type: SourceType, event: CloudEvent, opts: ApplyOptions): Promise<PostOutcome> {
  if (!event.orgid || !/^\d+$/.test(event.orgid)) throw new PoisonMessageError(`${event.type} ${event.id} carries no organisation`);
  const { em, emit } = ctx;
  const orgId = Number(event.orgid);
  // a consumer has it from its inbox claim; a rebuild reads it
  const profile = ctx.organisation !== undefined ? ctx.organisation : await organisationReplica({ em, orgId });
  const entry = await entryForEvent({ em, orgId }, type, event, withOrganisation(opts, profile));
  // a reversing journal entry names the posting it reverses, which is marked reversed with it
  const reverses = type === 'journal_entry' ? await reversedJournalPosting({ em, orgId }, event.data as JournalDocument) : null;
  let outcome: PostOutcome;
  try {
    outcome = await postLedgerEntry({ em, orgId }, entry, event.id, reverses);
  } catch (err) {
    if (isBalanceViolation(err)) throw new PoisonMessageError(`${event.type} ${event.id}: ${String((err as Error).message)}`);
    throw err;
  }
  if (reverses !== null && outcome.posted) await markReversed({ em, orgId }, reverses);
  if (emit) {
    for (const stored of [outcome.reversed, outcome.posted]) if (stored) await emit(postedEvent(orgId, stored));
  }
  return outcome;
}

/** The ledger transaction of the journal entry a reversing entry reverses (null for any other entry). */
async function reversedJournalPosting(scope: TenantScope, doc: JournalDocument): Promise<number | null> {
  const { em, orgId } = scope;
  if (!doc.reverses) return null;
  const [row] = await sqlRows<{ id: string }>(
    em,
    `select id from accounting_transactions where org_id = ? and source_type = 'journal_entry' and source_id = ? and entry_kind = 'posting' order by source_version desc limit 1`,
    [orgId, doc.reverses.id],
  );
  return row ? Number(row.id) : null;
}

/** The options of an organisation: its legal currency and country as its replica holds them. */
function withOrganisation(opts: ApplyOptions, profile: OrganisationReplica | null | undefined): ApplyOptions {
  return profile ? { ...opts, legalCurrency: profile.legalCurrency, orgCountry: profile.country ?? opts.orgCountry } : opts;
}

/** A batch's events parsed and drafted: an error for each that cannot be, a posting for the rest. */
interface DraftedBatch {
  results: BatchItemResult[];
  postings: Array<{ i: number; entry: LedgerEntryDraft; eventId: string }>;
}

/** The documents of a batch parsed and drafted, the credited documents of credits read in one statement. */
async function draftBatch(ctx: BatchContext, type: SourceType, items: BatchItem[], opts: ApplyOptions): Promise<DraftedBatch> {
  const { em, orgId } = ctx;
  const orgOpts = withOrganisation(opts, ctx.organisation);
  const results: BatchItemResult[] = new Array(items.length);
  const parsed: Array<{ i: number; doc: SourceDocument; ref: { id: number | null; no: string | null } | null }> = [];
  for (const [i, item] of items.entries()) {
    try {
      const doc = parseDocument(type, item.event);
      parsed.push({ i, doc, ref: creditedRef(type, doc) });
    } catch (error) {
      results[i] = { error };
    }
  }
  const credits = parsed.filter((p) => p.ref);
  const sections = credits.length ? await creditedDocumentSections(em, orgId, CREDITED_TYPE[type]!, credits.map((p) => p.ref!)) : [];
  const sectionOf = new Map(credits.map((p, k) => [p.i, sections[k]]));
  const postings: DraftedBatch['postings'] = [];
  for (const { i, doc, ref } of parsed) {
    const { event, deliveryCount } = items[i];
    try {
      const section = creditedSectionOf(event, type, ref, sectionOf.get(i) ?? null, { ...orgOpts, awaitCredited: deliveryCount <= CREDITED_DOCUMENT_TRIES });
      postings.push({ i, entry: draftEntry(type, doc, event, orgOpts, section), eventId: event.id });
    } catch (error) {
      results[i] = { error };
    }
  }
  return { results, postings };
}

/**
 * Applies a batch of one organisation's events of one source type (the kit's `handleBatch`): the
 * documents parsed and drafted (`draftBatch`), and every posting stored by one call of
 * `ledger_insert_entries`. A newer version of a posted document (its reversal is kept in code)
 * goes to `applyLedgerEvent` alone; a document that cannot post fails alone.
 */
export async function applyLedgerBatch(ctx: BatchContext, type: SourceType, items: BatchItem[], opts: ApplyOptions): Promise<BatchItemResult[]> {
  const { results, postings } = await draftBatch(ctx, type, items, opts);
  const outcomes = await storeEntries(ctx, postings);
  for (const [k, outcome] of outcomes.entries()) {
    const i = postings[k].i;
    if ('replaces' in outcome) {
      results[i] = 'single';
      continue;
    }
    if ('stored' in outcome) items[i].emit(postedEvent(ctx.orgId, outcome.stored));
    results[i] = 'applied';
  }
  return results;
}

/**
 * A rebuild's batch (nothing announced): drafted as the live batch is, the postings of documents
 * new to the ledger stored set-based (`replayEntries`); the rest are `single`, for the caller to
 * apply one by one in stream order. Throws, having stored nothing, when the database refuses the
 * batch as a whole.
 */
export async function replayLedgerBatch(ctx: BatchContext, type: SourceType, items: BatchItem[], opts: ApplyOptions): Promise<BatchItemResult[]> {
  const { results, postings } = await draftBatch(ctx, type, items, opts);
  const stored = await replayEntries(ctx, postings);
  stored.forEach((ok, k) => (results[postings[k].i] = ok ? 'applied' : 'single'));
  return results;
}

/** The event announcing a stored entry. */
function postedEvent(orgId: number, stored: StoredEntry): NewEvent<AccountingTransactionPostedEvent> {
  return { subject: SUBJECTS.accountingTransactionPosted, orgId, resource: String(stored.id), data: postedEventData(stored) };
}

/** The event integrations read: the transaction as GET /v1/accounting/transactions shows it, plus the document it posts. */
function postedEventData(s: StoredEntry): AccountingTransactionPostedEvent {
  const view = transactionViewOfInserted(s.stored, 'en-US');
  const src = s.entry.source;
  return { ...view, source_document: { type: src.type, id: src.id, no: src.no, version: src.version } } as AccountingTransactionPostedEvent;
}

export function ledgerConsumers(opts: ApplyOptions): ConsumerDefinition[] {
  return [
    ...LEDGER_SOURCES.filter((s) => s.live !== false).map(({ subject, type }) => ({
      name: `accounting-${subject.replace(/[._]/g, '-')}`,
      subject,
      // Documents post independently; versions of one document (same CloudEvents subject) keep
      // their stream order through the kit's ordering key, so a live ledger equals a rebuild.
      // The entries handled at once share one commit (a batch is one WAL flush, not one per entry).
      concurrency: 32,
      sharedCommit: true,
      withOrganisation: true,
      handle: async (ctx: ConsumerContext, event: CloudEvent) => {
        await applyLedgerEvent(ctx, type, event, { ...opts, awaitCredited: ctx.deliveryCount <= CREDITED_DOCUMENT_TRIES });
      },
      // the events of a burst: one claim, one read of credited documents, one storing call
      handleBatch: (ctx: BatchContext, items: BatchItem[]) => applyLedgerBatch(ctx, type, items, opts),
    })),
  ];
}
