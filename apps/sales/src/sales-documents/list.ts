import type { EntityManager } from '@mikro-orm/postgresql';
import type { InvoiceListQuery, SalesDocumentListQuery } from '@ledgerline/contracts';
import { listPage, parseRange, parseSort, where, type SqlCondition } from '@ledgerline/service-kit';
import type { SalesDocType } from '../db/entities.js';
import { SALES_VIEW_COLUMNS, type SalesViewRow } from './view.js';

/** Sortable fields of the document lists and the columns they read. */
export const SORTABLE: Record<string, string> = {
  id: 'id',
  no: 'no',
  date_issued: 'date_issued',
  date_due: 'date_due',
  total_amount: 'total_amount',
  amount_due: 'amount_due',
  created_at: 'created_at',
  updated_at: 'updated_at',
  customer_name: 'customer_name',
};

/** A page of one organisation's documents of one type, filtered, searched and sorted as the query asks. */
export async function listSalesDocuments(
  em: EntityManager,
  orgId: number,
  docType: SalesDocType,
  q: SalesDocumentListQuery & Partial<Pick<InvoiceListQuery, 'recurring_invoice_id'>>,
): Promise<{ rows: SalesViewRow[]; total: number }> {
  const conditions: SqlCondition[] = [where.eq('doc_type', docType)];
  if (q.search) conditions.push(where.containsAny(['no', 'customer_name', 'notes'], q.search));
  if (q.payment_status?.length) conditions.push(where.oneOf('payment_status', q.payment_status));
  conditions.push(...where.within('date_issued', parseRange('date_issued', q.date_issued, 'date')));
  conditions.push(...where.within('date_due', parseRange('date_due', q.date_due, 'date')));
  if (q.recurring_invoice_id != null) conditions.push(where.eq('recurring_invoice_id', q.recurring_invoice_id));
  if (q.updated_since) conditions.push(where.gte('updated_at', new Date(q.updated_since)));
  const sort = parseSort(q.sort, Object.keys(SORTABLE), [{ field: 'id', direction: 'desc' }]);
  return listPage<SalesViewRow>(em, {
    table: 'sales_documents',
    columns: SALES_VIEW_COLUMNS,
    orgId,
    conditions,
    sort,
    sortColumns: SORTABLE,
    tieBreak: sort[0]?.direction ?? 'desc',
    from: q.from,
    take: q.take,
  });
}
