import { page, type EndpointHandlers } from '@ledgerline/service-kit';
import { createSeries, listSeries, seriesView } from './series.js';

/** Numbering series of invoices and credit notes. */
export function numberingSeriesRoutes(): Pick<EndpointHandlers<'sales'>, 'createNumberingSeries' | 'listNumberingSeries'> {
  return {
    createNumberingSeries: async ({ ctx, input }) => seriesView(await createSeries(ctx, input.body)),
    listNumberingSeries: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listSeries(ctx, q);
      return page(rows.map(seriesView), total, q.from, q.take);
    },
  };
}
