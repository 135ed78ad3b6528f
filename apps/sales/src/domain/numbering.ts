import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessRuleError, ConflictError } from '@ledgerline/service-kit';
import { formatNumber, parseMask, seriesPeriodKey } from '@ledgerline/documents';
import { NumberSeriesSchema, SalesDocumentSchema, type NumberSeries, type SalesDocType } from '../db/entities.js';

/** Masks of the default series, seeded per organisation and document type on first use. */
export const DEFAULT_SERIES: Record<SalesDocType, { name: string; mask: string }> = {
  sales_invoice: { name: 'Invoices', mask: 'INV{YYYY}{#####}' },
  sales_credit_note: { name: 'Credit notes', mask: 'CN{YYYY}{#####}' },
};

const DOC_LABEL: Record<SalesDocType, string> = { sales_invoice: 'invoice', sales_credit_note: 'credit note' };

async function sql<T = unknown>(em: EntityManager, query: string, params: unknown[]): Promise<T[]> {
  return (await em.getConnection().execute(query, params, 'all', em.getTransactionContext())) as T[];
}

/** The default series of a document type; created (race-free) the first time it is needed. */
export async function defaultSeries(em: EntityManager, orgId: number, docType: SalesDocType): Promise<NumberSeries> {
  const def = DEFAULT_SERIES[docType];
  await sql(
    em,
    `insert into number_series (org_id, doc_type, name, mask, is_default) values (?, ?, ?, ?, true)
     on conflict (org_id, doc_type) where is_default do nothing`,
    [orgId, docType, def.name, def.mask],
  );
  const series = await em.findOne(NumberSeriesSchema, { docType, isDefault: true });
  if (!series) throw new Error(`default ${docType} series missing after seeding`);
  return series;
}

/** The series `counter_id` names (of this organisation and document type), else the default one. */
export async function pickSeries(em: EntityManager, orgId: number, docType: SalesDocType, counterId?: number | null): Promise<NumberSeries> {
  if (counterId === undefined || counterId === null) return defaultSeries(em, orgId, docType);
  const series = await em.findOne(NumberSeriesSchema, { id: counterId, docType });
  if (!series) {
    throw new BusinessRuleError(`Numbering series ${counterId} does not exist for ${DOC_LABEL[docType]}s`, 'unknown_counter', [
      { path: 'counter_id', message: 'no such numbering series for this document type', code: 'unknown_counter' },
    ]);
  }
  return series;
}

/**
 * The next number of a series. The counter row is incremented by one upsert, which keeps it
 * locked until the caller's transaction ends: concurrent documents of the same series queue
 * behind each other, a rolled-back document gives its number back, so the series is gap-free.
 * A number already taken by an explicitly numbered document is skipped.
 */
export async function nextNumber(em: EntityManager, series: NumberSeries, dateIssued: string): Promise<string> {
  const mask = parseMask(series.mask);
  const period = seriesPeriodKey(mask, dateIssued);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const [row] = await sql<{ last_value: number | string }>(
      em,
      `insert into number_series_counters (series_id, period_key, last_value) values (?, ?, 1)
       on conflict (series_id, period_key) do update set last_value = number_series_counters.last_value + 1
       returning last_value`,
      [series.id, period],
    );
    const no = formatNumber(mask, dateIssued, String(row.last_value));
    if ((await numberTaken(em, series.docType, no)).length === 0) return no;
  }
  throw new ConflictError(`Numbering series ${series.id} has no free number`, 'numbering_exhausted');
}

export async function numberTaken(em: EntityManager, docType: SalesDocType, no: string, excludeIds: number[] = []): Promise<number[]> {
  const rows = await em.find(SalesDocumentSchema, { docType, no, ...(excludeIds.length ? { id: { $nin: excludeIds } } : {}) }, { fields: ['id'] });
  return rows.map((r) => r.id);
}

/** An explicit number must be new for its document type in the organisation (409 otherwise). */
export async function assertNumberFree(em: EntityManager, docType: SalesDocType, no: string): Promise<void> {
  if ((await numberTaken(em, docType, no)).length) throw duplicateNumber(docType, no);
}

export function duplicateNumber(docType: SalesDocType, no: string): ConflictError {
  return new ConflictError(`A ${DOC_LABEL[docType]} numbered ${no} already exists`, 'duplicate_number');
}
