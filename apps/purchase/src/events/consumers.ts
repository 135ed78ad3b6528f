import { RPC_SUBJECTS, SUBJECTS, purchaseDocumentLookupRequestSchema } from '@ledgerline/contracts';
import { paidDocumentOrderingKey, paysDocumentsOf, type ConsumerDefinition, type ResponderDefinition } from '@ledgerline/service-kit';
import { lookupDocument } from '../payments/document-lookup.js';
import { findPaidBills } from '../payments/document-find.js';
import { PURCHASE_PAYMENTS, applyPurchasePayment } from '../payments/payment-matched.js';

export function purchaseConsumers(): ConsumerDefinition[] {
  return [
    {
      name: 'purchase-finance-payment-matched',
      subject: SUBJECTS.financePaymentMatched,
      // payments of different documents apply independently; those handled at once share one commit
      concurrency: 16,
      orderingKey: paidDocumentOrderingKey,
      // the payments of the other service's documents are passed over unread
      relevantResource: paysDocumentsOf(PURCHASE_PAYMENTS),
      sharedCommit: true,
      handle: async (ctx, event) => {
        await applyPurchasePayment(ctx, event);
      },
    },
  ];
}

export function purchaseResponders(): ResponderDefinition[] {
  return [
    { subject: RPC_SUBJECTS.purchaseDocumentLookup, handle: async (em, data, orgId) => lookupDocument(em, purchaseDocumentLookupRequestSchema.parse(data), orgId) },
    { subject: RPC_SUBJECTS.purchaseDocumentFind, handle: (em, data, orgId) => findPaidBills(em, data, orgId) },
  ];
}
