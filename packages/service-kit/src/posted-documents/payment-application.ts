import type { EntitySchema, FilterQuery } from '@mikro-orm/core';
import { LockMode } from '@mikro-orm/core';
import { financePaymentMatchedEventSchema, type CloudEvent, type FinancePaymentMatchedEvent } from '@ledgerline/contracts';
import { paymentStatus } from '@ledgerline/documents';
import { dec, toDb } from '../money.js';
import { insertRows } from '../db/tables.js';
import { PoisonMessageError } from '../events/consumer.js';
import type { OperationContext } from '../context.js';

/** The figures a payment moves on a posted document. */
export interface PayableDocument {
  id: number;
  orgId: number;
  currency: string;
  precision: number;
  totalAmount: string;
  amountPaid: string;
  amountDue: string;
  paymentStatus: string;
}

/** Where a service keeps its documents and their payment applications: the differences, as data. */
export interface PaymentTarget<D extends PayableDocument, A extends object> {
  documents: EntitySchema<D, any>;
  /** Selects the paid document among this service's, or null when its type is another service's. */
  documentFilter: (ref: FinancePaymentMatchedEvent['document']) => FilterQuery<D> | null;
  /** The audit row of one applied payment (unique per event id). */
  applications: EntitySchema<A, any>;
  applicationRow: (doc: D, eventId: string, payment: FinancePaymentMatchedEvent, at: Date) => Partial<Record<keyof A, unknown>>;
  /** Stamps the document as changed (e.g. `updatedAt`). */
  touch?: (doc: D, at: Date) => void;
}

/**
 * Applies `finance.payment.matched` to the paid document of the event's organisation: amount_paid
 * moves by the amount (a negative amount undoes an earlier match), amount_due and payment_status
 * follow, and an application row records it.
 *
 * - An event that can never apply (no organisation, invalid data, another currency than the
 *   document's) is poison: it goes to the dead-letter subject, where an operator sees it.
 * - A document of another service's type, or unknown in the organisation, is ignored and logged;
 *   documents of another organisation are never looked up.
 * - The consumer's inbox makes a redelivery a no-op; the application row, unique per event, is
 *   a second guard.
 */
export async function applyMatchedPayment<D extends PayableDocument, A extends object>(
  ctx: OperationContext,
  event: CloudEvent,
  target: PaymentTarget<D, A>,
): Promise<'applied' | 'ignored'> {
  if (ctx.orgId === null) throw new PoisonMessageError('finance.payment.matched without an organisation');
  const parsed = financePaymentMatchedEventSchema.safeParse(event.data);
  if (!parsed.success) throw new PoisonMessageError(`invalid finance.payment.matched data: ${parsed.error.message}`);
  const payment = parsed.data;
  const filter = target.documentFilter(payment.document);
  if (!filter) return 'ignored';
  const doc = await ctx.em.findOne(target.documents, { ...(filter as object), id: payment.document.id } as FilterQuery<D>, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
  });
  if (!doc) {
    ctx.log.warn('payment for a document unknown in the organisation ignored', { event_id: event.id, org_id: ctx.orgId, document: payment.document });
    return 'ignored';
  }
  if (doc.currency.trim() !== payment.currency) {
    throw new PoisonMessageError(`payment in ${payment.currency} for ${payment.document.type} ${doc.id} in ${doc.currency.trim()}`);
  }
  const at = ctx.now();
  const recorded = await insertRows(ctx.em, target.applications, [target.applicationRow(doc, event.id, payment, at)], {
    onConflict: '(event_id) do nothing',
    returning: true,
  });
  if (recorded.length === 0) return 'ignored';
  const paid = dec(doc.amountPaid).plus(dec(payment.amount));
  doc.amountPaid = toDb(paid, doc.precision);
  doc.amountDue = toDb(dec(doc.totalAmount).minus(paid), doc.precision);
  doc.paymentStatus = paymentStatus(doc.totalAmount, doc.amountPaid);
  target.touch?.(doc, at);
  await ctx.em.flush();
  return 'applied';
}

/**
 * Ordering key of `finance.payment.matched` consumers: every payment of one document in stream
 * order (an undoing match must never overtake the match it undoes), payments of different
 * documents in parallel.
 */
export function paidDocumentOrderingKey(event: CloudEvent): string {
  const doc = (event.data as { document?: { type?: string; id?: number } } | undefined)?.document;
  return `${event.orgid ?? ''}|${doc?.type ?? ''}:${doc?.id ?? event.subject ?? event.id}`;
}
