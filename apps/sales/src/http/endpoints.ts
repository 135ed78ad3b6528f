import type { Context } from 'hono';
import { page, type EndpointHandlers, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { DEFAULT_RULES, type RuleTable } from '@ledgerline/compliance';
import type { SalesDocType } from '../db/entities.js';
import { deliveryOf } from '../delivery.js';
import { evaluateInvoices, latestCompliance } from '../domain/compliance.js';
import { emailRecordView, listEmailRecords, sendInvoiceEmail } from '../domain/email.js';
import { createItem, createPriceList, itemSalesRate, itemView, listItems } from '../domain/items.js';
import { createSeries, listSeries, numberTaken, seriesView } from '../domain/numbering.js';
import { pdfFileName, printSalesDocument, renderSalesDocument, type RenderOptions } from '../domain/rendering.js';
import { listSalesDocuments } from '../domain/sales-document-list.js';
import { getSalesDocument, postSalesDocument, salesView } from '../domain/sales-documents.js';

/** Paths answered as HTML or PDF (listed in the service's `nonJsonPaths`). */
export const DELIVERY_NON_JSON_PATHS = [/\/html$/, /\/pdf$/];

/** A browser that opens the HTML directly runs nothing and loads nothing but inline styles and data: images. */
const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:",
  'x-content-type-options': 'nosniff',
};

/**
 * Invoices and credit notes (#14, #23, #24), their HTML and PDF, the invoice e-mail (#18) and
 * e-mail records (#11), compliance (#17), items and price lists (#21), numbering series.
 */
export function salesEndpoints(deps: ServiceDeps, rules: RuleTable = DEFAULT_RULES): EndpointHandlers<'sales'> {
  const html = async (c: Context<KitEnv>, orgId: number, docType: SalesDocType, id: number, q: RenderOptions) =>
    c.body((await renderSalesDocument(c.get('em'), orgId, docType, id, q)).html, 200, HTML_HEADERS);
  const pdf = async (c: Context<KitEnv>, orgId: number, docType: SalesDocType, id: number, q: RenderOptions) => {
    const rendered = await renderSalesDocument(c.get('em'), orgId, docType, id, q);
    const file = await printSalesDocument(deliveryOf(deps).printer, rendered);
    return c.body(new Uint8Array(file), 200, {
      'content-type': 'application/pdf',
      'content-disposition': `inline; filename="${pdfFileName(docType, rendered.doc.no)}"`,
      'x-content-type-options': 'nosniff',
    });
  };

  return {
    createInvoice: async ({ ctx, input }) =>
      salesView(await postSalesDocument(ctx.em, ctx.auth.orgId, 'sales_invoice', input.body, { ...deps, strict: input.query.strict }), 'sales_invoice'),
    listInvoices: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listSalesDocuments(ctx.em, 'sales_invoice', q);
      return page(rows.map((d) => salesView(d, 'sales_invoice')), total, q.from, q.take);
    },
    getInvoice: async ({ ctx, input }) => salesView(await getSalesDocument(ctx.em, 'sales_invoice', input.params.id), 'sales_invoice'),
    getInvoiceHtml: async ({ ctx, input }) => html(ctx.c, ctx.auth.orgId, 'sales_invoice', input.params.id, input.query),
    getInvoicePdf: async ({ ctx, input }) => pdf(ctx.c, ctx.auth.orgId, 'sales_invoice', input.params.id, input.query),

    createCreditNote: async ({ ctx, input }) =>
      salesView(await postSalesDocument(ctx.em, ctx.auth.orgId, 'sales_credit_note', input.body, { ...deps, strict: input.query.strict }), 'sales_credit_note'),
    listCreditNotes: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listSalesDocuments(ctx.em, 'sales_credit_note', q);
      return page(rows.map((d) => salesView(d, 'sales_credit_note')), total, q.from, q.take);
    },
    getCreditNote: async ({ ctx, input }) => salesView(await getSalesDocument(ctx.em, 'sales_credit_note', input.params.id), 'sales_credit_note'),
    checkCreditNoteNo: async ({ ctx, input: { query: q } }) => {
      const no = q.no?.trim();
      if (!no) return { exists: false, ids: [] };
      const ids = await numberTaken(ctx.em, 'sales_credit_note', no, q.exclude_id ?? []);
      return { exists: ids.length > 0, ids };
    },
    getCreditNoteHtml: async ({ ctx, input }) => html(ctx.c, ctx.auth.orgId, 'sales_credit_note', input.params.id, input.query),
    getCreditNotePdf: async ({ ctx, input }) => pdf(ctx.c, ctx.auth.orgId, 'sales_credit_note', input.params.id, input.query),

    emailInvoice: async ({ ctx, input }) =>
      (await sendInvoiceEmail(ctx.em, ctx.auth.orgId, input.params.id, input.body, input.query, deliveryOf(deps))).result,
    listEmails: async ({ ctx, input: { query: q } }) => (await listEmailRecords(ctx.em, q.from, q.take)).map(emailRecordView),

    evaluateInvoiceCompliance: async ({ ctx, input }) => evaluateInvoices(ctx.em, ctx.auth.orgId, input.body, rules),
    getInvoiceCompliance: async ({ ctx, input }) => latestCompliance(ctx.em, input.params.id),

    createItem: async ({ ctx, input }) => itemView(await createItem(ctx.em, ctx.auth.orgId, input.body)),
    listItems: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listItems(ctx.em, q);
      return page(rows.map(itemView), total, q.from, q.take);
    },
    getItemSalesRate: async ({ ctx, input: { params, query: q } }) => itemSalesRate(ctx.em, q.item_id ?? params.id, q),
    createPriceList: async ({ ctx, input }) => createPriceList(ctx.em, ctx.auth.orgId, input.body),

    createNumberingSeries: async ({ ctx, input }) => seriesView(await createSeries(ctx.em, ctx.auth.orgId, input.body)),
    listNumberingSeries: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listSeries(ctx.em, ctx.auth.orgId, q);
      return page(rows.map(seriesView), total, q.from, q.take);
    },
  };
}
