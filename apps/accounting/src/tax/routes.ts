import { NotAcceptableError, negotiate, page, type EndpointHandlers } from '@ledgerline/service-kit';
import { vatReturn } from '../domain/vat-return.js';
import { controlStatement } from '../domain/control-statement.js';
import { controlStatementFiling, euSalesListFiling, fileTaxFiling, listFilings, vatReturnFiling } from '../domain/epo/filings.js';
import { euSalesList } from '../domain/eu-sales-list.js';

/** The VAT reports from the ledger (return, control statement, EC Sales List), as JSON or the tax office's EPO XML, and the filings kept. */
export function taxRoutes(fallbackCurrency: string): Pick<EndpointHandlers<'accounting'>, 'getVatReturn' | 'getControlStatement' | 'getEuSalesList' | 'fileTaxFiling' | 'listTaxFilings'> {
  return {
    getVatReturn: async ({ ctx, input }) => {
      if (wantsFiling(ctx.c.req.header('accept'), input.query.format)) return xmlFiling(ctx, `vat-return-${input.query.date_from}.xml`, (await vatReturnFiling(ctx, input.query, fallbackCurrency)).xml);
      return vatReturn(ctx, input.query, fallbackCurrency);
    },
    getControlStatement: async ({ ctx, input }) => {
      if (wantsFiling(ctx.c.req.header('accept'), input.query.format)) return xmlFiling(ctx, `control-statement-${input.query.date_from}.xml`, (await controlStatementFiling(ctx, input.query)).xml);
      return controlStatement(ctx, input.query, fallbackCurrency);
    },
    getEuSalesList: async ({ ctx, input }) => {
      if (wantsFiling(ctx.c.req.header('accept'), input.query.format)) return xmlFiling(ctx, `eu-sales-list-${input.query.date_from}.xml`, (await euSalesListFiling(ctx, input.query, fallbackCurrency)).xml);
      return euSalesList(ctx, input.query, fallbackCurrency);
    },
    fileTaxFiling: async ({ ctx, input }) => fileTaxFiling(ctx, input.body, fallbackCurrency),
    listTaxFilings: async ({ ctx, input: { query: q } }) => {
      const { entities, total } = await listFilings(ctx, q);
      return page(entities, total, q.from, q.take);
    },
  };
}

/** The filing is asked for by ?format=epo, or by an Accept that prefers XML to JSON. */
function wantsFiling(accept: string | undefined, format: 'json' | 'epo' | undefined): boolean {
  if (format) return format === 'epo';
  const chosen = negotiate(accept, ['application/json', 'application/xml'] as const);
  if (chosen === null) throw new NotAcceptableError();
  return chosen === 'application/xml';
}

function xmlFiling(ctx: { c: { body: (data: string, status: 200, headers: Record<string, string>) => Response } }, fileName: string, xml: string): Response {
  return ctx.c.body(xml, 200, { 'content-type': 'application/xml; charset=utf-8', 'content-disposition': `attachment; filename="${fileName}"` });
}
