import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { paymentStatus } from '@ledgerline/documents';
import { dec, roundMoney, toDb, toWire } from '@ledgerline/service-kit';
import type { Logger } from '@ledgerline/service-kit';
import { PaymentApplicationSchema, PurchaseDocumentSchema, type PurchaseDocument, type PurchaseKind } from '../db/entities.js';
import type { DocumentLookupAnswer, FinancePaymentMatchedEvent as PaymentMatchedEvent, PurchaseDocumentLookupRequest } from '@ledgerline/contracts';
import { KIND_TYPES } from './documents.js';

const KIND_OF: Record<string, PurchaseKind | undefined> = { purchase_bill: 'bill', purchase_vendor_credit: 'vendor_credit' };

/**
 * Applies a matched payment (or its reversal) to a purchase document: amount_paid moves by the
 * amount, amount_due and payment_status follow. The consumer's inbox makes a redelivery a no-op;
 * the application row (unique per event) is the audit trail and a second guard.
 */
export async function applyMatchedPayment(em: EntityManager, orgId: number, eventId: string, ev: PaymentMatchedEvent, log: Logger): Promise<boolean> {
  const kind = KIND_OF[ev.document.type];
  if (!kind) return false; // a sales document: not ours
  const doc = await em.findOne(PurchaseDocumentSchema, { id: ev.document.id, kind }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!doc) {
    log.warn('payment matched to an unknown purchase document; ignored', { document: ev.document, event_id: eventId });
    return false;
  }
  if ((await em.count(PaymentApplicationSchema, { eventId })) > 0) return false;
  const amount = dec(String(ev.amount));
  em.create(PaymentApplicationSchema, {
    orgId,
    eventId,
    documentId: doc.id,
    paymentId: String(ev.payment_id),
    source: ev.source,
    amount: toDb(amount, 4),
    currency: ev.currency,
    appliedAt: new Date(),
  });
  const paid = dec(doc.amountPaid).plus(amount);
  doc.amountPaid = toDb(paid, doc.precision);
  doc.amountDue = toDb(dec(doc.totalAmount).minus(paid), doc.precision);
  doc.paymentStatus = paymentStatus(doc.totalAmount, paid);
  await em.flush();
  return true;
}

/** Answer of `rpc.purchase.document.lookup`. */
export async function lookupDocument(em: EntityManager, req: PurchaseDocumentLookupRequest): Promise<DocumentLookupAnswer> {
  const kind = KIND_OF[req.type]!;
  const where: Record<string, unknown> = { kind };
  if (req.id != null) where.id = req.id;
  if (req.no) where.no = req.no;
  const doc = await em.findOne(PurchaseDocumentSchema, where);
  if (!doc) {
    return { found: false, type: req.type, id: req.id ?? null, no: req.no ?? null, total_amount: null, amount_due: null, currency: null, contact: null };
  }
  const vendor = doc.vendor as { id?: number | null; business_name?: string | null };
  return {
    found: true,
    type: KIND_TYPES[doc.kind],
    id: doc.id,
    no: doc.no,
    total_amount: toWire(doc.totalAmount),
    amount_due: toWire(doc.amountDue),
    currency: doc.currency.trim(),
    contact: { id: vendor.id ?? null, business_name: vendor.business_name ?? null },
    // purchase documents carry one rate to the legal currency (tax_fx_rate), quoted per 1 unit
    fx_rate: toWire(doc.taxFxRate),
    currency_coef: 1,
    total_amount_leg: toWire(purchaseTotalLeg(doc)),
  };
}

/**
 * Total in the legal currency as the ledger posts it: Σ of the recap's stored tax_base_leg and
 * tax_amount_leg, plus any untaxed remainder at tax_fx_rate.
 */
export function purchaseTotalLeg(doc: Pick<PurchaseDocument, 'taxes' | 'subtotalAmount' | 'taxFxRate' | 'precision'>): string {
  let base = dec(0);
  let leg = dec(0);
  for (const t of doc.taxes) {
    base = base.plus(dec(t.tax_base));
    leg = leg.plus(dec(t.tax_base_leg)).plus(dec(t.tax_amount_leg));
  }
  const untaxed = dec(doc.subtotalAmount).minus(base);
  if (!untaxed.isZero()) leg = leg.plus(roundMoney(untaxed.times(dec(doc.taxFxRate))));
  return toDb(leg);
}
