import type { InvoiceListQuery, SalesDocumentListQuery } from '@ledgerline/contracts';
import { keysetPageOfJson, type TenantContext } from '@ledgerline/service-kit';
import { withContactParty, type ContactNaming } from '@ledgerline/posted-documents';
import type { SalesDocType } from '../db/entities.js';
import type { Delivery } from '../delivery.js';
import type { DocumentRequest } from './body.js';
import { listSalesDocuments } from './list.js';
import { postSalesDocument, readSalesDocumentView, type SalesDocumentKind } from './post.js';
import { documentFileName, printSalesDocument, renderSalesDocument, type RenderOptions } from './rendering.js';
import { viewTextOfRow } from './view.js';
import { salesDocumentUbl } from './einvoice-ubl.js';
import { salesDocumentIsdoc } from './einvoice-isdoc.js';

/** A browser that opens the HTML directly runs nothing and loads nothing but inline styles and data: images. */
const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:",
  'x-content-type-options': 'nosniff',
};


type Ctx = TenantContext & { c: { body: (data: string | Uint8Array, status: 200, headers: Record<string, string>) => Response } };

/** An e-invoice answered inline under the file name a user would save it as. */
function xmlAnswer(ctx: Ctx, xml: string, fileName: string): Response {
  return ctx.c.body(xml, 200, {
    'content-type': 'application/xml; charset=utf-8',
    'content-disposition': `inline; filename="${fileName}"`,
    'x-content-type-options': 'nosniff',
  });
}

/** The operations every sales document kind offers, for the kind's routes to map onto its operation ids. */
export function salesDocumentOperations<T extends SalesDocType, R extends DocumentRequest>(kind: SalesDocumentKind<T, R>, delivery: Delivery) {
  return {
    /** A new document of the kind; its customer (and currency, due date) may come from the directory's contact it names. */
    create: async (ctx: TenantContext, body: Omit<R, 'customer' | 'currency'> & ContactNaming, strict: boolean | undefined) =>
      (await postSalesDocument(ctx, kind, (await withContactParty(ctx, body, 'customer')) as unknown as R, { strict })).view,
    list: async (ctx: TenantContext, q: SalesDocumentListQuery & Partial<Pick<InvoiceListQuery, 'recurring_invoice_id'>>) => {
      const listed = await listSalesDocuments(ctx.em, ctx.orgId, kind.docType, q);
      return keysetPageOfJson(listed.rows.map(viewTextOfRow), listed, q);
    },
    get: async (ctx: TenantContext, id: number) => readSalesDocumentView(ctx, kind, id),
    html: async (ctx: Ctx, id: number, q: RenderOptions) => ctx.c.body((await renderSalesDocument(ctx, kind, id, q)).html, 200, HTML_HEADERS),
    ubl: async (ctx: Ctx, id: number) => {
      const { xml, no } = await salesDocumentUbl(ctx, kind, id);
      return xmlAnswer(ctx, xml, documentFileName(kind, no, 'xml'));
    },
    isdoc: async (ctx: Ctx, id: number) => {
      const { xml, no } = await salesDocumentIsdoc(ctx, kind, id);
      return xmlAnswer(ctx, xml, documentFileName(kind, no, 'isdoc'));
    },
    pdf: async (ctx: Ctx, id: number, q: RenderOptions) => {
      const rendered = await renderSalesDocument(ctx, kind, id, q);
      const file = await printSalesDocument(delivery.printer, rendered);
      return ctx.c.body(new Uint8Array(file), 200, {
        'content-type': 'application/pdf',
        'content-disposition': `inline; filename="${documentFileName(kind, rendered.doc.no)}"`,
        'x-content-type-options': 'nosniff',
      });
    },
  };
}
