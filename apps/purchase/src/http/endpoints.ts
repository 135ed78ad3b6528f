import { page, type EndpointHandlers, type ServiceDeps } from '@ledgerline/service-kit';
import { postPurchaseDocument, purchaseView } from '../domain/documents.js';
import { inventoryInCsv, inventoryInRow, listPurchaseDocuments } from '../domain/listing.js';

/**
 * Vendor bills, vendor credits (#15) and the inventory-in export (#22). A purchase document is
 * read from its raw body: `copy_from_id` fills it from the copied document before it is parsed.
 */
export function purchaseEndpoints(deps: ServiceDeps): EndpointHandlers<'purchase'> {
  return {
    createBill: async ({ ctx, input }) => postPurchaseDocument(ctx.em, ctx.auth.orgId, 'bill', input.raw, deps.emit, { strict: input.query.strict }),
    listBills: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listPurchaseDocuments(ctx.em, ['bill'], q);
      return page(rows.map((d) => purchaseView(d, 'bill')), total, q.from, q.take);
    },
    createVendorCredit: async ({ ctx, input }) =>
      postPurchaseDocument(ctx.em, ctx.auth.orgId, 'vendor_credit', input.raw, deps.emit, { strict: input.query.strict }),
    listVendorCredits: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listPurchaseDocuments(ctx.em, ['vendor_credit'], q);
      return page(rows.map((d) => purchaseView(d, 'vendor_credit')), total, q.from, q.take);
    },
    exportInventoryIn: async ({ ctx, input: { params, query: q } }) => {
      const { rows, total } = await listPurchaseDocuments(ctx.em, ['bill', 'vendor_credit'], q);
      if (params.format === 'csv') {
        return ctx.c.body(inventoryInCsv(rows), 200, {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': 'attachment; filename="inventory-in.csv"',
          'x-total-count': String(total),
        });
      }
      return page(rows.map(inventoryInRow), total, q.from, q.take);
    },
  };
}
