import { RPC_SUBJECTS } from '@ledgerline/contracts';
import { type ConsumerDefinition, type ResponderDefinition, type ServiceDeps } from '@ledgerline/service-kit';
import { matchedPaymentConsumer } from '@ledgerline/posted-documents';
import { lookupDocument } from '../payments/document-lookup.js';
import { findPaidInvoices } from '../payments/document-find.js';
import { SALES_PAYMENTS } from '../payments/payment-matched.js';
import { openForeignSalesDocuments } from '../reports/open-foreign.js';

export function salesConsumers(_deps: ServiceDeps): ConsumerDefinition[] {
  return [
    matchedPaymentConsumer('sales', SALES_PAYMENTS),
  ];
}

export function salesResponders(_deps: ServiceDeps): ResponderDefinition[] {
  return [
    { subject: RPC_SUBJECTS.salesDocumentLookup, handle: (em, data, orgId) => lookupDocument(em, data, orgId) },
    { subject: RPC_SUBJECTS.salesDocumentFind, handle: (em, data, orgId) => findPaidInvoices(em, data, orgId) },
    { subject: RPC_SUBJECTS.salesOpenForeign, handle: (em, data, orgId) => openForeignSalesDocuments({ em, orgId }, data) },
  ];
}
