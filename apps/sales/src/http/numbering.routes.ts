import { Hono } from 'hono';
import { numberSeriesListQuerySchema, numberSeriesRequestSchema } from '@ledgerline/contracts';
import { caller, page, parseOrThrow, readQuery, respond, type KitEnv } from '@ledgerline/service-kit';
import { createSeries, listSeries, seriesView } from '../domain/numbering.js';

/** `POST/GET /v1/sales/numbering-series`: the series a document's `counter_id` names. */
export function numberingRoutes() {
  const r = new Hono<KitEnv>();
  r.post('/', async (c) => {
    const auth = caller(c);
    const input = parseOrThrow(numberSeriesRequestSchema, c.get('body') ?? {});
    return respond(c, seriesView(await createSeries(c.get('em'), auth.orgId, input)));
  });
  r.get('/', async (c) => {
    const auth = caller(c);
    const q = readQuery(c, numberSeriesListQuerySchema);
    const { rows, total } = await listSeries(c.get('em'), auth.orgId, q);
    return respond(c, page(rows.map(seriesView), total, q.from, q.take));
  });
  return r;
}
