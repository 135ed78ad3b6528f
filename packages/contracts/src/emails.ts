import { z } from 'zod';
import { CONTENT_TEXT, culture, id, int64, isoDateTime, longText, nullish, shortText, ignoredInput } from './common.js';
import { pagingQuery } from './paging.js';

/* E-mail records and the invoice e-mail (architecture §7). */

// --- e-mail -----------------------------------------------------------------------

export const emailAttachmentSchema = z.object({
  id: nullish(int64),
  file_name: nullish(shortText()),
  binary_content: nullish(z.base64().max(CONTENT_TEXT)).describe('File content, base64'),
});

const emailMessageFields = {
  from: nullish(shortText(320)),
  reply_to: nullish(shortText(320)),
  to: nullish(shortText(2000)).describe('Recipients, comma separated; the customer e-mail when absent'),
  to_cc: nullish(shortText(2000)),
  to_bcc: nullish(shortText(2000)),
  subject: nullish(shortText(998)),
  body: nullish(z.string().max(CONTENT_TEXT)),
  include_attachment: nullish(z.boolean()).describe('Attach the invoice PDF'),
  include_einvoice: nullish(z.enum(['ubl', 'isdoc'])).describe(
    'Attach the invoice as an e-invoice too: ubl (Peppol BIS Billing 3.0, UBL 2.1, as INVOICE-NO.xml) or isdoc (ISDOC 6.0.2, as INVOICE-NO.isdoc). An invoice the format cannot carry yet answers 422 einvoice_incomplete and nothing is sent',
  ),
  attachments: nullish(z.array(emailAttachmentSchema).max(20)),
};

export const EMAIL_STATUSES = ['sent', 'written', 'failed'] as const;

/** E-mail record with its outcome (architecture §7 extension fields). */
export const emailRecordSchema = z
  .object({
    id: id,
    ...emailMessageFields,
    status: nullish(z.enum(EMAIL_STATUSES)).describe('Outcome: sent over SMTP, written as .eml, or failed'),
    error: nullish(longText()).describe('Why the attempt failed'),
    document_type: nullish(z.enum(['sales_invoice', 'sales_credit_note', 'sales_proforma'])),
    document_id: nullish(int64),
    created_at: nullish(isoDateTime),
  })
  .meta({ id: 'EmailRecord', description: 'E-mail record: one per sending attempt' });
export type EmailRecord = z.infer<typeof emailRecordSchema>;

/** Body of POST /sales/invoices/{id}/email: the message. */
export const emailRequestSchema = z
  .object({
    id: ignoredInput(int64),
    ...emailMessageFields,
    attachment_ids: nullish(z.array(id).max(20)).describe('Files kept with the invoice (GET /v1/sales/invoices/{id}/attachments) to attach as they are stored; 422 attachment_not_found names one that is not'),
  })
  .meta({ id: 'EmailRequest', description: 'The message to send; empty fields are filled from the invoice and customer' });
export type EmailRequest = z.infer<typeof emailRequestSchema>;

export const emailListQuerySchema = z.object({ ...pagingQuery(10) });
export type EmailListQuery = z.output<typeof emailListQuerySchema>;
export const emailListSchema = z.array(emailRecordSchema);

export const emailInvoiceQuerySchema = z.object({
  layout: z.string().max(255).optional().describe('Template code of the attached rendering'),
  culture: culture.optional().describe('Language of the attached rendering'),
});

export const invoiceEmailResultSchema = z
  .object({
    id: int64.describe('Id of the e-mail record'),
    success: z.boolean(),
    to: z.string().nullable(),
    subject: z.string().nullable(),
    no: z.string().nullable().describe('Invoice number'),
  })
  .meta({ id: 'InvoiceEmailResult' });
export type InvoiceEmailResult = z.infer<typeof invoiceEmailResultSchema>;
