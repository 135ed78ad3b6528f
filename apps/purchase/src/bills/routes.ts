import { defersTransaction, type EndpointHandlers } from '@ledgerline/service-kit';
import { listAllocations } from '@ledgerline/posted-documents';
import { VENDOR_CREDIT_ALLOCATIONS } from '../vendor-credits/vendor-credit-kind.js';
import { purchaseDocumentOperations } from '../purchase-documents/operations.js';
import { BILLS } from './bill-kind.js';
import { importEInvoice } from './import.js';
import type { S3Store } from '@ledgerline/posted-documents';

/** `/v1/purchase/bills`: the bill kind on the shared purchase-document operations, the e-invoice import, and the vendor credits applied to a bill. */
export function billRoutes(store: S3Store | null): Pick<EndpointHandlers<'purchase'>, 'createBill' | 'listBills' | 'getBill' | 'importBill' | 'listBillAllocations'> {
  const op = purchaseDocumentOperations(BILLS);
  return {
    createBill: defersTransaction(({ ctx, input }) => op.create(ctx, input.raw, input.query.strict)),
    listBills: ({ ctx, input }) => op.list(ctx, input.query),
    getBill: ({ ctx, input }) => op.get(ctx, input.params.id),
    importBill: ({ ctx, input }) => importEInvoice(ctx, input.body, input.query, store),
    listBillAllocations: ({ ctx, input: { params, query } }) => listAllocations(ctx, VENDOR_CREDIT_ALLOCATIONS, 'target', params.id, query),
  };
}
