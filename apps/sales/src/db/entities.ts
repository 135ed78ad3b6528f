import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { creditAllocationEntity } from '@ledgerline/posted-documents';
import { deliveryEntities } from './delivery.entities.js';
import { complianceEntities } from './compliance.entities.js';

export type SalesDocType = 'sales_invoice' | 'sales_credit_note' | 'sales_proforma' | 'sales_advance_tax_document';

export const NumberSeriesSchema = defineEntity({
  name: 'NumberSeries',
  tableName: 'number_series',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    docType: p.string().$type<SalesDocType>(),
    name: p.string(),
    mask: p.string(),
    isDefault: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type NumberSeries = InferEntity<typeof NumberSeriesSchema>;

export const SalesDocumentSchema = defineEntity({
  name: 'SalesDocument',
  tableName: 'sales_documents',
  properties: {
    id: p.integer().primary().autoincrement(),
    uid: p.uuid(),
    orgId: p.integer().fieldName('org_id'),
    docType: p.string().$type<SalesDocType>(),
    no: p.string(),
    counterId: p.integer().nullable(),
    customerId: p.integer().nullable(),
    customerName: p.string().nullable(),
    currency: p.string().length(3),
    precision: p.integer(),
    dateIssued: p.date(),
    dateDue: p.date().nullable(),
    notes: p.text().nullable(),
    creditedDocId: p.integer().nullable(),
    creditedDocNo: p.string().nullable(),
    subtotalAmount: p.decimal(),
    taxAmount: p.decimal(),
    totalAmount: p.decimal(),
    amountPaid: p.decimal(),
    amountDue: p.decimal(),
    paymentStatus: p.string(),
    /** The body's payment reference, in a column so a bank payment finds its invoice without reading bodies. */
    paymentReference: p.string().nullable(),
    /** The recurring invoice that issued it (its invoices are listed by it). */
    recurringInvoiceId: p.integer().nullable(),
    /** An advance tax document's proforma (decision 236). */
    proformaId: p.integer().nullable(),
    /** A proforma's state beyond its payments: settled by a final invoice, or cancelled. */
    proformaState: p.string().$type<'settled' | 'cancelled'>().nullable(),
    settledById: p.integer().nullable(),
    settledByNo: p.string().nullable(),
    cancelledAt: p.datetime().nullable(),
    /** Stored as `json`: kept as the text it was written in, read whole (decision 130). */
    body: p.json<Record<string, unknown>>().columnType('json'),
    /**
     * The stored body is the document's whole view as posted, and nothing it shows has changed
     * since (a trigger clears it when a payment or an edit does): a read answers the body's text
     * as it is, unless the document has fallen overdue since (decision 133).
     */
    viewIsBody: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()),
    editedAt: p.datetime().nullable(),
  },
});
export type SalesDocument = InferEntity<typeof SalesDocumentSchema>;

export const DocumentPaymentSchema = defineEntity({
  name: 'DocumentPayment',
  tableName: 'sales_document_payments',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    documentId: p.integer(),
    eventId: p.string(),
    paymentId: p.integer(),
    source: p.string(),
    amount: p.decimal(),
    currency: p.string().length(3),
    date: p.date(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type DocumentPayment = InferEntity<typeof DocumentPaymentSchema>;

/** A credit note applied to an invoice (decision 148); declared by `creditAllocationEntity` and written and read by `allocateCredit` (packages/posted-documents). */
export const CreditAllocationSchema = creditAllocationEntity('sales_credit_allocations');

export const ItemSchema = defineEntity({
  name: 'Item',
  tableName: 'items',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    sku: p.string().nullable(),
    name: p.string(),
    unit: p.json<{ code?: string | null; name?: string | null }>().nullable(),
    salesRate: p.decimal(),
    currency: p.string().length(3),
    taxRate: p.decimal().nullable(),
    glAccount: p.json<Record<string, unknown>>().nullable(),
    /** goods or services (issue 70); null: a line naming the item takes the organisation's default. */
    supply: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Item = InferEntity<typeof ItemSchema>;

export const PriceListSchema = defineEntity({
  name: 'PriceList',
  tableName: 'price_lists',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    name: p.string(),
    currency: p.string().length(3),
    validFrom: p.date().nullable(),
    validTo: p.date().nullable(),
    isDefault: p.boolean().fieldName('is_default').default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type PriceList = InferEntity<typeof PriceListSchema>;

export const PriceListRateSchema = defineEntity({
  name: 'PriceListRate',
  tableName: 'price_list_rates',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    priceListId: p.integer(),
    itemId: p.integer(),
    rate: p.decimal(),
    minQty: p.decimal(),
  },
});
export type PriceListRate = InferEntity<typeof PriceListRateSchema>;

export const entities = [
  NumberSeriesSchema,
  SalesDocumentSchema,
  DocumentPaymentSchema,
  CreditAllocationSchema,
  ItemSchema,
  PriceListSchema,
  PriceListRateSchema,
  ...complianceEntities,
  ...deliveryEntities,
];
