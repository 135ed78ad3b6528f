import type { EndpointHandlers } from '@ledgerline/service-kit';
import type { Delivery } from '../delivery.js';
import { salesDocumentOperations } from '../sales-documents/operations.js';
import { ADVANCE_TAX_DOCUMENTS, PROFORMAS } from './kinds.js';
import { cancelProforma, createProforma, listProformas, readProforma, replaceProforma } from './proformas.js';
import { listAdvanceTaxDocuments } from './tax-documents.js';
import { JsonText } from '@ledgerline/service-kit';

type AdvanceOperations =
  | 'createProformaInvoice'
  | 'listProformaInvoices'
  | 'getProformaInvoice'
  | 'updateProformaInvoice'
  | 'cancelProformaInvoice'
  | 'getProformaInvoicePdf'
  | 'listAdvanceTaxDocuments'
  | 'getAdvanceTaxDocument'
  | 'getAdvanceTaxDocumentPdf';

/** `/v1/sales/proforma-invoices…` and `/v1/sales/advance-tax-documents…` (issue 75). */
export function advanceRoutes(delivery: Delivery): Pick<EndpointHandlers<'sales'>, AdvanceOperations> {
  const proformas = salesDocumentOperations(PROFORMAS, delivery);
  const taxDocuments = salesDocumentOperations(ADVANCE_TAX_DOCUMENTS, delivery);
  return {
    createProformaInvoice: ({ ctx, input }) => createProforma(ctx, input.body),
    listProformaInvoices: ({ ctx, input }) => listProformas(ctx, input.query),
    getProformaInvoice: async ({ ctx, input }) => new JsonText(JSON.stringify(await readProforma(ctx, input.params.id))),
    updateProformaInvoice: ({ ctx, input }) => replaceProforma(ctx, input.params.id, input.body),
    cancelProformaInvoice: ({ ctx, input }) => cancelProforma(ctx, input.params.id),
    getProformaInvoicePdf: ({ ctx, input }) => proformas.pdf(ctx, input.params.id, input.query),
    listAdvanceTaxDocuments: ({ ctx, input }) => listAdvanceTaxDocuments(ctx, input.query),
    getAdvanceTaxDocument: ({ ctx, input }) => taxDocuments.get(ctx, input.params.id),
    getAdvanceTaxDocumentPdf: ({ ctx, input }) => taxDocuments.pdf(ctx, input.params.id, input.query),
  };
}
