import type { EntityManager } from '@mikro-orm/postgresql';
import type { EmailRequest, InvoiceEmailResult } from '@ledgerline/contracts';
import { AppError, BusinessRuleError, UpstreamError, ValidationError, sqlRows, type FieldError } from '@ledgerline/service-kit';
import type { S3Store } from '@ledgerline/posted-documents';
import { formatDate, formatMoney, interpolate, labelsFor, parseAddressList, type MailAttachment } from '@ledgerline/rendering';
import { EmailRecordSchema, type EmailRecord } from '../db/delivery.entities.js';
import type { Delivery } from '../delivery.js';
import { INVOICES } from '../invoices/invoice-kind.js';
import { PROFORMAS } from '../advances/kinds.js';
import { documentFileName, printSalesDocument, renderSalesDocument, type RenderOptions } from '../sales-documents/rendering.js';
import { salesDocumentUbl } from '../sales-documents/einvoice-ubl.js';
import { salesDocumentIsdoc } from '../sales-documents/einvoice-isdoc.js';

/** E-mail record with its outcome; attachment contents are not kept (binary_content null). */
export function emailRecordView(r: EmailRecord) {
  return {
    id: r.id,
    from: r.fromAddress ?? null,
    reply_to: r.replyTo ?? null,
    to: r.toAddress ?? null,
    to_cc: r.toCc ?? null,
    to_bcc: r.toBcc ?? null,
    subject: r.subject ?? null,
    body: r.body ?? null,
    include_attachment: r.includeAttachment,
    attachments: r.attachments.map((a) => ({ id: a.id, file_name: a.file_name, binary_content: null })),
    status: r.status,
    error: r.error ?? null,
    document_type: r.documentType,
    document_id: r.documentId,
    created_at: r.createdAt.toISOString(),
  };
}

/** GET /v1/CRM/emails: the organisation's e-mail records, newest first. */
export async function listEmailRecords(em: EntityManager, from: number, take: number): Promise<EmailRecord[]> {
  return em.find(EmailRecordSchema, {}, { orderBy: { id: 'desc' }, offset: from, limit: take });
}

const ADDRESS_FIELDS = ['from', 'reply_to', 'to', 'to_cc', 'to_bcc'] as const;
type AddressField = (typeof ADDRESS_FIELDS)[number];

/** Every address field checked; 400 naming each field with an entry that is not an address. */
function checkAddresses(fields: Record<AddressField, string | null | undefined>): Record<AddressField, string[]> {
  const errors: FieldError[] = [];
  const out = {} as Record<AddressField, string[]>;
  for (const f of ADDRESS_FIELDS) {
    const { addresses, invalid } = parseAddressList(fields[f]);
    out[f] = addresses;
    if (invalid.length) errors.push({ path: f, message: `not an e-mail address: ${invalid.join(', ')}`.slice(0, 500), code: 'invalid_email' });
    else if ((f === 'from' || f === 'reply_to') && addresses.length > 1) errors.push({ path: f, message: 'a single address', code: 'invalid_email' });
  }
  if (!errors.length && out.to.length === 0) {
    errors.push({ path: 'to', message: 'no recipient: give `to` or an e-mail address of the customer', code: 'required' });
  }
  if (errors.length) throw new ValidationError(`The e-mail is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  return out;
}

/**
 * The invoice's kept files the message names, as stored: each once (a repeated id is 400), 422
 * naming each id that is not one of them, and 413 when they weigh more than `maxBytes` together
 * (MAIL_ATTACHMENTS_MAX_BYTES; issue 71: five copies of a 10 MiB file made a 72 MB e-mail) — all
 * known from their sizes before a byte of them is read.
 */
async function keptAttachments(em: EntityManager, orgId: number, invoiceId: number, ids: readonly number[], store: S3Store | null, maxBytes: number): Promise<MailAttachment[]> {
  if (!ids.length) return [];
  const repeated = ids.map((id, i) => ({ id, i })).filter(({ id, i }) => ids.indexOf(id) !== i);
  if (repeated.length) {
    throw new ValidationError(
      `The e-mail names attachment ${repeated.map((r) => r.id).join(', ')} more than once`,
      repeated.map(({ id, i }) => ({ path: `attachment_ids[${i}]`, message: `attachment ${id} is named before`, code: 'duplicate_attachment' })),
    );
  }
  const sizes = await sqlRows<{ id: string; size: number }>(em, 'select id, size from sales_document_attachments where org_id = ? and document_id = ? and id = any(?::bigint[])', [orgId, invoiceId, `{${ids.join(',')}}`]);
  const total = sizes.reduce((n, r) => n + Number(r.size), 0);
  if (total > maxBytes) {
    throw new AppError(413, 'attachments_too_large', 'Payload too large', `The attachments weigh ${total} bytes together; an e-mail carries at most ${maxBytes}`, [
      { path: 'attachment_ids', message: `${total} bytes together; at most ${maxBytes}`, code: 'attachments_too_large' },
    ]);
  }
  const rows = await sqlRows<{ id: string; file_name: string; content_type: string; content: Buffer | null; storage_key: string | null }>(
    em,
    'select id, file_name, content_type, content, storage_key from sales_document_attachments where org_id = ? and document_id = ? and id = any(?::bigint[])',
    [orgId, invoiceId, `{${ids.join(',')}}`],
  );
  const found = new Map(rows.map((r) => [Number(r.id), r]));
  const missing = ids.map((id, i) => ({ id, i })).filter(({ id }) => !found.has(id));
  if (missing.length) {
    throw new BusinessRuleError(
      `The invoice keeps no attachment ${missing.map((m) => m.id).join(', ')}`,
      'attachment_not_found',
      missing.map(({ id, i }) => ({ path: `attachment_ids[${i}]`, message: `no attachment ${id} of this invoice`, code: 'attachment_not_found' })),
    );
  }
  return Promise.all(
    ids.map(async (id) => {
      const r = found.get(id)!;
      const content = r.content ?? (store ? await store.get(r.storage_key!) : null);
      if (!content) throw new UpstreamError(503, 'attachments', `attachment ${id} is kept in an object store this service is not configured for`);
      return { filename: r.file_name, content, contentType: r.content_type };
    }),
  );
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * POST /v1/sales/invoices/{id}/email: sends an invoice by e-mail. The message comes from the request, its gaps from the invoice
 * (customer e-mail, organisation e-mail, localised subject and text). With `include_attachment`
 * (the default) the invoice PDF, rendered with `layout` and `culture`, is attached; with
 * `include_einvoice: "ubl"` its Peppol UBL document too, with `"isdoc"` its ISDOC document. Every attempt
 * is stored as an e-mail record with its outcome; a failed delivery (SMTP refusal, no browser for
 * the PDF) answers `success: false` instead of an error.
 */
export async function sendInvoiceEmail(
  em: EntityManager,
  orgId: number,
  invoiceId: number,
  input: EmailRequest,
  opts: RenderOptions,
  delivery: Delivery,
  /** The kind sent: an invoice, or a proforma (whose e-mail never carries an e-invoice: it is no invoice). */
  kind: typeof INVOICES | typeof PROFORMAS = INVOICES,
): Promise<{ record: EmailRecord; result: InvoiceEmailResult }> {
  if (kind.docType === 'sales_proforma' && input.include_einvoice) {
    throw new BusinessRuleError('A proforma invoice is not an invoice: it is sent without an e-invoice', 'einvoice_not_available', [
      { path: 'include_einvoice', message: 'not available for a proforma invoice', code: 'einvoice_not_available' },
    ]);
  }
  const rendered = await renderSalesDocument({ em, orgId }, kind, invoiceId, opts);
  const { view, doc, culture, template } = rendered;
  const customer = (view.customer ?? {}) as Record<string, unknown>;
  const org = (view.org ?? {}) as Record<string, unknown>;
  const addresses = checkAddresses({
    from: str(input.from) ?? str(org.email) ?? str(rendered.organisation?.email) ?? delivery.mailFrom,
    reply_to: str(input.reply_to),
    to: str(input.to) ?? str(customer.email),
    to_cc: str(input.to_cc),
    to_bcc: str(input.to_bcc),
  });

  const labels = labelsFor(culture, template);
  const values = {
    no: doc.no,
    total: formatMoney(view.total_amount, culture, doc.currency, doc.precision),
    date_due: formatDate(view.date_due, culture),
    org: str(org.name) ?? '',
  };
  const words = kind.docType === 'sales_proforma' ? { subject: labels.email_subject_proforma, body: labels.email_body_proforma } : { subject: labels.email_subject_invoice, body: labels.email_body_invoice };
  const subject = str(input.subject) ?? interpolate(words.subject, values);
  const body = input.body ?? interpolate(words.body, values);
  const includeAttachment = input.include_attachment ?? true;

  const attachments: MailAttachment[] = [];
  // written first: an invoice that cannot be an e-invoice is refused (422) before anything is sent or recorded
  if (input.include_einvoice === 'ubl') {
    const { xml } = await salesDocumentUbl({ em, orgId }, INVOICES, invoiceId);
    attachments.push({ filename: documentFileName(INVOICES, doc.no, 'xml'), content: Buffer.from(xml, 'utf8'), contentType: 'application/xml' });
  } else if (input.include_einvoice === 'isdoc') {
    const { xml } = await salesDocumentIsdoc({ em, orgId }, INVOICES, invoiceId);
    attachments.push({ filename: documentFileName(INVOICES, doc.no, 'isdoc'), content: Buffer.from(xml, 'utf8'), contentType: 'application/xml' });
  }
  let failure: string | null = null;
  if (includeAttachment) {
    try {
      attachments.unshift({ filename: documentFileName(kind, doc.no), content: await printSalesDocument(delivery.printer, rendered), contentType: 'application/pdf' });
    } catch (e) {
      failure = `the invoice PDF could not be printed: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  attachments.push(...(await keptAttachments(em, orgId, doc.id, input.attachment_ids ?? [], delivery.attachmentStore, delivery.maxAttachedBytes)));
  (input.attachments ?? []).forEach((a, i) => {
    if (a.binary_content) attachments.push({ filename: str(a.file_name) ?? `attachment-${i + 1}`, content: Buffer.from(a.binary_content, 'base64') });
  });

  const outcome = failure
    ? ({ status: 'failed', error: failure } as const)
    : await delivery.mailer.send({
        from: addresses.from[0],
        replyTo: addresses.reply_to[0] ?? null,
        to: addresses.to,
        cc: addresses.to_cc,
        bcc: addresses.to_bcc,
        subject,
        text: body,
        attachments,
      });

  const join = (a: string[]) => (a.length ? a.join(', ') : null);
  const record = em.create(EmailRecordSchema, {
    orgId,
    documentType: kind.docType,
    documentId: doc.id,
    documentNo: doc.no,
    fromAddress: addresses.from[0],
    replyTo: join(addresses.reply_to),
    toAddress: join(addresses.to),
    toCc: join(addresses.to_cc),
    toBcc: join(addresses.to_bcc),
    subject,
    body,
    includeAttachment,
    attachments: attachments.map((a, i) => ({ id: i + 1, file_name: a.filename, size: a.content.length })),
    status: outcome.status,
    error: outcome.status === 'failed' ? outcome.error : null,
    messageId: outcome.status === 'failed' ? null : outcome.messageId,
    createdAt: new Date(),
  });
  await em.flush();
  return {
    record,
    result: { id: record.id, success: outcome.status !== 'failed', to: record.toAddress ?? null, subject, no: doc.no },
  };
}
