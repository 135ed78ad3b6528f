import { SUBJECTS, type InvoiceRequest } from '@ledgerline/contracts';
import type { SalesDocumentKind } from '../sales-documents/post.js';
import { advanceDeductions } from '../advances/deductions.js';

/** The invoice as a sales document kind: its own fields are the buyer's references and the recurring invoice that issued it. */
export const INVOICES: SalesDocumentKind<'sales_invoice', InvoiceRequest> = {
  docType: 'sales_invoice',
  subject: SUBJECTS.salesInvoicePosted,
  label: 'invoice',
  rendering: 'invoice',
  fileName: 'Invoice',
  ownFields: (input, _credited, issuedBy) => ({
    buyer_reference: input.buyer_reference ?? null,
    order_reference: input.order_reference ?? null,
    recurring_invoice_id: issuedBy.recurringInvoiceId ?? null,
  }),
  // a final invoice deducts what was paid on the proformas it names (decision 236)
  deducts: (ctx, input, computed) => advanceDeductions(ctx, input, computed),
};
