import { defersTransaction, type EndpointHandlers } from '@ledgerline/service-kit';
import { allocateCredit, listAllocations, removeAllocation } from '@ledgerline/posted-documents';
import { purchaseDocumentOperations } from '../purchase-documents/operations.js';
import { VENDOR_CREDIT_ALLOCATIONS, VENDOR_CREDITS } from './vendor-credit-kind.js';

/** `/v1/purchase/vendor-credits`: the vendor-credit kind on the shared purchase-document operations, and allocations to bills. */
export function vendorCreditRoutes(): Pick<
  EndpointHandlers<'purchase'>,
  'createVendorCredit' | 'listVendorCredits' | 'getVendorCredit' | 'allocateVendorCredit' | 'listVendorCreditAllocations' | 'removeVendorCreditAllocation'
> {
  const op = purchaseDocumentOperations(VENDOR_CREDITS);
  return {
    createVendorCredit: defersTransaction(({ ctx, input }) => op.create(ctx, input.raw, input.query.strict)),
    listVendorCredits: ({ ctx, input }) => op.list(ctx, input.query),
    getVendorCredit: ({ ctx, input }) => op.get(ctx, input.params.id),
    allocateVendorCredit: ({ ctx, input: { params, body } }) =>
      allocateCredit(ctx, VENDOR_CREDIT_ALLOCATIONS, params.id, { targetId: body.bill_id, amount: body.amount, date: body.date }),
    listVendorCreditAllocations: ({ ctx, input: { params, query } }) => listAllocations(ctx, VENDOR_CREDIT_ALLOCATIONS, 'credit', params.id, query),
    removeVendorCreditAllocation: ({ ctx, input: { params } }) => removeAllocation(ctx, VENDOR_CREDIT_ALLOCATIONS, params.id, params.allocation_id),
  };
}
