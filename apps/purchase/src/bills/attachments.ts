import { attachmentHandlers, documentAttachmentOwner, type S3Store } from '@ledgerline/posted-documents';
import type { EndpointHandlers, Logger } from '@ledgerline/service-kit';

/** Files of bills and vendor credits (an imported e-invoice keeps its XML here); a bill's period is its tax point's. */
export const PURCHASE_ATTACHMENTS_TABLE = 'purchase_document_attachments';

const BILL_ATTACHMENTS = documentAttachmentOwner({
  table: PURCHASE_ATTACHMENTS_TABLE,
  label: 'bill',
  documents: 'purchase_documents',
  kind: "kind in ('bill', 'advance', 'advance_tax_document')",
  taxable: "to_char(date_taxable, 'YYYY-MM-DD')",
});

type Operations = 'uploadBillAttachment' | 'listBillAttachments' | 'getBillAttachment' | 'deleteBillAttachment';

/** `/v1/purchase/bills/{id}/attachments…`. */
export function billAttachmentRoutes(maxBytes: number, store: S3Store | null, log: Logger): Pick<EndpointHandlers<'purchase'>, Operations> {
  const h = attachmentHandlers(BILL_ATTACHMENTS, maxBytes, store, log);
  return { uploadBillAttachment: h.upload, listBillAttachments: h.list, getBillAttachment: h.content, deleteBillAttachment: h.remove };
}
