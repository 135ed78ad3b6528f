import type { EntityManager } from '@mikro-orm/postgresql';
import type { InvoiceListQuery, SalesDocumentListQuery } from '@ledgerline/contracts';
import { listPage, pagingOf, parseRange, parseSort, where, type ListedPage, type SqlCondition } from '@ledgerline/service-kit';
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
/** Sortable fields never null (a cursor after them starts an index scan). */
const NOT_NULL = ['id', 'no', 'date_issued', 'total_amount', 'amount_due', 'created_at', 'updated_at'];

/** A page of one organisation's documents of one type, filtered, searched and sorted as the query asks. */
export async function listSalesDocuments(
  em: EntityManager,
  orgId: number,
  docType: SalesDocType,
  q: Partial<SalesDocumentListQuery> & Pick<SalesDocumentListQuery, 'from' | 'take'> & Partial<Pick<InvoiceListQuery, 'recurring_invoice_id'>>,
  /** What a kind lists beyond the shared query (a proforma's status) and the columns its view needs besides the shared ones. */
  more: { conditions?: SqlCondition[]; columns?: string } = {},
): Promise<ListedPage<SalesViewRow>> {
  const conditions: SqlCondition[] = [where.eq('doc_type', docType), ...(more.conditions ?? [])];
  if (q.customer_id != null) conditions.push(where.eq('customer_id', q.customer_id));
  if (q.search) conditions.push(where.containsAny(['no', 'customer_name', 'notes'], q.search));
  if (q.payment_status?.length) conditions.push(where.oneOf('payment_status', q.payment_status));
  const issued = parseRange('date_issued', q.date_issued, 'date');
  conditions.push(...where.within('date_issued', issued));
  conditions.push(...where.within('date_due', parseRange('date_due', q.date_due, 'date')));
  if (q.recurring_invoice_id != null) conditions.push(where.eq('recurring_invoice_id', q.recurring_invoice_id));
  if (q.updated_since) conditions.push(where.gte('updated_at', new Date(q.updated_since)));
  const sort = parseSort(q.sort, Object.keys(SORTABLE), [{ field: 'id', direction: 'desc' }]);
  // one day's documents come in id order from the issue-date index itself
  if (issued && issued.from !== issued.to && sort[0].field === 'id') conditions.push(idsIssuedWithin(orgId, docType, issued));
  return listPage<SalesViewRow>(em, {
    table: 'sales_documents',
    columns: more.columns ? `${SALES_VIEW_COLUMNS}, ${more.columns}` : SALES_VIEW_COLUMNS,
    orgId,
    conditions,
    sort,
    sortColumns: SORTABLE,
    notNull: NOT_NULL,
    tieBreak: sort[0]?.direction ?? 'desc',
    ...pagingOf(q),
  });
}

/**
 * The ids of the documents issued within a range, as a bound on id (decision 213). A period's
 * documents listed in id order are read along the id index, and the planner, which takes the
 * days to be spread evenly over the ids, expects the period's first hundred a hundred rows in;
 * but ids follow the days they were issued on, so a month two years back sits hundreds of
 * thousands of rows in, every one read from the table to be filtered out (a second and more on a
 * million invoices). Bounding id by the period's lowest and highest id, read from the issue-date
 * index alone (`id + 0` keeps the planner from reading those along the id index too), starts
 * and stops the walk at the period. It changes no answer (every row of the period lies within),
 * so the count leaves it out. A single day needs none: that index holds its ids in order.
 */
function idsIssuedWithin(orgId: number, docType: SalesDocType, issued: { from?: string; to?: string }): SqlCondition {
  const period = [where.eq('org_id', orgId), where.eq('doc_type', docType), ...where.within('date_issued', issued)];
  const sql = period.map((c) => c.sql).join(' and ');
  const params = period.flatMap((c) => c.params);
  return {
    sql: `id >= (select min(id + 0) from sales_documents where ${sql}) and id <= (select max(id + 0) from sales_documents where ${sql})`,
    params: [...params, ...params],
    planOnly: true,
  };
}
