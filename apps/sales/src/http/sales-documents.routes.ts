import { Hono } from 'hono';
import {
  creditNoteCheckNoQuerySchema,
  creditNoteRequestSchema,
  documentWriteQuerySchema,
  idPathParams,
  invoiceRequestSchema,
  salesDocumentListQuerySchema,
} from '@ledgerline/contracts';
import { caller, page, parseOrThrow, readQuery, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import type { SalesDocType } from '../db/entities.js';
import { documentView, getSalesDocument, postSalesDocument } from '../domain/sales-documents.js';
import { listSalesDocuments } from '../domain/sales-document-list.js';
import { numberTaken } from '../domain/numbering.js';

function documentRoutes(deps: ServiceDeps, docType: SalesDocType, r: Hono<KitEnv>) {
  const requestSchema = docType === 'sales_invoice' ? invoiceRequestSchema : creditNoteRequestSchema;

  r.post('/', async (c) => {
    const auth = caller(c);
    const { strict } = readQuery(c, documentWriteQuerySchema);
    const input = parseOrThrow(requestSchema, c.get('body') ?? {});
    const doc = await postSalesDocument(c.get('em'), auth.orgId, docType, input, { ...deps, strict });
    return respond(c, documentView(doc));
  });

  r.get('/', async (c) => {
    caller(c);
    const q = readQuery(c, salesDocumentListQuerySchema, ['sort', 'payment_status']);
    const { rows, total } = await listSalesDocuments(c.get('em'), docType, q);
    return respond(c, page(rows.map(documentView), total, q.from, q.take));
  });
  return r;
}

function byIdRoute(docType: SalesDocType, r: Hono<KitEnv>) {
  r.get('/:id', async (c) => {
    caller(c);
    const { id } = parseOrThrow(idPathParams, c.req.param(), 'path');
    return respond(c, documentView(await getSalesDocument(c.get('em'), docType, id)));
  });
  return r;
}

export function invoiceRoutes(deps: ServiceDeps) {
  return byIdRoute('sales_invoice', documentRoutes(deps, 'sales_invoice', new Hono<KitEnv>()));
}

export function creditNoteRoutes(deps: ServiceDeps) {
  const r = documentRoutes(deps, 'sales_credit_note', new Hono<KitEnv>());
  // #23, registered before /:id
  r.get('/check-no', async (c) => {
    caller(c);
    const q = readQuery(c, creditNoteCheckNoQuerySchema, ['exclude_id']);
    const no = q.no?.trim();
    if (!no) return respond(c, { exists: false, ids: [] });
    const ids = await numberTaken(c.get('em'), 'sales_credit_note', no, q.exclude_id ?? []);
    return respond(c, { exists: ids.length > 0, ids });
  });
  return byIdRoute('sales_credit_note', r);
}
