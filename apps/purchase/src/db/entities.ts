import type { VendorCheck } from '@ledgerline/contracts';
import type { BillPaymentStatus } from '@ledgerline/contracts/purchase';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { creditAllocationEntity } from '@ledgerline/posted-documents';

/** Stored kinds: a standard bill, a vendor credit, an advance bill (a vendor's proforma) and the vendor's tax document on its payment (decision 237). */
export type PurchaseKind = 'bill' | 'vendor_credit' | 'advance' | 'advance_tax_document';
/** The kinds served as bills at /v1/purchase/bills. */
export const BILL_STORED_KINDS = ['bill', 'advance', 'advance_tax_document'] as const satisfies readonly PurchaseKind[];

export interface StoredTaxLine {
  tax_index: number | null;
  tax_rate: string;
  tax_amount: string;
  tax_amount_leg: string;
  tax_base: string;
  tax_base_leg: string;
  tax_code: string | null;
  tax_name: string | null;
  rate_type: string | null;
  /** The VAT category decided when the document was posted (issue 70); absent on rows stored before it existed. */
  tax_category?: string | null;
}

export interface StoredItem {
  id: number;
  description: string | null;
  qty: string;
  rate: string;
  amount: string;
  tax_deduction_ratio: string;
  net_deduction_ratio: string;
  item: Record<string, unknown> | null;
  unit: Record<string, unknown> | null;
  /** The line's own cost account (overrides 504 when posting); absent on rows stored before it existed. */
  gl_account?: Record<string, unknown> | null;
  /** goods or services (issue 70); absent on rows stored before it existed (goods). */
  supply?: string | null;
  taxes: StoredTaxLine[];
}

export const PurchaseDocumentSchema = defineEntity({
  name: 'PurchaseDocument',
  tableName: 'purchase_documents',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    kind: p.string().$type<PurchaseKind>(),
    uid: p.uuid(),
    no: p.string(),
    vendorDocNo: p.string().nullable(),
    creditedDocId: p.integer().nullable(),
    creditedDocNo: p.string().nullable(),
    copyFromId: p.integer().nullable(),
    vendor: p.json<Record<string, unknown>>(),
    vendorName: p.string().nullable(),
    type: p.json<Record<string, unknown>>(),
    currency: p.string(),
    precision: p.integer(),
    taxesIncluded: p.boolean(),
    taxFxRate: p.decimal().columnType('numeric(20,10)'),
    fxRateDate: p.string().columnType('date').nullable(),
    fxRateSource: p.string().nullable(),
    dateIssued: p.string().columnType('date'),
    dateTaxable: p.string().columnType('date').nullable(),
    dateDue: p.string().columnType('date').nullable(),
    description: p.string().nullable(),
    rateFormat: p.string().nullable(),
    taxNexus: p.json<Record<string, unknown>>().nullable(),
    paymentReference: p.string().nullable(),
    bankAccountNumber: p.string().nullable(),
    /** The directory's contact the vendor was copied from (decision 234). */
    contactId: p.integer().nullable().fieldName('contact_id'),
    /** A bill's check of its vendor in the VAT payers' register on its day. */
    vendorCheck: p.json<VendorCheck>().nullable().fieldName('vendor_check'),
    rsn: p.string().nullable(),
    /** A tax document's advance bill (decision 237). */
    advanceBillId: p.integer().nullable().fieldName('advance_bill_id'),
    advanceBillNo: p.string().nullable().fieldName('advance_bill_no'),
    /** A final bill's deductions of advance bills, as answered (`advances`). */
    advances: p.json<Record<string, unknown>[]>().columnType('json').nullable(),
    /** An advance bill's tax documents ({id, no, vendor_doc_no, total_amount}), appended as each is recorded. */
    taxDocuments: p.json<Record<string, unknown>[]>().columnType('json').nullable().fieldName('tax_documents'),
    /** An advance bill's final bill, once one deducted it. */
    settledById: p.integer().nullable().fieldName('settled_by_id'),
    settledByNo: p.string().nullable().fieldName('settled_by_no'),
    /** The payment order the bill was last put in (issue 76), and whether its item still waits for the bank. */
    paymentOrderId: p.integer().nullable().fieldName('payment_order_id'),
    paymentOrderOpen: p.boolean().default(false).fieldName('payment_order_open'),
    // written once and read whole: json, kept as the text written (decision 131)
    items: p.json<StoredItem[]>().columnType('json'),
    taxes: p.json<StoredTaxLine[]>().columnType('json'),
    subtotalAmount: p.decimal().columnType('numeric(18,4)'),
    taxAmount: p.decimal().columnType('numeric(18,4)'),
    /** Added to subtotal + tax to make the total (BT-114), as the vendor's document states it. */
    roundingAmount: p.decimal().columnType('numeric(18,4)').fieldName('rounding_amount'),
    totalAmount: p.decimal().columnType('numeric(18,4)'),
    /** What the vendor's document says was paid before it (BT-113): informational, not a payment. */
    prepaidAmount: p.decimal().columnType('numeric(18,4)').fieldName('prepaid_amount'),
    amountPaid: p.decimal().columnType('numeric(18,4)'),
    amountDue: p.decimal().columnType('numeric(18,4)'),
    paymentStatus: p.string().$type<BillPaymentStatus>(),
    isLocked: p.boolean(),
    input: p.json<Record<string, unknown>>().columnType('json'),
    createdAt: p.datetime().onCreate(() => new Date()),
    editedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
/**
 * A received purchase document: a vendor bill or a vendor credit. Both live in one table (they
 * share the shape, the id space and the inventory-in export). Figures are computed once, when the
 * document is stored, and kept as numeric columns; lines and tax recap are jsonb of decimal strings.
 */
export type PurchaseDocument = InferEntity<typeof PurchaseDocumentSchema>;

export const PaymentApplicationSchema = defineEntity({
  name: 'PaymentApplication',
  tableName: 'payment_applications',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    eventId: p.string().unique(),
    documentId: p.integer(),
    paymentId: p.string(),
    source: p.string(),
    amount: p.decimal().columnType('numeric(18,4)'),
    currency: p.string(),
    /** The payment's day (the event's `date`). */
    date: p.string().columnType('date'),
    appliedAt: p.datetime().onCreate(() => new Date()),
  },
});
/** One payment applied to a purchase document (from `finance.payment.matched`); the audit trail of amount_paid. */
export type PaymentApplication = InferEntity<typeof PaymentApplicationSchema>;

/** A vendor credit applied to a bill (decision 148); declared by `creditAllocationEntity` and written and read by `allocateCredit` (packages/posted-documents). */
export const CreditAllocationSchema = creditAllocationEntity('purchase_credit_allocations');

/** An imported e-invoice: a vendor's document number is imported once per kind (409 on a repeat). */
export const EInvoiceImportSchema = defineEntity({
  name: 'EInvoiceImport',
  tableName: 'einvoice_imports',
  properties: {
    orgId: p.integer().fieldName('org_id').primary(),
    kind: p.string().primary(),
    vendorKey: p.string().fieldName('vendor_key').primary(),
    vendorDocNo: p.string().fieldName('vendor_doc_no').primary(),
    documentId: p.integer().fieldName('document_id'),
    importedAt: p.datetime().fieldName('imported_at').onCreate(() => new Date()),
  },
});

export const entities = [PurchaseDocumentSchema, PaymentApplicationSchema, CreditAllocationSchema, EInvoiceImportSchema];
