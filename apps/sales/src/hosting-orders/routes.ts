import { defersTransaction, type EndpointHandlers } from '@ledgerline/service-kit';
import { createHostingOrder, getHostingOrder } from './orders.js';

/** `/v1/sales/hosting-orders…` (issue 75, part 5). */
export function hostingOrderRoutes(): Pick<EndpointHandlers<'sales'>, 'createHostingOrder' | 'getHostingOrder'> {
  return {
    // reads (the integration, the contact) before its writes join the series' commit group
    createHostingOrder: defersTransaction(({ ctx, input }) => createHostingOrder(ctx, input.body)),
    getHostingOrder: ({ ctx, input }) => getHostingOrder(ctx, input.params.id),
  };
}
