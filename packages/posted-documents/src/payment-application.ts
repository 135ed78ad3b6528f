import type { EntitySchema } from '@mikro-orm/core';
import { SUBJECTS, financePaymentMatchedEventSchema, type CloudEvent, type FinancePaymentMatchedEvent } from '@ledgerline/contracts';
import { paymentStatus } from '@ledgerline/documents';
import { dec, toDb, type DecimalInput } from '@ledgerline/service-kit';
import { insertStatement } from '@ledgerline/service-kit';
import { sqlRows } from '@ledgerline/service-kit';
import { PoisonMessageError, type ConsumerDefinition } from '@ledgerline/service-kit';
import type { OperationContext } from '@ledgerline/service-kit';

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

/**
 * A document's payment figures once `delta` more is paid (negative takes a payment back): what a
 * payment and a credit allocation both store.
 */
export function figuresAfterPayment(doc: { totalAmount: string; amountPaid: string; precision: number }, delta: DecimalInput): { amountPaid: string; amountDue: string; paymentStatus: string } {
  const paid = dec(doc.amountPaid).plus(dec(delta));
  const amountPaid = toDb(paid, doc.precision);
  return { amountPaid, amountDue: toDb(dec(doc.totalAmount).minus(paid), doc.precision), paymentStatus: paymentStatus(doc.totalAmount, amountPaid) };
}

/**
 * Where a service keeps its documents and their payment applications: the differences, as data.
 * The table and columns are the service's own, written into its statements (never anything an
 * event sent).
 */
export interface PaymentTarget<A extends object> {
  /** The documents' table: `id`, `org_id`, `currency`, `precision`, `total_amount`, `amount_paid`, `amount_due`, `payment_status`. */
  table: string;
  /** The column telling documents' kinds apart. */
  kindColumn: string;
  /** The kind of a paid document's type among this service's, or null when the type is another service's. */
  kindOf: (type: string) => string | null;
  /** The audit row of one applied payment (unique per event id). */
  applications: EntitySchema<A, any>;
  applicationRow: (doc: PayableDocument, eventId: string, payment: FinancePaymentMatchedEvent, at: Date) => Partial<Record<keyof A, unknown>>;
  /** A column stamped with the time of the change (e.g. `updated_at`). */
  touchColumn?: string;
  /** What else a payment applied to a document of `kind` brings about, in the same transaction (a proforma's tax document). */
  afterApplied?: (ctx: OperationContext, kind: string, documentId: number, payment: FinancePaymentMatchedEvent) => Promise<void>;
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
export async function applyMatchedPayment<A extends object>(
  ctx: OperationContext,
  event: CloudEvent,
  target: PaymentTarget<A>,
): Promise<'applied' | 'ignored'> {
  if (ctx.orgId === null) throw new PoisonMessageError('finance.payment.matched without an organisation');
  const parsed = financePaymentMatchedEventSchema.safeParse(event.data);
  if (!parsed.success) throw new PoisonMessageError(`invalid finance.payment.matched data: ${parsed.error.message}`);
  const payment = parsed.data;
  const kind = target.kindOf(payment.document.type);
  if (!kind) return 'ignored';
  const orgId = ctx.orgId;
  // the paid document's figures, locked: one statement, not an entity hydrated with its whole body
  const [row] = await sqlRows<{ id: string | number; currency: string; precision: number; total_amount: string; amount_paid: string; amount_due: string; payment_status: string }>(
    ctx.em,
    `select id, currency, precision, total_amount::text as total_amount, amount_paid::text as amount_paid, amount_due::text as amount_due, payment_status
       from ${target.table} where org_id = ? and id = ? and ${target.kindColumn} = ? for update`,
    [orgId, payment.document.id, kind],
    { prepared: true },
  );
  if (!row) {
    ctx.log.warn('payment for a document unknown in the organisation ignored', { event_id: event.id, org_id: orgId, document: payment.document });
    return 'ignored';
  }
  const doc: PayableDocument = {
    id: Number(row.id),
    orgId,
    currency: row.currency.trim(),
    precision: row.precision,
    totalAmount: row.total_amount,
    amountPaid: row.amount_paid,
    amountDue: row.amount_due,
    paymentStatus: row.payment_status,
  };
  if (doc.currency !== payment.currency) {
    throw new PoisonMessageError(`payment in ${payment.currency} for ${payment.document.type} ${doc.id} in ${doc.currency}`);
  }
  const at = ctx.now();
  const after = figuresAfterPayment(doc, payment.amount);
  const touch = target.touchColumn ? `, ${target.touchColumn} = ?` : '';
  // the application row and the figures by one statement: the figures move only when the row was
  // new (an event applied before leaves both as they are)
  const application = insertStatement(ctx.em, target.applications, [target.applicationRow(doc, event.id, payment, at)], { onConflict: '(event_id) do nothing', returning: ['event_id'] });
  const moved = await sqlRows(
    ctx.em,
    `with application as (${application.sql})
     update ${target.table} set amount_paid = ?, amount_due = ?, payment_status = ?${touch}
      where org_id = ? and id = ? and exists (select 1 from application)
     returning id`,
    [
      ...application.params,
      after.amountPaid,
      after.amountDue,
      after.paymentStatus,
      ...(target.touchColumn ? [at] : []),
      orgId,
      doc.id,
    ],
    { prepared: true },
  );
  if (moved.length === 0) return 'ignored';
  await target.afterApplied?.(ctx, kind, doc.id, payment);
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

/**
 * The `relevantResource` of a target's payment consumer. `finance.payment.matched` names the paid
 * document as its resource (`<type>:<id>`), so the payments of another service's documents —
 * which `applyMatchedPayment` would only ignore — are passed over unread, with no transaction. A
 * resource of another shape is read and left to the rule.
 */
function paysDocumentsOf(target: Pick<PaymentTarget<object>, 'kindOf'>): (resource: string) => boolean {
  return (resource) => {
    const colon = resource.indexOf(':');
    return colon < 0 || target.kindOf(resource.slice(0, colon)) !== null;
  };
}

/**
 * A service's consumer of `finance.payment.matched` for its own documents (`target`): payments of
 * one document in stream order, of different documents in parallel, those handled at once sharing
 * one commit; the payments of another service's documents are acknowledged unread.
 */
export function matchedPaymentConsumer<A extends object>(service: string, target: PaymentTarget<A>): ConsumerDefinition {
  return {
    name: `${service}-finance-payment-matched`,
    subject: SUBJECTS.financePaymentMatched,
    concurrency: 16,
    orderingKey: paidDocumentOrderingKey,
    relevantResource: paysDocumentsOf(target),
    sharedCommit: true,
    handle: async (ctx, event) => {
      await applyMatchedPayment(ctx, event, target);
    },
  };
}
