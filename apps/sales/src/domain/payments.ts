import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  financePaymentMatchedEventSchema,
  salesDocumentLookupRequestSchema,
  type CloudEvent,
  type DocumentLookupAnswer,
} from '@ledgerline/contracts';
import { PoisonMessageError, dec, toDb, toWire, type Logger } from '@ledgerline/service-kit';
import { paymentStatus } from '@ledgerline/documents';
import { DocumentPaymentSchema, SalesDocumentSchema, type SalesDocType, type SalesDocument } from '../db/entities.js';

const SALES_TYPES: readonly string[] = ['sales_invoice', 'sales_credit_note'];

/**
 * Applies `finance.payment.matched` to the paid document of the event's organisation: amount_paid
 * rises by the amount (a negative amount undoes an earlier match), amount_due and payment_status
 * follow. The consumer's inbox makes a redelivered event a no-op; a document unknown in the
 * organisation is logged and ignored, never looked up in another one.
 */
export async function applyPaymentMatched(em: EntityManager, event: CloudEvent, log: Logger): Promise<'applied' | 'ignored'> {
  if (!event.orgid || !/^\d+$/.test(event.orgid)) {
    log.warn('payment event without an organisation ignored', { event_id: event.id });
    return 'ignored';
  }
  const parsed = financePaymentMatchedEventSchema.safeParse(event.data);
  if (!parsed.success) throw new PoisonMessageError(`invalid finance.payment.matched data: ${parsed.error.message}`);
  const data = parsed.data;
  if (!SALES_TYPES.includes(data.document.type)) return 'ignored'; // a purchase document: not ours
  const doc = await em.findOne(
    SalesDocumentSchema,
    { id: data.document.id, docType: data.document.type as SalesDocType },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!doc) {
    log.warn('payment for a document unknown in the organisation ignored', {
      event_id: event.id,
      org_id: event.orgid,
      document: data.document,
    });
    return 'ignored';
  }
  if (doc.currency !== data.currency) {
    throw new PoisonMessageError(`payment in ${data.currency} for ${data.document.type} ${doc.id} in ${doc.currency}`);
  }
  const paid = dec(doc.amountPaid).plus(dec(data.amount));
  doc.amountPaid = toDb(paid, doc.precision);
  doc.amountDue = toDb(dec(doc.totalAmount).minus(paid), doc.precision);
  doc.paymentStatus = paymentStatus(doc.totalAmount, doc.amountPaid);
  doc.updatedAt = new Date();
  em.create(DocumentPaymentSchema, {
    orgId: doc.orgId,
    documentId: doc.id,
    eventId: event.id,
    paymentId: data.payment_id,
    source: data.source,
    amount: toDb(data.amount, doc.precision),
    currency: data.currency,
    date: data.date,
    createdAt: new Date(),
  });
  await em.flush();
  return 'applied';
}

// ------------------------------------------------------------------ rpc.sales.document.lookup

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
