import type { EntityManager } from '@mikro-orm/postgresql';
import { PoisonMessageError, organisationReplica, type ConsumerContext, type ConsumerDefinition, type OperationContext, type TenantContext } from '@ledgerline/service-kit';
import { EVENT_DATA_SCHEMAS, SUBJECTS, type AccountingTransactionPostedEvent, type CloudEvent, type EventData } from '@ledgerline/contracts';
import { transactionViewOfInserted } from '../domain/transactions.js';
import {
  ledgerEntryForBankTransaction,
  ledgerEntryForPayout,
  ledgerEntryForPurchaseDocument,
  ledgerEntryForSalesDocument,
  MissingLegalFiguresError,
  UnbalancedEntryError,
  type LedgerEntryDraft,
  type PostingOptions,
} from '../domain/posting.js';
import type { SourceType } from '../domain/posting-map.js';
import { creditedDocument, type PurchaseDocument, type SalesDocument } from '../domain/source-documents.js';
import { creditedDocumentSection, postLedgerEntry, type PostOutcome, type StoredEntry } from '../domain/ledger-store.js';

const SUBJECT_OF = {
  sales_invoice: SUBJECTS.salesInvoicePosted,
  sales_credit_note: SUBJECTS.salesCreditNotePosted,
  purchase_bill: SUBJECTS.purchaseBillPosted,
  purchase_vendor_credit: SUBJECTS.purchaseVendorCreditPosted,
  bank_transaction: SUBJECTS.financeBankTransactionRecorded,
  payout: SUBJECTS.financePayoutPosted,
} as const satisfies Record<SourceType, keyof typeof EVENT_DATA_SCHEMAS>;

/** The posted-document events the ledger consumes, and the source type each one posts. */
export const LEDGER_SOURCES: ReadonlyArray<{ subject: string; type: SourceType }> = [
  { subject: SUBJECTS.salesInvoicePosted, type: 'sales_invoice' },
  { subject: SUBJECTS.salesCreditNotePosted, type: 'sales_credit_note' },
  { subject: SUBJECTS.purchaseBillPosted, type: 'purchase_bill' },
  { subject: SUBJECTS.purchaseVendorCreditPosted, type: 'purchase_vendor_credit' },
  { subject: SUBJECTS.financeBankTransactionRecorded, type: 'bank_transaction' },
  { subject: SUBJECTS.financePayoutPosted, type: 'payout' },
];

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

async function creditedSection(
  em: EntityManager,
  orgId: number,
  type: SourceType,
  doc: SalesDocument | PurchaseDocument,
  event: CloudEvent,
  opts: ApplyOptions,
): Promise<string | null> {
  const { id, no } = creditedDocument(doc);
  const credited = await creditedDocumentSection(em, orgId, type, id, no);
  if (!credited.posted && id != null && opts.awaitCredited) {
    throw new CreditedDocumentPendingError(`${event.type} ${event.id}: credited ${type} ${id} is not in the ledger yet`);
  }
  return credited.section;
}

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

/** The ledger entry an event asks for (pure, apart from reading the credited document's section). */
export async function entryForEvent({ em, orgId }: PostingContext, type: SourceType, event: CloudEvent, opts: ApplyOptions): Promise<LedgerEntryDraft> {
  const base: PostingOptions = { legalCurrency: opts.legalCurrency, orgCountry: opts.orgCountry, fallbackDate: event.time?.slice(0, 10) };
  try {
    switch (type) {
      case 'sales_invoice':
      case 'sales_credit_note': {
        const doc = parseDocument(type, event);
        const cs = type === 'sales_credit_note' ? await creditedSection(em, orgId, 'sales_invoice', doc, event, opts) : null;
        return ledgerEntryForSalesDocument(type, doc, { ...base, controlStatementOverride: cs });
      }
      case 'purchase_bill':
      case 'purchase_vendor_credit': {
        const doc = parseDocument(type, event);
        const cs = type === 'purchase_vendor_credit' ? await creditedSection(em, orgId, 'purchase_bill', doc, event, opts) : null;
        return ledgerEntryForPurchaseDocument(type, doc, { ...base, controlStatementOverride: cs });
      }
      case 'bank_transaction':
        return ledgerEntryForBankTransaction(parseDocument(type, event), base);
      case 'payout':
        return ledgerEntryForPayout(parseDocument(type, event), base);
    }
  } catch (err) {
    if (err instanceof UnbalancedEntryError || err instanceof MissingLegalFiguresError) throw new PoisonMessageError(err.message);
    throw err;
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
  const profile = ctx.organisation !== undefined ? ctx.organisation : await organisationReplica(em, orgId);
  const orgOpts = profile ? { ...opts, legalCurrency: profile.legalCurrency, orgCountry: profile.country ?? opts.orgCountry } : opts;
  const entry = await entryForEvent({ em, orgId }, type, event, orgOpts);
  let outcome: PostOutcome;
  try {
    outcome = await postLedgerEntry(em, orgId, entry, event.id);
  } catch (err) {
    if (isBalanceViolation(err)) throw new PoisonMessageError(`${event.type} ${event.id}: ${String((err as Error).message)}`);
    throw err;
  }
  if (emit) {
    for (const stored of [outcome.reversed, outcome.posted]) {
      if (stored) await emit<AccountingTransactionPostedEvent>({ subject: SUBJECTS.accountingTransactionPosted, orgId, resource: String(stored.id), data: postedEventData(stored) });
    }
  }
  return outcome;
}

/** The event integrations read: the transaction as #10 shows it, plus the document it posts. */
function postedEventData(s: StoredEntry): AccountingTransactionPostedEvent {
  const view = transactionViewOfInserted(s.stored, 'en-US');
  const src = s.entry.source;
  return { ...view, source_document: { type: src.type, id: src.id, no: src.no, version: src.version } } as AccountingTransactionPostedEvent;
}

export function ledgerConsumers(opts: ApplyOptions): ConsumerDefinition[] {
  return [
    ...LEDGER_SOURCES.map(({ subject, type }) => ({
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
    })),
  ];
}
