import type { EndpointHandlers } from '@ledgerline/service-kit';
import { purchaseDocumentOperations } from '../purchase-documents/operations.js';
import { BILLS } from './bill-kind.js';

/** `/v1/purchase/bills`: the bill kind on the shared purchase-document operations. */
export function billRoutes(): Pick<EndpointHandlers<'purchase'>, 'createBill' | 'listBills'> {
  const op = purchaseDocumentOperations(BILLS);
  return {
    createBill: ({ ctx, input }) => op.create(ctx, input.raw, input.query.strict),
    listBills: ({ ctx, input }) => op.list(ctx, input.query),
  };
}
