import { Hono } from 'hono';
import { idPathParams, itemListQuerySchema, itemRequestSchema, itemSalesRateQuerySchema, priceListRequestSchema } from '@ledgerline/contracts';
import { caller, page, parseOrThrow, readQuery, respond, type KitEnv } from '@ledgerline/service-kit';
import { createItem, createPriceList, itemSalesRate, itemView, listItems } from '../domain/items.js';

export function itemRoutes() {
  const r = new Hono<KitEnv>();
  r.post('/', async (c) => {
    const auth = caller(c);
    const input = parseOrThrow(itemRequestSchema, c.get('body') ?? {});
    return respond(c, itemView(await createItem(c.get('em'), auth.orgId, input)));
  });
  r.get('/', async (c) => {
    caller(c);
    const q = readQuery(c, itemListQuerySchema, ['sort']);
    const { rows, total } = await listItems(c.get('em'), q);
    return respond(c, page(rows.map(itemView), total, q.from, q.take));
  });
  // #21
  r.get('/:id/rates/sales', async (c) => {
    caller(c);
    const { id } = parseOrThrow(idPathParams, c.req.param(), 'path');
    const q = readQuery(c, itemSalesRateQuerySchema);
    return respond(c, await itemSalesRate(c.get('em'), q.item_id ?? id, q));
  });
  return r;
}

export function priceListRoutes() {
  const r = new Hono<KitEnv>();
  r.post('/', async (c) => {
    const auth = caller(c);
    const input = parseOrThrow(priceListRequestSchema, c.get('body') ?? {});
    return respond(c, await createPriceList(c.get('em'), auth.orgId, input));
  });
  return r;
}
