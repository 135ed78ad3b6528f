import { attachmentHandlers, type AttachmentOwner, type S3Store } from '@ledgerline/posted-documents';
import { postingDate, sqlRows, type EndpointHandlers, type Logger } from '@ledgerline/service-kit';

/** Files of bills and vendor credits (an imported e-invoice keeps its XML here); a bill's period is its tax point's. */
export const PURCHASE_ATTACHMENTS_TABLE = 'purchase_document_attachments';

const BILL_ATTACHMENTS: AttachmentOwner = {
  table: PURCHASE_ATTACHMENTS_TABLE,
  label: 'bill',
  find: async ({ em, orgId }, id) => {
    const [doc] = await sqlRows<{ date_issued: string; date_taxable: string | null }>(
      em,
      `select to_char(date_issued, 'YYYY-MM-DD') as date_issued, to_char(date_taxable, 'YYYY-MM-DD') as date_taxable from purchase_documents where org_id = ? and id = ? and kind = 'bill'`,
      [orgId, id],
    );
    return doc ? { postedOn: postingDate.document(doc) } : null;
  },
};

type Operations = 'uploadBillAttachment' | 'listBillAttachments' | 'getBillAttachment' | 'deleteBillAttachment';

/** `/v1/purchase/bills/{id}/attachments…`. */
export function billAttachmentRoutes(maxBytes: number, store: S3Store | null, log: Logger): Pick<EndpointHandlers<'purchase'>, Operations> {
  const h = attachmentHandlers(BILL_ATTACHMENTS, maxBytes, store, log);
  return { uploadBillAttachment: h.upload, listBillAttachments: h.list, getBillAttachment: h.content, deleteBillAttachment: h.remove };
}
