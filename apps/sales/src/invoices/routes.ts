import { defersTransaction, type EndpointHandlers } from '@ledgerline/service-kit';
import { listAllocations } from '@ledgerline/posted-documents';
import { CREDIT_NOTE_ALLOCATIONS } from '../credit-notes/credit-note-kind.js';
import type { Delivery } from '../delivery.js';
import { salesDocumentOperations } from '../sales-documents/operations.js';
import { INVOICES } from './invoice-kind.js';

type InvoiceOperations = 'createInvoice' | 'listInvoices' | 'getInvoice' | 'getInvoiceHtml' | 'getInvoicePdf' | 'getInvoiceUbl' | 'getInvoiceIsdoc' | 'listInvoiceAllocations';

/** `/v1/sales/invoices…` and their HTML, PDF, Peppol UBL and ISDOC: the invoice kind on the shared sales-document operations; the credit notes applied to one. */
export function invoiceRoutes(delivery: Delivery): Pick<EndpointHandlers<'sales'>, InvoiceOperations> {
  const op = salesDocumentOperations(INVOICES, delivery);
  return {
    createInvoice: defersTransaction(({ ctx, input }) => op.create(ctx, input.body, input.query.strict)),
    listInvoices: ({ ctx, input }) => op.list(ctx, input.query),
    getInvoice: ({ ctx, input }) => op.get(ctx, input.params.id),
    getInvoiceHtml: ({ ctx, input }) => op.html(ctx, input.params.id, input.query),
    getInvoicePdf: ({ ctx, input }) => op.pdf(ctx, input.params.id, input.query),
    getInvoiceUbl: ({ ctx, input }) => op.ubl(ctx, input.params.id),
    getInvoiceIsdoc: ({ ctx, input }) => op.isdoc(ctx, input.params.id),
    listInvoiceAllocations: ({ ctx, input: { params, query } }) => listAllocations(ctx, CREDIT_NOTE_ALLOCATIONS, 'target', params.id, query),
  };
}
