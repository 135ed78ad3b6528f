import { BusinessRuleError, insertRows, sqlRows, findAndCount, type ConflictError, type TenantScope } from '@ledgerline/service-kit';
import { duplicateDocumentNumber } from '@ledgerline/posted-documents';
import type { NumberSeriesListQuery, NumberSeriesRequest, NumberSeriesView } from '@ledgerline/contracts';
import { parseMask } from '@ledgerline/documents';
import { NumberSeriesSchema, type NumberSeries, type SalesDocType } from '../db/entities.js';

/** Masks of the default series, seeded per organisation and document type on first use. */
export const DEFAULT_SERIES: Record<SalesDocType, { name: string; mask: string }> = {
  sales_invoice: { name: 'Invoices', mask: 'INV{YYYY}{#####}' },
  sales_credit_note: { name: 'Credit notes', mask: 'CN{YYYY}{#####}' },
  // a proforma's variable symbol (the digits of its number) must not be an invoice's: 26900001…
  // against the invoices' 202600001…
  sales_proforma: { name: 'Proforma invoices', mask: 'PF{YY}9{#####}' },
  sales_advance_tax_document: { name: 'Advance tax documents', mask: 'DZ{YYYY}{#####}' },
};

const DOC_LABEL: Record<SalesDocType, string> = { sales_invoice: 'invoice', sales_credit_note: 'credit note', sales_proforma: 'proforma invoice', sales_advance_tax_document: 'advance tax document' };

/** The default series of a document type; created (race-free) the first time it is needed. */
export async function defaultSeries(scope: TenantScope, docType: SalesDocType): Promise<NumberSeries> {
  const { em, orgId } = scope;
  const existing = await em.findOne(NumberSeriesSchema, { docType, isDefault: true });
  if (existing) return existing;
  const def = DEFAULT_SERIES[docType];
  await insertRows(em, NumberSeriesSchema, [{ orgId, docType, name: def.name, mask: def.mask, isDefault: true }], { onConflict: '(org_id, doc_type) where is_default do nothing' });
  const series = await em.findOne(NumberSeriesSchema, { docType, isDefault: true });
  if (!series) throw new Error(`default ${docType} series missing after seeding`);
  return series;
}

/** The series `counter_id` names (of this organisation and document type), else the default one. */
export async function pickSeries(scope: TenantScope, docType: SalesDocType, counterId?: number | null): Promise<NumberSeries> {
  const { em, orgId } = scope;
  if (counterId === undefined || counterId === null) return defaultSeries(scope, docType);
  const series = await em.findOne(NumberSeriesSchema, { id: counterId, docType });
  if (!series) {
    throw new BusinessRuleError(`Numbering series ${counterId} does not exist for ${DOC_LABEL[docType]}s`, 'unknown_counter', [
      { path: 'counter_id', message: 'no such numbering series for this document type', code: 'unknown_counter' },
    ]);
  }
  return series;
}

/** The ids of the organisation's documents of a type numbered `no`, but those in `excludeIds` (GET /v1/sales/credit-notes/check-no: one prepared statement, no entity hydrated). */
export async function numberTaken(scope: TenantScope, docType: SalesDocType, no: string, excludeIds: number[] = []): Promise<number[]> {
  const { em, orgId } = scope;
  const rows = await sqlRows<{ id: number }>(
    em,
    'select id from sales_documents where org_id = ? and doc_type = ? and no = ? and id <> all(?::bigint[]) order by id',
    [orgId, docType, no, `{${excludeIds.join(',')}}`],
    { prepared: true },
  );
  return rows.map((r) => Number(r.id));
}

export function duplicateNumber(docType: SalesDocType, no: string): ConflictError {
  return duplicateDocumentNumber(DOC_LABEL[docType], no);
}

export function seriesView(s: NumberSeries): NumberSeriesView {
  return { id: s.id, doc_type: s.docType as SalesDocType, name: s.name, mask: s.mask, is_default: s.isDefault, created_at: s.createdAt.toISOString() };
}

/**
 * Creates a numbering series. The mask is checked with the numbering grammar (400 naming `mask`).
 * `is_default` moves the default of the document type to the new series under a lock, so two
 * concurrent switches leave exactly one default.
 */
export async function createSeries(scope: TenantScope, input: NumberSeriesRequest): Promise<NumberSeries> {
  const { em, orgId } = scope;
  parseMask(input.mask);
  const docType = input.doc_type;
  await defaultSeries(scope, docType); // the default exists before any other series
  if (input.is_default) {
    await sqlRows(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [`series-default:${orgId}:${docType}`]);
    await sqlRows(em, 'update number_series set is_default = false where org_id = ? and doc_type = ? and is_default', [orgId, docType]);
  }
  const series = em.create(NumberSeriesSchema, { orgId, docType, name: input.name, mask: input.mask, isDefault: input.is_default ?? false, createdAt: new Date() });
  await em.flush();
  return series;
}

/** The organisation's series (the defaults seeded first, so they are always listed), oldest first. */
export async function listSeries(scope: TenantScope, q: NumberSeriesListQuery): Promise<{ rows: NumberSeries[]; total: number }> {
  const { em, orgId } = scope;
  for (const docType of q.doc_type ? [q.doc_type] : (Object.keys(DEFAULT_SERIES) as SalesDocType[])) await defaultSeries(scope, docType);
  const [rows, total] = await findAndCount(em, NumberSeriesSchema, q.doc_type ? { docType: q.doc_type } : {}, { orderBy: { id: 'asc' }, limit: q.take, offset: q.from });
  return { rows, total };
}
