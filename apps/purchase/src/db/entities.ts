import type { PaymentStatus } from '@ledgerline/documents';
import { EntitySchema } from '@mikro-orm/core';

export type PurchaseKind = 'bill' | 'vendor_credit';

/**
 * A received purchase document: a vendor bill or a vendor credit. Both live in one table (they
 * share the shape, the id space and the inventory-in export). Figures are computed once, when the
 * document is stored, and kept as numeric columns; lines and tax recap are jsonb of decimal strings.
 */
export interface PurchaseDocument {
  id: number;
  orgId: number;
  kind: PurchaseKind;
  uid: string;
  no: string;
  vendorDocNo?: string | null;
  creditedDocId?: number | null;
  creditedDocNo?: string | null;
  copyFromId?: number | null;
  vendor: Record<string, unknown>;
  vendorName?: string | null;
  type: Record<string, unknown>;
  currency: string;
  precision: number;
  taxesIncluded: boolean;
  taxFxRate: string;
  dateIssued: string;
  dateTaxable?: string | null;
  dateDue?: string | null;
  description?: string | null;
  rateFormat?: string | null;
  taxNexus?: Record<string, unknown> | null;
  paymentReference?: string | null;
  bankAccountNumber?: string | null;
  rsn?: string | null;
  items: StoredItem[];
  taxes: StoredTaxLine[];
  subtotalAmount: string;
  taxAmount: string;
  totalAmount: string;
  amountPaid: string;
  amountDue: string;
  paymentStatus: PaymentStatus;
  isLocked: boolean;
  /** The request as accepted (without derived figures): what `copy_from_id` starts from. */
  input: Record<string, unknown>;
  createdAt: Date;
  editedAt: Date;
}

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
  taxes: StoredTaxLine[];
}

export const PurchaseDocumentSchema = new EntitySchema<PurchaseDocument>({
  name: 'PurchaseDocument',
  tableName: 'purchase_documents',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    kind: { type: 'string' },
    uid: { type: 'uuid' },
    no: { type: 'string' },
    vendorDocNo: { type: 'string', nullable: true },
    creditedDocId: { type: 'number', nullable: true },
    creditedDocNo: { type: 'string', nullable: true },
    copyFromId: { type: 'number', nullable: true },
    vendor: { type: 'json' },
    vendorName: { type: 'string', nullable: true },
    type: { type: 'json' },
    currency: { type: 'string' },
    precision: { type: 'number' },
    taxesIncluded: { type: 'boolean' },
    taxFxRate: { type: 'decimal', columnType: 'numeric(20,10)' },
    dateIssued: { type: 'string', columnType: 'date' },
    dateTaxable: { type: 'string', columnType: 'date', nullable: true },
    dateDue: { type: 'string', columnType: 'date', nullable: true },
    description: { type: 'string', nullable: true },
    rateFormat: { type: 'string', nullable: true },
    taxNexus: { type: 'json', nullable: true },
    paymentReference: { type: 'string', nullable: true },
    bankAccountNumber: { type: 'string', nullable: true },
    rsn: { type: 'string', nullable: true },
    items: { type: 'json' },
    taxes: { type: 'json' },
    subtotalAmount: { type: 'decimal', columnType: 'numeric(18,4)' },
    taxAmount: { type: 'decimal', columnType: 'numeric(18,4)' },
    totalAmount: { type: 'decimal', columnType: 'numeric(18,4)' },
    amountPaid: { type: 'decimal', columnType: 'numeric(18,4)' },
    amountDue: { type: 'decimal', columnType: 'numeric(18,4)' },
    paymentStatus: { type: 'string' },
    isLocked: { type: 'boolean' },
    input: { type: 'json' },
    createdAt: { type: 'Date', onCreate: () => new Date() },
    editedAt: { type: 'Date', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});

/** One payment applied to a purchase document (from `finance.payment.matched`); the audit trail of amount_paid. */
export interface PaymentApplication {
  id: number;
  orgId: number;
  eventId: string;
  documentId: number;
  paymentId: string;
  source: string;
  amount: string;
  currency: string;
  appliedAt: Date;
}

export const PaymentApplicationSchema = new EntitySchema<PaymentApplication>({
  name: 'PaymentApplication',
  tableName: 'payment_applications',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    eventId: { type: 'string', unique: true },
    documentId: { type: 'number' },
    paymentId: { type: 'string' },
    source: { type: 'string' },
    amount: { type: 'decimal', columnType: 'numeric(18,4)' },
    currency: { type: 'string' },
    appliedAt: { type: 'Date', onCreate: () => new Date() },
  },
});

export const entities = [PurchaseDocumentSchema, PaymentApplicationSchema];
