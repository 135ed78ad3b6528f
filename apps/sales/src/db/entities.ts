import { EntitySchema } from '@mikro-orm/core';
import { deliveryEntities } from './delivery.entities.js';
import { complianceEntities } from './compliance.entities.js';

export type SalesDocType = 'sales_invoice' | 'sales_credit_note';

export interface NumberSeries {
  id: number;
  orgId: number;
  docType: SalesDocType;
  name: string;
  mask: string;
  isDefault: boolean;
  createdAt: Date;
}

export const NumberSeriesSchema = new EntitySchema<NumberSeries>({
  name: 'NumberSeries',
  tableName: 'number_series',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    docType: { type: 'string' },
    name: { type: 'string' },
    mask: { type: 'string' },
    isDefault: { type: 'boolean' },
    createdAt: { type: 'Date', onCreate: () => new Date() },
  },
});

export interface SalesDocument {
  id: number;
  uid: string;
  orgId: number;
  docType: SalesDocType;
  no: string;
  counterId?: number | null;
  customerId?: number | null;
  customerName?: string | null;
  currency: string;
  precision: number;
  dateIssued: string;
  dateDue?: string | null;
  notes?: string | null;
  creditedDocId?: number | null;
  creditedDocNo?: string | null;
  /** numeric strings */
  subtotalAmount: string;
  taxAmount: string;
  totalAmount: string;
  amountPaid: string;
  amountDue: string;
  paymentStatus: string;
  /** The document as computed once at creation (JSON numbers). */
  body: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  editedAt?: Date | null;
}

export const SalesDocumentSchema = new EntitySchema<SalesDocument>({
  name: 'SalesDocument',
  tableName: 'sales_documents',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    uid: { type: 'uuid' },
    orgId: { type: 'number', fieldName: 'org_id' },
    docType: { type: 'string' },
    no: { type: 'string' },
    counterId: { type: 'number', nullable: true },
    customerId: { type: 'number', nullable: true },
    customerName: { type: 'string', nullable: true },
    currency: { type: 'string', length: 3 },
    precision: { type: 'number' },
    dateIssued: { type: 'date' },
    dateDue: { type: 'date', nullable: true },
    notes: { type: 'text', nullable: true },
    creditedDocId: { type: 'number', nullable: true },
    creditedDocNo: { type: 'string', nullable: true },
    subtotalAmount: { type: 'decimal' },
    taxAmount: { type: 'decimal' },
    totalAmount: { type: 'decimal' },
    amountPaid: { type: 'decimal' },
    amountDue: { type: 'decimal' },
    paymentStatus: { type: 'string' },
    body: { type: 'json' },
    createdAt: { type: 'Date', onCreate: () => new Date() },
    updatedAt: { type: 'Date', onCreate: () => new Date() },
    editedAt: { type: 'Date', nullable: true },
  },
});

export interface DocumentPayment {
  id: number;
  orgId: number;
  documentId: number;
  eventId: string;
  paymentId: number;
  source: string;
  amount: string;
  currency: string;
  date: string;
  createdAt: Date;
}

export const DocumentPaymentSchema = new EntitySchema<DocumentPayment>({
  name: 'DocumentPayment',
  tableName: 'sales_document_payments',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    documentId: { type: 'number' },
    eventId: { type: 'string' },
    paymentId: { type: 'number' },
    source: { type: 'string' },
    amount: { type: 'decimal' },
    currency: { type: 'string', length: 3 },
    date: { type: 'date' },
    createdAt: { type: 'Date', onCreate: () => new Date() },
  },
});

export interface Item {
  id: number;
  orgId: number;
  sku?: string | null;
  name: string;
  unit?: { code?: string | null; name?: string | null } | null;
  salesRate: string;
  currency: string;
  taxRate?: string | null;
  glAccount?: Record<string, unknown> | null;
  createdAt: Date;
}

export const ItemSchema = new EntitySchema<Item>({
  name: 'Item',
  tableName: 'items',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    sku: { type: 'string', nullable: true },
    name: { type: 'string' },
    unit: { type: 'json', nullable: true },
    salesRate: { type: 'decimal' },
    currency: { type: 'string', length: 3 },
    taxRate: { type: 'decimal', nullable: true },
    glAccount: { type: 'json', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date() },
  },
});

export interface PriceList {
  id: number;
  orgId: number;
  name: string;
  currency: string;
  validFrom?: string | null;
  validTo?: string | null;
  isDefault: boolean;
  createdAt: Date;
}

export const PriceListSchema = new EntitySchema<PriceList>({
  name: 'PriceList',
  tableName: 'price_lists',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    name: { type: 'string' },
    currency: { type: 'string', length: 3 },
    validFrom: { type: 'date', nullable: true },
    validTo: { type: 'date', nullable: true },
    isDefault: { type: 'boolean', fieldName: 'is_default', default: false },
    createdAt: { type: 'Date', onCreate: () => new Date() },
  },
});

export interface PriceListRate {
  id: number;
  orgId: number;
  priceListId: number;
  itemId: number;
  rate: string;
  minQty: string;
}

export const PriceListRateSchema = new EntitySchema<PriceListRate>({
  name: 'PriceListRate',
  tableName: 'price_list_rates',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    priceListId: { type: 'number' },
    itemId: { type: 'number' },
    rate: { type: 'decimal' },
    minQty: { type: 'decimal' },
  },
});

export const entities = [
  NumberSeriesSchema,
  SalesDocumentSchema,
  DocumentPaymentSchema,
  ItemSchema,
  PriceListSchema,
  PriceListRateSchema,
  ...complianceEntities,
  ...deliveryEntities,
];
