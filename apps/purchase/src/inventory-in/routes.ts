import { page, type EndpointHandlers } from '@ledgerline/service-kit';
import { inventoryInCsv, inventoryInRow, listPurchaseDocuments } from '../purchase-documents/list.js';

/** The inventory-in export of bills and vendor credits, as JSON or CSV. */
export function inventoryInRoutes(): Pick<EndpointHandlers<'purchase'>, 'exportInventoryIn'> {
  return {
    exportInventoryIn: async ({ ctx, input: { params, query: q } }) => {
      const { rows, total } = await listPurchaseDocuments(ctx, ['bill', 'vendor_credit'], q);
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
