import { Hono } from 'hono';
import { purchaseDocumentListQuerySchema } from '@ledgerline/contracts/purchase';
import { documentWriteQuerySchema } from '@ledgerline/contracts/common';
import { caller, page, readQuery, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import type { PurchaseKind } from '../db/entities.js';
import { documentView, postPurchaseDocument } from '../domain/documents.js';
import { listPurchaseDocuments } from '../domain/listing.js';

const REPEATABLE = ['payment_status', 'sort'];

/** `POST/GET /v1/purchase/bills` and `/v1/purchase/vendor-credits` (#15). */
export function purchaseDocumentRoutes(deps: ServiceDeps, kind: PurchaseKind) {
  const r = new Hono<KitEnv>();
  r.post('/', async (c) => {
    const auth = caller(c);
    const { strict } = readQuery(c, documentWriteQuerySchema);
    return respond(c, await postPurchaseDocument(c.get('em'), auth.orgId, kind, c.get('body'), deps.emit, { strict }));
  });
  r.get('/', async (c) => {
    caller(c);
    const q = readQuery(c, purchaseDocumentListQuerySchema, REPEATABLE);
    const { rows, total } = await listPurchaseDocuments(c.get('em'), [kind], q);
    return respond(c, page(rows.map(documentView), total, q.from, q.take));
  });
  return r;
}
