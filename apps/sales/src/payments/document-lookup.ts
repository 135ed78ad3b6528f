import type { EntityManager } from '@mikro-orm/postgresql';
import { salesDocumentLookupRequestSchema, type DocumentLookupAnswer } from '@ledgerline/contracts';
import { toWire } from '@ledgerline/service-kit';
import { SalesDocumentSchema, type SalesDocType, type SalesDocument } from '../db/entities.js';

export type DocumentLookupResult = DocumentLookupAnswer & { type: SalesDocType };

/** Finds a sales document of the caller's organisation by id or number (finance checks what it matches). */
export async function lookupDocument(em: EntityManager, raw: unknown): Promise<DocumentLookupResult> {
  const req = salesDocumentLookupRequestSchema.parse(raw);
  let doc: SalesDocument | null = null;
  if (req.id != null) doc = await em.findOne(SalesDocumentSchema, { id: req.id, docType: req.type });
  else if (req.no != null) doc = await em.findOne(SalesDocumentSchema, { no: req.no, docType: req.type });
  if (!doc) {
    return { found: false, type: req.type, id: req.id ?? null, no: req.no ?? null, total_amount: null, amount_due: null, currency: null, contact: null };
  }
  const customer = (doc.body.customer ?? null) as { id?: number | null; business_name?: string | null } | null;
  return {
    found: true,
    type: doc.docType,
    id: doc.id,
    no: doc.no,
    total_amount: toWire(doc.totalAmount),
    amount_due: toWire(doc.amountDue),
    currency: doc.currency,
    contact: customer ? { id: customer.id ?? null, business_name: customer.business_name ?? null } : null,
    // as stored on the document (never recomputed): finance converts and clears payments with them
    fx_rate: wireNumber(doc.body.fx_rate),
    currency_coef: wireNumber(doc.body.currency_coef),
    total_amount_leg: wireNumber(doc.body.total_amount_leg),
  };
}

/** A stored figure of the document body (a number or a decimal string) as a JSON number, else null. */
function wireNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return toWire(v);
  return null;
}
