import type { z } from 'zod';
import type { purchaseDocumentListQuerySchema } from '@ledgerline/contracts';
import { dec, listEntityPage, type ListedPage, parseRange, sortedPage, toWire, where, type SqlCondition, type TenantScope } from '@ledgerline/service-kit';
import { PurchaseDocumentSchema, type PurchaseDocument, type PurchaseKind } from '../db/entities.js';
import { DOCUMENT_TYPE_OF } from './document-types.js';
import { isoDay } from '@ledgerline/service-kit';

/** The list query as the contracts parse it (`purchaseDocumentListQuerySchema`, the export's too). */
export type PurchaseListQuery = Pick<z.output<typeof purchaseDocumentListQuerySchema>, 'from' | 'take' | 'search' | 'sort' | 'payment_status'> & { updated_since?: string; date_due?: string };

/** Sortable fields of purchase lists and the export → the columns they read. */
const SORTABLE: Record<string, string> = {
  id: 'id',
  no: 'no',
  document_type: 'kind',
  vendor_doc_no: 'vendor_doc_no',
  vendor_name: 'vendor_name',
  date_issued: 'date_issued',
  date_taxable: 'date_taxable',
  date_due: 'date_due',
  currency: 'currency',
  subtotal_amount: 'subtotal_amount',
  total_amount: 'total_amount',
  amount_paid: 'amount_paid',
  amount_due: 'amount_due',
  payment_status: 'payment_status',
  created_at: 'created_at',
};

/**
 * Purchase documents of the given kinds, filtered by payment status, searched case-insensitively
 * over number, vendor number, vendor name and description, sorted and paged; plain rows, no
 * entities (decision 105).
 */
export async function listPurchaseDocuments(scope: TenantScope, kinds: PurchaseKind[], q: PurchaseListQuery): Promise<ListedPage<PurchaseDocument>> {
  const { em, orgId } = scope;
  const conditions: SqlCondition[] = [where.oneOf('kind', kinds)];
  if (q.payment_status?.length) conditions.push(where.oneOf('payment_status', q.payment_status));
  if (q.search) conditions.push(where.containsAny(['no', 'vendor_doc_no', 'vendor_name', 'description'], q.search));
  if (q.updated_since) conditions.push(where.gte('updated_at', new Date(q.updated_since)));
  conditions.push(...where.within('date_due', parseRange('date_due', q.date_due, 'date')));
  return listEntityPage(em, PurchaseDocumentSchema, { orgId, conditions, ...sortedPage(q, SORTABLE) });
}

/** One received document as a row of the inventory-in export. */
export function inventoryInRow(d: PurchaseDocument) {
  const vendor = d.vendor as { business_name?: string | null; vat_no?: string | null };
  return {
    // the export lists bills and vendor credits (an advance bill is no tax document; its tax documents are bills of their own kind)
    document_type: DOCUMENT_TYPE_OF[d.kind] as 'purchase_bill' | 'purchase_vendor_credit',
    id: d.id,
    no: d.no,
    vendor_doc_no: d.vendorDocNo ?? null,
    vendor_name: d.vendorName ?? vendor.business_name ?? null,
    vendor_vat_no: vendor.vat_no ?? null,
    date_issued: isoDay(d.dateIssued)!,
    date_taxable: isoDay(d.dateTaxable),
    date_due: isoDay(d.dateDue),
    currency: d.currency.trim(),
    subtotal_amount: toWire(d.subtotalAmount)!,
    tax_amount: toWire(d.taxAmount)!,
    total_amount: toWire(d.totalAmount)!,
    amount_paid: toWire(d.amountPaid)!,
    amount_due: toWire(d.amountDue)!,
    payment_status: d.paymentStatus,
  };
}

const CSV_COLUMNS = [
  'document_type', 'id', 'no', 'vendor_doc_no', 'vendor_name', 'vendor_vat_no', 'date_issued', 'date_taxable', 'date_due',
  'currency', 'subtotal_amount', 'tax_amount', 'total_amount', 'amount_paid', 'amount_due', 'payment_status',
] as const;
const MONEY_COLUMNS = new Set(['subtotal_amount', 'tax_amount', 'total_amount', 'amount_paid', 'amount_due']);

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 CSV (CRLF line ends) with a header row; amounts written at the document's precision. */
export function inventoryInCsv(docs: PurchaseDocument[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const d of docs) {
    const row = inventoryInRow(d) as Record<string, unknown>;
    const stored: Record<string, string> = {
      subtotal_amount: d.subtotalAmount,
      tax_amount: d.taxAmount,
      total_amount: d.totalAmount,
      amount_paid: d.amountPaid,
      amount_due: d.amountDue,
    };
    lines.push(CSV_COLUMNS.map((c) => csvField(MONEY_COLUMNS.has(c) ? dec(stored[c]).toFixed(d.precision) : row[c])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
