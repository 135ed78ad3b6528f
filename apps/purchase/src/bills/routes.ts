import { defersTransaction, type EndpointHandlers } from '@ledgerline/service-kit';
import { purchaseDocumentOperations } from '../purchase-documents/operations.js';
import { BILLS } from './bill-kind.js';
import { importEInvoice } from './import.js';

/** `/v1/purchase/bills`: the bill kind on the shared purchase-document operations, and the e-invoice import. */
export function billRoutes(): Pick<EndpointHandlers<'purchase'>, 'createBill' | 'listBills' | 'importBill'> {
  const op = purchaseDocumentOperations(BILLS);
  return {
    createBill: defersTransaction(({ ctx, input }) => op.create(ctx, input.raw, input.query.strict)),
    listBills: ({ ctx, input }) => op.list(ctx, input.query),
    importBill: ({ ctx, input }) => importEInvoice(ctx, input.body, input.query),
  };
}
