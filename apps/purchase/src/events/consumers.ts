import { RPC_SUBJECTS, purchaseDocumentLookupRequestSchema } from '@ledgerline/contracts';
import { type ConsumerDefinition, type ResponderDefinition } from '@ledgerline/service-kit';
import { matchedPaymentConsumer } from '@ledgerline/posted-documents';
import { lookupDocument } from '../payments/document-lookup.js';
import { findPaidBills } from '../payments/document-find.js';
import { PURCHASE_PAYMENTS } from '../payments/payment-matched.js';
import { openForeignPurchaseDocuments } from '../reports/open-foreign.js';
import { payableBills, paymentOrderConsumer } from '../payments/payment-orders.js';

export function purchaseConsumers(): ConsumerDefinition[] {
  return [
    matchedPaymentConsumer('purchase', PURCHASE_PAYMENTS),
    paymentOrderConsumer(),
  ];
}

export function purchaseResponders(): ResponderDefinition[] {
  return [
    { subject: RPC_SUBJECTS.purchaseDocumentLookup, handle: async (em, data, orgId) => lookupDocument(em, purchaseDocumentLookupRequestSchema.parse(data), orgId) },
    { subject: RPC_SUBJECTS.purchaseDocumentFind, handle: (em, data, orgId) => findPaidBills(em, data, orgId) },
    { subject: RPC_SUBJECTS.purchasePayableBills, handle: (em, data, orgId) => payableBills(em, data, orgId) },
    { subject: RPC_SUBJECTS.purchaseOpenForeign, handle: (em, data, orgId) => openForeignPurchaseDocuments({ em, orgId }, data) },
  ];
}
