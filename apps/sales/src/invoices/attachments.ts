import { attachmentHandlers, type AttachmentOwner, type S3Store } from '@ledgerline/posted-documents';
import { postingDate, sqlRows, type EndpointHandlers, type Logger } from '@ledgerline/service-kit';

/** An invoice's files live in `sales_document_attachments`; its period is its tax point's. */
const INVOICE_ATTACHMENTS: AttachmentOwner = {
  table: 'sales_document_attachments',
  label: 'invoice',
  find: async ({ em, orgId }, id) => {
    const [doc] = await sqlRows<{ date_issued: string; date_taxable: string | null }>(
      em,
      `select to_char(date_issued, 'YYYY-MM-DD') as date_issued, body->>'date_taxable' as date_taxable from sales_documents where org_id = ? and id = ? and doc_type = 'sales_invoice'`,
      [orgId, id],
    );
    return doc ? { postedOn: postingDate.document(doc) } : null;
  },
};

type Operations = 'uploadInvoiceAttachment' | 'listInvoiceAttachments' | 'getInvoiceAttachment' | 'deleteInvoiceAttachment';

/** `/v1/sales/invoices/{id}/attachments…`. */
export function invoiceAttachmentRoutes(maxBytes: number, store: S3Store | null, log: Logger): Pick<EndpointHandlers<'sales'>, Operations> {
  const h = attachmentHandlers(INVOICE_ATTACHMENTS, maxBytes, store, log);
  return { uploadInvoiceAttachment: h.upload, listInvoiceAttachments: h.list, getInvoiceAttachment: h.content, deleteInvoiceAttachment: h.remove };
}
