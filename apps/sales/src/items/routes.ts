import { page, type EndpointHandlers } from '@ledgerline/service-kit';
import { createItem, createPriceList, itemSalesRate, itemView, listItems } from './items.js';

/** Catalogue items, price lists and an item's sales rate. */
export function itemRoutes(): Pick<EndpointHandlers<'sales'>, 'createItem' | 'listItems' | 'getItemSalesRate' | 'createPriceList'> {
  return {
    createItem: async ({ ctx, input }) => itemView(await createItem(ctx, input.body)),
    listItems: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listItems(ctx.em, q);
      return page(rows.map(itemView), total, q.from, q.take);
    },
    getItemSalesRate: async ({ ctx, input: { params, query: q } }) => itemSalesRate(ctx, q.item_id ?? params.id, q),
    createPriceList: async ({ ctx, input }) => createPriceList(ctx, input.body),
  };
}
