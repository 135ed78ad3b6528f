import { z } from 'zod';
import { accountingTransactionSchema, sourceDocumentSchema } from './accounting.js';
import { currencyCode, isoDate, money, paidRecordTypeSchema } from './common.js';
import { bankTransactionSchema, paymentOrderSchema, payoutSchema } from './finance.js';
import { vendorBillSchema, vendorCreditSchema } from './purchase.js';
import { advanceTaxDocumentSchema, creditNoteSchema, invoiceSchema, proformaInvoiceSchema } from './sales.js';
import { complianceRecordSchema } from './compliance.js';
import { creditNoteAllocation, vendorCreditAllocation } from './credit-allocations.js';
import { organisationSchema, templateSchema } from './settings.js';
import { journalEntrySchema } from './journal-entries.js';
import { contactDeletedSchema, contactRecordSchema } from './contacts.js';

/**
 * JetStream streams, one per owning service. Every process may create any of them at boot
 * (idempotently, with this one configuration), so start order never matters.
 */
export const STREAMS = {
  SALES: { area: 'sales' },
  PURCHASE: { area: 'purchase' },
  FINANCE: { area: 'finance' },
  ACCOUNTING: { area: 'accounting' },
  SETTINGS: { area: 'settings' },
  DLQ: { area: 'dlq' },
} as const;
export type StreamName = keyof typeof STREAMS;

/** Subjects of the event catalogue, without the deployment prefix. */
export const SUBJECTS = {
  salesInvoicePosted: 'sales.invoice.posted',
  salesCreditNotePosted: 'sales.credit_note.posted',
  salesProformaIssued: 'sales.proforma_invoice.issued',
  salesProformaUpdated: 'sales.proforma_invoice.updated',
  salesAdvanceTaxDocumentPosted: 'sales.advance_tax_document.posted',
  salesInvoiceComplianceEvaluated: 'sales.invoice.compliance_evaluated',
  salesCreditAllocationRecorded: 'sales.credit_allocation.recorded',
  purchaseBillPosted: 'purchase.bill.posted',
  purchaseAdvanceTaxDocumentPosted: 'purchase.advance_tax_document.posted',
  purchaseVendorCreditPosted: 'purchase.vendor_credit.posted',
  purchaseCreditAllocationRecorded: 'purchase.credit_allocation.recorded',
  financeBankTransactionRecorded: 'finance.bank_transaction.recorded',
  financePayoutPosted: 'finance.payout.posted',
  financePaymentMatched: 'finance.payment.matched',
  financePaymentOrderUpdated: 'finance.payment_order.updated',
  accountingTransactionPosted: 'accounting.transaction.posted',
  accountingJournalEntryPosted: 'accounting.journal_entry.posted',
  settingsApiKeyRevoked: 'settings.api_key.revoked',
  settingsApiClientRevoked: 'settings.api_client.revoked',
  settingsTemplateSaved: 'settings.template.saved',
  settingsOrganisationUpdated: 'settings.organisation.updated',
  settingsWebhookDisabled: 'settings.webhook.disabled',
  settingsContactCreated: 'settings.contact.created',
  settingsContactUpdated: 'settings.contact.updated',
  settingsContactDeleted: 'settings.contact.deleted',
} as const;
export type Subject = (typeof SUBJECTS)[keyof typeof SUBJECTS];

/**
 * The subject an event is published on: its catalogue subject with the organisation as the last
 * token (`sales.invoice.posted.42`). Subscribers and NATS permissions select one organisation's
 * events by subject (`sales.*.*.42`), and a server that lets a client publish only its own area's
 * subjects decides who may speak for an organisation.
 */
export function tenantSubject(subject: string, orgId: number | string): string {
  return `${subject}.${orgId}`;
}

/** The catalogue subject and organisation of a published subject (without deployment prefix); null when it names none. */
export function splitTenantSubject(published: string): { subject: string; orgId: number } | null {
  const dot = published.lastIndexOf('.');
  const org = published.slice(dot + 1);
  if (dot < 0 || !/^[1-9]\d{0,15}$/.test(org)) return null;
  return { subject: published.slice(0, dot), orgId: Number(org) };
}

/** Every subject of one organisation in a stream's area: `sales.*.*.42` (catalogue subjects have three tokens). */
export function organisationSubjects(area: string, orgId: number | string): string {
  return `${area}.*.*.${orgId}`;
}

export function streamForSubject(subject: string): StreamName {
  const area = subject.split('.')[0];
  const found = (Object.keys(STREAMS) as StreamName[]).find((s) => STREAMS[s].area === area);
  if (!found) throw new Error(`No stream owns subject ${subject}`);
  return found;
}

/** CloudEvents 1.0 JSON envelope (structured mode) carried by every message on the bus. */
export const cloudEventSchema = z.object({
  specversion: z.literal('1.0'),
  id: z.string().min(1),
  source: z.string().min(1),
  type: z.string().min(1),
  subject: z.string().optional(),
  time: z.string(),
  datacontenttype: z.literal('application/json'),
  orgid: z.string().optional(),
  traceparent: z.string().optional(),
  data: z.unknown(),
});
export type CloudEvent<T = unknown> = Omit<z.infer<typeof cloudEventSchema>, 'data'> & { data: T };

/**
 * The version of each subject's event that producers publish and consumers read (1 unless named
 * here). A change its readers could trip over (a field removed or retyped, a value no longer
 * sent) makes a new version: raise it here, and list the old one in `RETIRING_EVENT_VERSIONS`,
 * so it is published beside the new one until its sunset (docs/integrations.md, "Versions of an
 * event"). Adding a field is not a new version: readers ignore fields they do not know.
 */
export const EVENT_VERSIONS: Partial<Record<Subject, number>> = {};

export function currentEventVersion(subject: string): number {
  return EVENT_VERSIONS[subject as Subject] ?? 1;
}

/** The CloudEvents `type` of a subject's event: reverse-DNS style, ending in its version (`….posted.v1`). */
export function eventType(subject: string, version: number = currentEventVersion(subject)): string {
  return `com.ledgerline.${subject}.v${version}`;
}

/** An earlier version of a subject's event, still published beside the current one until `sunset`. */
export interface RetiringEventVersion {
  subject: Subject;
  version: number;
  /** The last day (UTC) it is published; the AsyncAPI document shows it. */
  sunset: string;
  /** Its data schema, as released. */
  schema: z.ZodType;
  /** Its data, made from the current version's. */
  fromCurrent: (data: unknown) => unknown;
}

/** Versions being retired; empty while no event has had a breaking change. */
export const RETIRING_EVENT_VERSIONS: readonly RetiringEventVersion[] = [];

/** The retiring versions of `subject` still published on `day` (YYYY-MM-DD). */
export function retiringVersionsOf(subject: string, day: string, versions: readonly RetiringEventVersion[] = RETIRING_EVENT_VERSIONS): RetiringEventVersion[] {
  return versions.filter((v) => v.subject === subject && day <= v.sunset);
}

// --- event data schemas -----------------------------------------------------------------------

export const apiKeyRevokedEventSchema = z.object({
  api_key_id: z.number().int(),
  key_hash: z.string(),
  reason: z.enum(['revoked', 'deleted', 'expired', 'changed']).describe('changed: its scopes were narrowed or its expiry moved; verifiers must look the key up again'),
});
export type ApiKeyRevokedEvent = z.infer<typeof apiKeyRevokedEventSchema>;

/** `sales.invoice.posted`: the stored invoice, figures as stored (never recomputed by consumers). */
export const salesInvoicePostedEventSchema = invoiceSchema;
export type SalesInvoicePostedEvent = z.infer<typeof salesInvoicePostedEventSchema>;

/** `sales.credit_note.posted`: the stored credit note. */
export const salesCreditNotePostedEventSchema = creditNoteSchema;
/** `sales.proforma_invoice.issued` / `.updated`: a proforma as it stands after the change (replaced, paid, settled by a final invoice, cancelled); never posted to the ledger. */
export const salesProformaEventSchema = proformaInvoiceSchema;
/** `sales.advance_tax_document.posted`: the tax document of a payment received on a proforma; the ledger posts its VAT (Dr 324 / Cr 343) in the payment's period. */
export const salesAdvanceTaxDocumentPostedEventSchema = advanceTaxDocumentSchema;
export type SalesAdvanceTaxDocumentPostedEvent = z.infer<typeof salesAdvanceTaxDocumentPostedEventSchema>;
export type SalesCreditNotePostedEvent = z.infer<typeof salesCreditNotePostedEventSchema>;

/** `sales.invoice.compliance_evaluated`: the stored compliance record. */
export const salesInvoiceComplianceEvaluatedEventSchema = complianceRecordSchema;
export type SalesInvoiceComplianceEvaluatedEvent = z.infer<typeof salesInvoiceComplianceEvaluatedEventSchema>;

/** `purchase.bill.posted`: the stored vendor bill. */
export const purchaseBillPostedEventSchema = vendorBillSchema;
export type PurchaseBillPostedEvent = z.infer<typeof purchaseBillPostedEventSchema>;
/** A vendor's tax document on a paid advance bill (kind advance_tax_document): its input VAT, Dr 343 / Cr 314 (decision 237). */
export const purchaseAdvanceTaxDocumentPostedEventSchema = vendorBillSchema;
export type PurchaseAdvanceTaxDocumentPostedEvent = z.infer<typeof purchaseAdvanceTaxDocumentPostedEventSchema>;

/** `purchase.vendor_credit.posted`: the stored vendor credit. */
export const purchaseVendorCreditPostedEventSchema = vendorCreditSchema;
export type PurchaseVendorCreditPostedEvent = z.infer<typeof purchaseVendorCreditPostedEventSchema>;

/** `finance.bank_transaction.recorded`: the stored bank transaction. */
export const financeBankTransactionRecordedEventSchema = bankTransactionSchema;
export type FinanceBankTransactionRecordedEvent = z.infer<typeof financeBankTransactionRecordedEventSchema>;

/**
 * `finance.payout.posted`: the stored payout at `version` (1 on creation, +1 per replacement).
 * A replacement names the version it supersedes in `replaces_version`, so the ledger reverses
 * that version's entry and posts the new one.
 */
export const financePayoutPostedEventSchema = payoutSchema
  .extend({
    version: z.int().min(1),
    replaces_version: z.int().min(1).nullable(),
  })
  .meta({ id: 'PayoutPostedEventData', description: 'A payout version; replaces_version names the superseded one' });
export type FinancePayoutPostedEvent = z.infer<typeof financePayoutPostedEventSchema>;

/**
 * `finance.payment.matched`: a payment (a bank transaction or a payout line) settles a document.
 * `amount` is in `currency`, the currency of the document; the owning service raises the
 * document's amount_paid by it.
 */
export const financePaymentMatchedEventSchema = z
  .object({
    payment_id: z.int().describe('Id of the bank transaction or the payout line'),
    source: z.enum(['bank_transaction', 'payout_line']),
    payout_id: z.int().nullish().describe('The payout of a payout line'),
    payout_version: z.int().nullish().describe('The payout version of a payout line'),
    document: z.object({
      type: paidRecordTypeSchema,
      id: z.int(),
      no: z.string().nullish(),
    }),
    amount: money.describe('Applied amount in the document currency; negative undoes an earlier match'),
    currency: currencyCode,
    date: isoDate.describe('Date of the payment'),
  })
  .meta({ id: 'PaymentMatchedEventData', description: 'A payment applied to a document' });
export type FinancePaymentMatchedEvent = z.infer<typeof financePaymentMatchedEventSchema>;

/**
 * `finance.payment_order.updated`: a payment order at `version` (1 when made, +1 with every change:
 * sent, an item paid, completed, cancelled). Purchase shows each bill's order from it.
 */
export const financePaymentOrderUpdatedEventSchema = paymentOrderSchema;
export type FinancePaymentOrderUpdatedEvent = z.infer<typeof financePaymentOrderUpdatedEventSchema>;

/**
 * `sales.credit_allocation.recorded`: a credit note applied to an invoice (`removed_at` null), and
 * again when it is taken back (`removed_at` set). Both documents' amount_due moved by `amount`
 * (down when made, back up when taken back); nothing reaches the ledger. One subject, so a
 * consumer or an endpoint gets the two of one allocation in the order they happened.
 */
export const salesCreditAllocationEventSchema = creditNoteAllocation.allocation;
/** `purchase.credit_allocation.recorded`: a vendor credit applied to a bill, and again when taken back. */
export const purchaseCreditAllocationEventSchema = vendorCreditAllocation.allocation;

/** `accounting.transaction.posted`: the ledger entry, with the document it was posted for. */
export const accountingTransactionPostedEventSchema = accountingTransactionSchema
  .extend({ source_document: sourceDocumentSchema.nullish() })
  .meta({ id: 'TransactionPostedEventData', description: 'A posted accounting transaction' });
export type AccountingTransactionPostedEvent = z.infer<typeof accountingTransactionPostedEventSchema>;

/**
 * `accounting.journal_entry.posted`: a manual journal entry as posted (a reversing entry names the
 * entry it reverses in `reverses`). The ledger posted it in the same transaction; a rebuild of the
 * ledger replays these events with the documents' own.
 */
export const accountingJournalEntryPostedEventSchema = journalEntrySchema;
export type AccountingJournalEntryPostedEvent = z.infer<typeof accountingJournalEntryPostedEventSchema>;

/** `settings.template.saved`: the stored template. */
export const settingsTemplateSavedEventSchema = templateSchema;
export type SettingsTemplateSavedEvent = z.infer<typeof settingsTemplateSavedEventSchema>;

/** `settings.organisation.updated`: the organisation profile after the change (also on creation). */
export const settingsOrganisationUpdatedEventSchema = organisationSchema;
export type SettingsOrganisationUpdatedEvent = z.infer<typeof settingsOrganisationUpdatedEventSchema>;

/** `settings.api_key.revoked` (named for the catalogue). */
export const settingsApiKeyRevokedEventSchema = apiKeyRevokedEventSchema.meta({
  id: 'ApiKeyRevokedEventData',
  description: 'An API key stopped working: revoked, deleted or expired; key_hash is the SHA-256 of the secret',
});

/** `settings.api_client.revoked`: an API client revoked or deleted; gateways stop accepting its access tokens. */
export const settingsApiClientRevokedEventSchema = z
  .object({ api_client_id: z.int().min(1), client_id: z.string(), reason: z.enum(['revoked', 'deleted']) })
  .meta({ id: 'ApiClientRevokedEventData', description: 'An API client stopped working: revoked or deleted; its access tokens are refused from now on' });
export type SettingsApiClientRevokedEvent = z.infer<typeof settingsApiClientRevokedEventSchema>;

/** `settings.webhook.disabled`: deliveries to an endpoint failed for the whole retry schedule. */
export const settingsWebhookDisabledEventSchema = z
  .object({ webhook_id: z.int().min(1), url: z.string(), reason: z.string() })
  .meta({ id: 'WebhookDisabledEventData', description: 'A webhook endpoint the platform disabled after its deliveries kept failing' });
export type SettingsWebhookDisabledEvent = z.infer<typeof settingsWebhookDisabledEventSchema>;

/** `settings.contact.created` / `.updated`: the directory's contact after the change (an archive is an update with `archived: true`). */
export const settingsContactEventSchema = contactRecordSchema;
export type SettingsContactEvent = z.infer<typeof settingsContactEventSchema>;
/** `settings.contact.deleted`: a contact no document named, removed. */
export const settingsContactDeletedEventSchema = contactDeletedSchema;

/** The data schema of every subject of the catalogue. */
export const EVENT_DATA_SCHEMAS = {
  [SUBJECTS.salesInvoicePosted]: salesInvoicePostedEventSchema,
  [SUBJECTS.salesCreditNotePosted]: salesCreditNotePostedEventSchema,
  [SUBJECTS.salesProformaIssued]: salesProformaEventSchema,
  [SUBJECTS.salesProformaUpdated]: salesProformaEventSchema,
  [SUBJECTS.salesAdvanceTaxDocumentPosted]: salesAdvanceTaxDocumentPostedEventSchema,
  [SUBJECTS.salesInvoiceComplianceEvaluated]: salesInvoiceComplianceEvaluatedEventSchema,
  [SUBJECTS.salesCreditAllocationRecorded]: salesCreditAllocationEventSchema,
  [SUBJECTS.purchaseBillPosted]: purchaseBillPostedEventSchema,
  [SUBJECTS.purchaseAdvanceTaxDocumentPosted]: purchaseAdvanceTaxDocumentPostedEventSchema,
  [SUBJECTS.purchaseVendorCreditPosted]: purchaseVendorCreditPostedEventSchema,
  [SUBJECTS.purchaseCreditAllocationRecorded]: purchaseCreditAllocationEventSchema,
  [SUBJECTS.financeBankTransactionRecorded]: financeBankTransactionRecordedEventSchema,
  [SUBJECTS.financePayoutPosted]: financePayoutPostedEventSchema,
  [SUBJECTS.financePaymentMatched]: financePaymentMatchedEventSchema,
  [SUBJECTS.financePaymentOrderUpdated]: financePaymentOrderUpdatedEventSchema,
  [SUBJECTS.accountingTransactionPosted]: accountingTransactionPostedEventSchema,
  [SUBJECTS.accountingJournalEntryPosted]: accountingJournalEntryPostedEventSchema,
  [SUBJECTS.settingsApiKeyRevoked]: settingsApiKeyRevokedEventSchema,
  [SUBJECTS.settingsApiClientRevoked]: settingsApiClientRevokedEventSchema,
  [SUBJECTS.settingsTemplateSaved]: settingsTemplateSavedEventSchema,
  [SUBJECTS.settingsOrganisationUpdated]: settingsOrganisationUpdatedEventSchema,
  [SUBJECTS.settingsWebhookDisabled]: settingsWebhookDisabledEventSchema,
  [SUBJECTS.settingsContactCreated]: settingsContactEventSchema,
  [SUBJECTS.settingsContactUpdated]: settingsContactEventSchema,
  [SUBJECTS.settingsContactDeleted]: settingsContactDeletedEventSchema,
} satisfies Record<Subject, z.ZodType>;

/** The data type carried by each subject. */
export type EventData<S extends Subject> = z.output<(typeof EVENT_DATA_SCHEMAS)[S]>;

/** Validates the data of an event of a known subject; throws a ZodError when it does not fit. */
export function parseEventData<S extends Subject>(subject: S, data: unknown): EventData<S> {
  return EVENT_DATA_SCHEMAS[subject].parse(data) as EventData<S>;
}
