import { toDb } from '@ledgerline/service-kit';
import { afterProformaPayment } from '../advances/tax-documents.js';
import { invoicePaidOrder } from '../hosting-orders/orders.js';
import { type PaymentTarget } from '@ledgerline/posted-documents';
import { DocumentPaymentSchema, type DocumentPayment, type SalesDocType } from '../db/entities.js';

const SALES_TYPES: readonly string[] = ['sales_invoice', 'sales_credit_note', 'sales_proforma'] satisfies SalesDocType[];

/** Sales documents as the target of `finance.payment.matched` (the shared rule; the tables are ours). */
export const SALES_PAYMENTS: PaymentTarget<DocumentPayment> = {
  table: 'sales_documents',
  kindColumn: 'doc_type',
  kindOf: (type) => (SALES_TYPES.includes(type) ? type : null),
  applications: DocumentPaymentSchema,
  applicationRow: (doc, eventId, payment, at) => ({
    orgId: doc.orgId,
    documentId: doc.id,
    eventId,
    paymentId: payment.payment_id,
    source: payment.source,
    amount: toDb(payment.amount, doc.precision),
    currency: payment.currency,
    date: payment.date,
    createdAt: at,
  }),
  touchColumn: 'updated_at',
  // a payment of a proforma gets its tax document (a VAT payer's) and the proforma's event
  afterApplied: async (ctx, kind, id, payment) => {
    if (kind === 'sales_proforma') {
      await afterProformaPayment(ctx, id, payment);
      // a hosting order's proforma paid in full gets its invoice (issue 75, part 5)
      await invoicePaidOrder(ctx, id, payment);
    }
  },
};
