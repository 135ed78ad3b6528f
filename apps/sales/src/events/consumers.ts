import { RPC_SUBJECTS, SUBJECTS } from '@ledgerline/contracts';
import { paidDocumentOrderingKey, paysDocumentsOf, type ConsumerDefinition, type ResponderDefinition, type ServiceDeps } from '@ledgerline/service-kit';
import { lookupDocument } from '../payments/document-lookup.js';
import { findPaidInvoices } from '../payments/document-find.js';
import { SALES_PAYMENTS, applySalesPayment } from '../payments/payment-matched.js';

export function salesConsumers(_deps: ServiceDeps): ConsumerDefinition[] {
  return [
    {
      name: 'sales-finance-payment-matched',
      subject: SUBJECTS.financePaymentMatched,
      // payments of different documents apply independently; those handled at once share one commit
      concurrency: 16,
      orderingKey: paidDocumentOrderingKey,
      // the payments of the other service's documents are passed over unread
      relevantResource: paysDocumentsOf(SALES_PAYMENTS),
      sharedCommit: true,
      handle: async (ctx, event) => {
        await applySalesPayment(ctx, event);
      },
    },
  ];
}

export function salesResponders(_deps: ServiceDeps): ResponderDefinition[] {
  return [
    { subject: RPC_SUBJECTS.salesDocumentLookup, handle: (em, data, orgId) => lookupDocument(em, data, orgId) },
    { subject: RPC_SUBJECTS.salesDocumentFind, handle: (em, data, orgId) => findPaidInvoices(em, data, orgId) },
  ];
}
