import { defersTransaction, type EndpointHandlers } from '@ledgerline/service-kit';
import { purchaseDocumentOperations } from '../purchase-documents/operations.js';
import { VENDOR_CREDITS } from './vendor-credit-kind.js';

/** `/v1/purchase/vendor-credits`: the vendor-credit kind on the shared purchase-document operations. */
export function vendorCreditRoutes(): Pick<EndpointHandlers<'purchase'>, 'createVendorCredit' | 'listVendorCredits'> {
  const op = purchaseDocumentOperations(VENDOR_CREDITS);
  return {
    createVendorCredit: defersTransaction(({ ctx, input }) => op.create(ctx, input.raw, input.query.strict)),
    listVendorCredits: ({ ctx, input }) => op.list(ctx, input.query),
  };
}
