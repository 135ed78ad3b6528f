import { attachmentHandlers, documentAttachmentOwner, type S3Store } from '@ledgerline/posted-documents';
import type { EndpointHandlers, Logger } from '@ledgerline/service-kit';

/** An invoice's files live in `sales_document_attachments`; its period is its tax point's. */
const INVOICE_ATTACHMENTS = documentAttachmentOwner({
  table: 'sales_document_attachments',
  label: 'invoice',
  documents: 'sales_documents',
  kind: "doc_type = 'sales_invoice'",
  taxable: "body->>'date_taxable'",
});

type Operations = 'uploadInvoiceAttachment' | 'listInvoiceAttachments' | 'getInvoiceAttachment' | 'deleteInvoiceAttachment';

/** `/v1/sales/invoices/{id}/attachments…`. */
export function invoiceAttachmentRoutes(maxBytes: number, store: S3Store | null, log: Logger): Pick<EndpointHandlers<'sales'>, Operations> {
  const h = attachmentHandlers(INVOICE_ATTACHMENTS, maxBytes, store, log);
  return { uploadInvoiceAttachment: h.upload, listInvoiceAttachments: h.list, getInvoiceAttachment: h.content, deleteInvoiceAttachment: h.remove };
}
