import { z } from 'zod';
import { id, isoDateTime } from './common.js';
import { pagedEnvelope, pagingQuery } from './paging.js';

// --- attachments of bills and invoices (…/{id}/attachments) ---------------------------------------

export const ATTACHMENT_MEDIA_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'application/xml'] as const;

export const attachmentSchema = z
  .object({
    id: id,
    document_id: id.describe('The bill or invoice it belongs to'),
    file_name: z.string().describe('The name it was uploaded under (its last path segment)'),
    content_type: z.enum(ATTACHMENT_MEDIA_TYPES).describe('What its bytes are (read from them, not from the name)'),
    size: z.int().min(0).describe('Bytes'),
    sha256: z.string().regex(/^[0-9a-f]{64}$/).describe('SHA-256 of the bytes as stored, hex'),
    source: z.enum(['upload', 'einvoice', 'einvoice_embedded']).describe('upload: sent by a client; einvoice: the received e-invoice XML itself; einvoice_embedded: a file the e-invoice carried (AdditionalDocumentReference)'),
    created_at: isoDateTime,
  })
  .meta({ id: 'Attachment', description: 'A file kept with a bill or an invoice' });
export type Attachment = z.infer<typeof attachmentSchema>;

/** The form of an upload (multipart/form-data): one part named `file`. */
export const attachmentUploadSchema = z
  .object({ file: z.string().meta({ format: 'binary' }).describe('The file: a PDF, PNG, JPEG or XML document, at most ATTACHMENT_MAX_BYTES (10 MiB by default)') })
  .meta({ id: 'AttachmentUpload', description: 'One file in a part named file' });

export const attachmentListQuerySchema = z.object({ ...pagingQuery(100) });
export type AttachmentListQuery = z.output<typeof attachmentListQuerySchema>;
export const attachmentPageSchema = pagedEnvelope(attachmentSchema);

export const attachmentPathSchema = z.object({
  id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('Record id (int64)'),
  attachment_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('Attachment id (int64)'),
});

/** The bytes of an attachment as stored. */
export const attachmentContentSchema = z.string().describe('The file as stored (binary)');
