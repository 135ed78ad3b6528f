import type { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { purchaseDocumentListQuerySchema } from '@ledgerline/contracts';
import type { FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import { dec, parseSort, toWire, containsPattern } from '@ledgerline/service-kit';
import { PurchaseDocumentSchema, type PurchaseDocument, type PurchaseKind } from '../db/entities.js';
import { PURCHASE_KINDS } from './kinds.js';
import { isoDay } from '@ledgerline/service-kit';

/** The list query as the contracts parse it (`purchaseDocumentListQuerySchema`, the export's too). */
export type PurchaseListQuery = Pick<z.output<typeof purchaseDocumentListQuerySchema>, 'from' | 'take' | 'search' | 'sort' | 'payment_status'>;

/** Sortable fields of purchase lists and the export → entity properties. */
const SORTABLE: Record<string, keyof PurchaseDocument> = {
  id: 'id',
  no: 'no',
  document_type: 'kind',
  vendor_doc_no: 'vendorDocNo',
  vendor_name: 'vendorName',
  date_issued: 'dateIssued',
  date_taxable: 'dateTaxable',
  date_due: 'dateDue',
  currency: 'currency',
  subtotal_amount: 'subtotalAmount',
  total_amount: 'totalAmount',
  amount_paid: 'amountPaid',
  amount_due: 'amountDue',
  payment_status: 'paymentStatus',
  created_at: 'createdAt',
};


/**
 * Purchase documents of the given kinds, filtered by payment status, searched case-insensitively
 * over number, vendor number, vendor name and description, sorted and paged.
 */
export async function listPurchaseDocuments(em: EntityManager, kinds: PurchaseKind[], q: PurchaseListQuery) {
  const sort = parseSort(q.sort, Object.keys(SORTABLE), [{ field: 'id', direction: 'asc' }]);
  const where: FilterQuery<PurchaseDocument> & Record<string, unknown> = { kind: { $in: kinds } };
  if (q.payment_status?.length) where.paymentStatus = { $in: q.payment_status };
  if (q.search) {
    const like = containsPattern(q.search);
    where.$or = [
      { no: { $ilike: like } },
      { vendorDocNo: { $ilike: like } },
      { vendorName: { $ilike: like } },
      { description: { $ilike: like } },
    ];
  }
  const orderBy: QueryOrderMap<PurchaseDocument>[] = sort.map((s) => ({ [SORTABLE[s.field]]: s.direction }) as QueryOrderMap<PurchaseDocument>);
  if (!sort.some((s) => s.field === 'id')) orderBy.push({ id: 'asc' });
  if (q.take === 0) return { rows: [] as PurchaseDocument[], total: await em.count(PurchaseDocumentSchema, where) };
  const [rows, total] = await em.findAndCount(PurchaseDocumentSchema, where, { orderBy, offset: q.from, limit: q.take });
  return { rows, total };
}

/** One received document as a row of the inventory-in export (#22). */
export function inventoryInRow(d: PurchaseDocument) {
  const vendor = d.vendor as { business_name?: string | null; vat_no?: string | null };
  return {
    document_type: PURCHASE_KINDS[d.kind].documentType,
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
