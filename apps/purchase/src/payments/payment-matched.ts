import { toDb } from '@ledgerline/service-kit';
import { type PaymentTarget } from '@ledgerline/posted-documents';
import { PaymentApplicationSchema, type PaymentApplication } from '../db/entities.js';
import { kindOfDocumentType } from '../purchase-documents/document-types.js';
import { keepOrdered } from './payment-orders.js';

/** Purchase documents as the target of `finance.payment.matched` (the shared rule; the tables are ours). */
export const PURCHASE_PAYMENTS: PaymentTarget<PaymentApplication> = {
  table: 'purchase_documents',
  kindColumn: 'kind',
  kindOf: (type) => kindOfDocumentType(type) ?? null,
  applications: PaymentApplicationSchema,
  applicationRow: (doc, eventId, payment, at) => ({
    orgId: doc.orgId,
    eventId,
    documentId: doc.id,
    paymentId: String(payment.payment_id),
    source: payment.source,
    amount: toDb(payment.amount, 4),
    currency: payment.currency,
    date: payment.date,
    appliedAt: at,
  }),
  touchColumn: 'updated_at',
  // a bill still waiting in a payment order stays ordered while something is left to pay (issue 76)
  afterApplied: async (ctx, kind, id) => {
    if (kind === 'bill' || kind === 'advance') await keepOrdered(ctx, id);
  },
};
