import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { SalesDocumentListQuery } from '@ledgerline/contracts';
import { rangeCondition, parseSort } from '@ledgerline/service-kit';
import { SalesDocumentSchema, type SalesDocType, type SalesDocument } from '../db/entities.js';

/** Sortable fields of the document lists and their properties. */
export const SORTABLE: Record<string, keyof SalesDocument> = {
  id: 'id',
  no: 'no',
  date_issued: 'dateIssued',
  date_due: 'dateDue',
  total_amount: 'totalAmount',
  amount_due: 'amountDue',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  customer_name: 'customerName',
};

/** `%`, `_` and `\` taken literally in an ILIKE pattern. */
export function likePattern(s: string): string {
  return `%${s.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

export async function listSalesDocuments(
  em: EntityManager,
  docType: SalesDocType,
  q: SalesDocumentListQuery,
): Promise<{ rows: SalesDocument[]; total: number }> {
  const sort = parseSort(q.sort, Object.keys(SORTABLE), [{ field: 'id', direction: 'desc' }]);
  const where: FilterQuery<SalesDocument> & Record<string, unknown> = { docType };
  if (q.search) {
    const p = likePattern(q.search);
    where.$or = [{ no: { $ilike: p } }, { customerName: { $ilike: p } }, { notes: { $ilike: p } }];
  }
  if (q.payment_status?.length) where.paymentStatus = { $in: q.payment_status };
  const dateIssuedRange = rangeCondition('date_issued', q.date_issued, 'date');
  if (dateIssuedRange) where.dateIssued = dateIssuedRange;
  if (q.updated_since) where.updatedAt = { $gte: new Date(q.updated_since) };
  const orderBy = sort.map((s) => ({ [SORTABLE[s.field]]: s.direction }));
  if (!sort.some((s) => s.field === 'id')) orderBy.push({ id: sort[0]?.direction ?? 'desc' });
  const [rows, total] = await em.findAndCount(SalesDocumentSchema, where as FilterQuery<SalesDocument>, {
    orderBy: orderBy as never,
    limit: q.take,
    offset: q.from,
  });
  return { rows, total };
}
