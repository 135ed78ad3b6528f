import { Hono, type Context } from 'hono';
import { emailInvoiceQuerySchema, emailListQuerySchema, emailRequestSchema, idPathParams, renderQuery } from '@ledgerline/contracts';
import { caller, parseOrThrow, readQuery, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import type { SalesDocType } from '../db/entities.js';
import { deliveryOf } from '../delivery.js';
import { pdfFileName, printSalesDocument, renderSalesDocument } from '../domain/rendering.js';
import { emailRecordView, listEmailRecords, sendInvoiceEmail } from '../domain/email.js';

/** Paths answered as HTML or PDF (listed in the service's `nonJsonPaths`). */
export const DELIVERY_NON_JSON_PATHS = [/\/html$/, /\/pdf$/];

/** A browser that opens the HTML directly runs nothing and loads nothing but inline styles and data: images. */
const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:",
  'x-content-type-options': 'nosniff',
};

/**
 * #24 and the invoice/credit-note HTML and PDF renderings, #18 invoice e-mail, #11 e-mail records.
 * Mounted under /v1.
 */
export function deliveryRoutes(deps: ServiceDeps) {
  const r = new Hono<KitEnv>();

  const render = async (c: Context<KitEnv>, docType: SalesDocType) => {
    const auth = caller(c);
    const { id } = parseOrThrow(idPathParams, c.req.param(), 'path');
    const q = readQuery(c, renderQuery);
    return renderSalesDocument(c.get('em'), auth.orgId, docType, id, q);
  };
  const html = (docType: SalesDocType) => async (c: Context<KitEnv>) => c.body((await render(c, docType)).html, 200, HTML_HEADERS);
  const pdf = (docType: SalesDocType) => async (c: Context<KitEnv>) => {
    const rendered = await render(c, docType);
    const file = await printSalesDocument(deliveryOf(deps).printer, rendered);
    return c.body(new Uint8Array(file), 200, {
      'content-type': 'application/pdf',
      'content-disposition': `inline; filename="${pdfFileName(docType, rendered.doc.no)}"`,
      'x-content-type-options': 'nosniff',
    });
  };

  r.get('/sales/invoices/:id/html', html('sales_invoice'));
  r.get('/sales/invoices/:id/pdf', pdf('sales_invoice'));
  r.get('/sales/credit-notes/:id/html', html('sales_credit_note'));
  r.get('/sales/credit-notes/:id/pdf', pdf('sales_credit_note'));

  r.post('/sales/invoices/:id/email', async (c) => {
    const auth = caller(c);
    const { id } = parseOrThrow(idPathParams, c.req.param(), 'path');
    const q = readQuery(c, emailInvoiceQuerySchema);
    const input = parseOrThrow(emailRequestSchema, c.get('body') ?? {});
    const { result } = await sendInvoiceEmail(c.get('em'), auth.orgId, id, input, q, deliveryOf(deps));
    return respond(c, result);
  });

  r.get('/CRM/emails', async (c) => {
    caller(c);
    const q = readQuery(c, emailListQuerySchema);
    return respond(c, (await listEmailRecords(c.get('em'), q.from, q.take)).map(emailRecordView));
  });
  return r;
}
