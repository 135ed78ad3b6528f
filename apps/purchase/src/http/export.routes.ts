import { Hono } from 'hono';
import { inventoryInExportPathSchema, inventoryInExportQuerySchema } from '@ledgerline/contracts/purchase';
import { caller, page, parseOrThrow, readQuery, respond, type KitEnv } from '@ledgerline/service-kit';
import { inventoryInCsv, inventoryInRow, listPurchaseDocuments } from '../domain/listing.js';

/** #22 `GET /v1/inventory/in/export/:format`: received bills and vendor credits as one list, json or csv. */
export function inventoryExportRoutes() {
  const r = new Hono<KitEnv>();
  r.get('/:format', async (c) => {
    caller(c);
    const { format } = parseOrThrow(inventoryInExportPathSchema, c.req.param(), 'path');
    const q = readQuery(c, inventoryInExportQuerySchema, ['payment_status', 'sort']);
    const { rows, total } = await listPurchaseDocuments(c.get('em'), ['bill', 'vendor_credit'], q);
    if (format === 'csv') {
      return c.body(inventoryInCsv(rows), 200, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="inventory-in.csv"',
        'x-total-count': String(total),
      });
    }
    return respond(c, page(rows.map(inventoryInRow), total, q.from, q.take));
  });
  return r;
}
