import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { financePaymentMatchedEventSchema, type CloudEvent } from '@ledgerline/contracts';
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

export const documentLookupRequestSchema = z.object({
  type: z.enum(['sales_invoice', 'sales_credit_note']),
  id: z.int().min(1).nullish(),
  no: z.string().min(1).max(64).nullish(),
});
export type DocumentLookupRequest = z.infer<typeof documentLookupRequestSchema>;

export interface DocumentLookupResult {
  found: boolean;
  type: SalesDocType;
  id: number | null;
  no: string | null;
  total_amount: number | null;
  amount_due: number | null;
  currency: string | null;
  contact: { id: number | null; business_name: string | null } | null;
}

/** Finds a sales document of the caller's organisation by id or number (finance checks what it matches). */
export async function lookupDocument(em: EntityManager, raw: unknown): Promise<DocumentLookupResult> {
  const req = documentLookupRequestSchema.parse(raw);
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
  };
}
