import { createHash } from 'node:crypto';
import type { S3Store } from './attachment-store.js';
import type { Attachment, AttachmentListQuery } from '@ledgerline/contracts';
import {
  AppError,
  BusinessRuleError,
  cleanFileName,
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
  UpstreamError,
  page,
  postingDate,
  postingSettingsOf,
  ValidationError,
  isMultipartBody,
  refuseClosedPeriod,
  sqlRows,
  type PostedOn,
  type TenantContext,
  type TenantScope,
} from '@ledgerline/service-kit';

/*
 * Files kept with a posted document (issue 58): a supplier's PDF with its bill, a signed order with
 * an invoice, the received e-invoice's XML and the PDF it embeds. What a file is, is read from its
 * bytes (a PDF begins with %PDF-, a PNG with its signature), never from the name or the type the
 * client states; a file that is none of the kinds kept is refused, and one whose stated type
 * contradicts its bytes is refused as mislabelled. The bytes are kept as they came, in the
 * service's own database, with their SHA-256.
 */

export const ATTACHMENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'application/xml'] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];
export type AttachmentSource = 'upload' | 'einvoice' | 'einvoice_embedded';

/** The most files one document keeps. */
export const MAX_ATTACHMENTS_PER_DOCUMENT = 50;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** What the bytes are, among the kinds kept; null when none. */
export function sniffAttachmentType(bytes: Buffer): AttachmentType | null {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG)) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  // XML: UTF-8 text (a BOM allowed) opening with a declaration or an element, no NUL anywhere
  const head = bytes.subarray(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0, 4096).toString('utf8').trimStart();
  if (/^<(\?xml[\s?]|[A-Za-z_][\w.:-]*[\s/>])/.test(head) && !bytes.includes(0)) return 'application/xml';
  return null;
}

/** The types a client may state for each kind (e.g. `text/xml` for XML, `image/jpg` as some send). */
const STATED: Record<AttachmentType, RegExp> = {
  'application/pdf': /^application\/(pdf|x-pdf)$/,
  'image/png': /^image\/png$/,
  'image/jpeg': /^image\/(jpeg|jpg|pjpeg)$/,
  'application/xml': /^(application|text)\/([\w.+-]+\+)?xml$/,
};
/** Stated types that say nothing of the content. */
const UNINFORMATIVE = /^(application\/octet-stream|binary\/octet-stream|application\/unknown)$/;

/** The DDL of a service's attachments table (what its migration runs). */
export function attachmentTableSql(table: string, documents: string): string {
  return `create table ${table} (
  id bigserial primary key,
  org_id bigint not null,
  document_id bigint not null references ${documents}(id),
  file_name text not null,
  content_type text not null,
  size integer not null check (size >= 0),
  sha256 char(64) not null,
  source text not null check (source in ('upload', 'einvoice', 'einvoice_embedded')),
  -- the bytes here, or the key of the object holding them (ATTACHMENT_STORE=s3)
  content bytea,
  storage_key text,
  created_at timestamptz not null default now(),
  check ((content is null) <> (storage_key is null))
);
create index ${table}_document on ${table} (org_id, document_id, id);`;
}

/** How a service's documents own attachments: its table, and how to find a document and the day it posts on. */
export interface AttachmentOwner {
  table: string;
  /** e.g. `bill`, in messages; its `_not_found` code is `${label}_not_found`. */
  label: string;
  /** The document (of this organisation, of this kind) and the day it posts on; null when there is none. */
  find: (scope: TenantScope, id: number) => Promise<{ postedOn: PostedOn } | null>;
}

/**
 * The owner of a kind of document kept in `documents`: the rows `kind` (an SQL condition) selects,
 * posted on their `taxable` date (an SQL expression giving YYYY-MM-DD), else their issue date.
 */
export function documentAttachmentOwner(o: { table: string; label: string; documents: string; kind: string; taxable: string }): AttachmentOwner {
  return {
    table: o.table,
    label: o.label,
    find: async ({ em, orgId }, id) => {
      const [doc] = await sqlRows<{ date_issued: string; date_taxable: string | null }>(
        em,
        `select to_char(date_issued, 'YYYY-MM-DD') as date_issued, ${o.taxable} as date_taxable from ${o.documents} where org_id = ? and id = ? and ${o.kind}`,
        [orgId, id],
      );
      return doc ? { postedOn: postingDate.document(doc) } : null;
    },
  };
}

export interface NewAttachment {
  fileName: string;
  contentType: AttachmentType;
  bytes: Buffer;
  source: AttachmentSource;
}

interface AttachmentRow {
  id: string | number;
  document_id: string | number;
  file_name: string;
  content_type: string;
  size: number;
  sha256: string;
  source: AttachmentSource;
  created_at: Date | string;
}
const COLUMNS = 'id, document_id, file_name, content_type, size, sha256, source, created_at';

function view(r: AttachmentRow): Attachment {
  return {
    id: Number(r.id),
    document_id: Number(r.document_id),
    file_name: r.file_name,
    content_type: r.content_type as AttachmentType,
    size: r.size,
    sha256: r.sha256.trim(),
    source: r.source,
    created_at: new Date(r.created_at).toISOString(),
  };
}

const EXTENSION: Record<AttachmentType, string> = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg', 'application/xml': 'xml' };

/**
 * Stores files with a document in the caller's transaction (the e-invoice import keeps its XML so);
 * with an object store, each file's object is written first, under a key of its own.
 */
export async function insertAttachments(scope: TenantScope, table: string, documentId: number, files: readonly NewAttachment[], store: S3Store | null): Promise<Attachment[]> {
  // the same rules on every way in (issue 71): the count of an upload, and an upload's file names
  if (files.length > MAX_ATTACHMENTS_PER_DOCUMENT) {
    throw new BusinessRuleError(`${files.length} files would be kept with the document; a document keeps at most ${MAX_ATTACHMENTS_PER_DOCUMENT}`, 'too_many_attachments');
  }
  const out: Attachment[] = [];
  for (const given of files) {
    const f = { ...given, fileName: cleanFileName(given.fileName) ?? `attachment.${EXTENSION[given.contentType]}` };
    const sha256 = createHash('sha256').update(f.bytes).digest('hex');
    const key = store ? store.newKey(scope.orgId) : null;
    if (store) await store.put(key!, f.bytes, f.contentType);
    const [row] = await sqlRows<AttachmentRow>(
      scope.em,
      `insert into ${table} (org_id, document_id, file_name, content_type, size, sha256, source, content, storage_key) values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${COLUMNS}`,
      [scope.orgId, documentId, f.fileName, f.contentType, f.bytes.length, sha256, f.source, store ? null : f.bytes, key],
    );
    out.push(view(row));
  }
  return out;
}

/** The file of an upload: exactly one part named `file`, of a kind kept, no larger than the cap, labelled as what it is. */
function uploadedFile(raw: unknown, maxBytes: number): NewAttachment {
  if (!isMultipartBody(raw)) throw new ValidationError('Send the file as multipart/form-data in a part named file', [{ path: 'file', message: 'required', code: 'required' }]);
  const files = raw.files.filter((f) => f.field === 'file');
  if (!files.length && Object.hasOwn(raw.fields, 'file')) {
    // a part named file without a filename arrives as a text field: say what it lacks
    throw new ValidationError('The part named file has no filename, so it came as text: send it as a file (its Content-Disposition with filename="…")', [
      { path: 'file', message: 'a file part needs a filename', code: 'file_name_missing' },
    ]);
  }
  const others = [...raw.files.filter((f) => f.field !== 'file').map((f) => f.field), ...Object.keys(raw.fields)];
  if (others.length) {
    throw new ValidationError(`Only one part named file is taken; unexpected: ${others.slice(0, 5).join(', ')}`, others.slice(0, 20).map((p) => ({ path: p, message: 'unknown form field', code: 'unknown_field' })));
  }
  if (files.length !== 1) throw new ValidationError(`Send exactly one file in the part named file (${files.length} came)`, [{ path: 'file', message: 'exactly one file', code: files.length ? 'too_many_files' : 'required' }]);
  const [file] = files;
  if (file.bytes.length > maxBytes) throw new PayloadTooLargeError(maxBytes);
  if (file.bytes.length === 0) throw new ValidationError('The file is empty', [{ path: 'file', message: 'empty', code: 'empty_file' }]);
  const type = sniffAttachmentType(file.bytes);
  if (!type) {
    throw new AppError(415, 'unsupported_attachment_type', 'Unsupported media type', 'The file is not a PDF, PNG, JPEG or XML document (judged from its bytes, not its name or stated type)', [
      { path: 'file', message: 'not a PDF, PNG, JPEG or XML document', code: 'unsupported_attachment_type' },
    ]);
  }
  const stated = (file.declaredType ?? '').split(';')[0].trim().toLowerCase();
  if (stated && !UNINFORMATIVE.test(stated) && !STATED[type].test(stated)) {
    throw new BusinessRuleError(`The file is stated to be ${stated.slice(0, 80)} but its bytes are ${type}`, 'attachment_type_mismatch', [
      { path: 'file', message: `stated ${stated.slice(0, 80)}, is ${type}`, code: 'attachment_type_mismatch' },
    ]);
  }
  return { fileName: file.fileName ?? `attachment.${EXTENSION[type]}`, contentType: type, bytes: file.bytes, source: 'upload' };
}

/** The operations of `…/{id}/attachments` for one kind of document. */
export function attachmentOperations(owner: AttachmentOwner, maxBytes: number, store: S3Store | null) {
  const documentOf = async (scope: TenantScope, id: number) => {
    const doc = await owner.find(scope, id);
    if (!doc) throw new NotFoundError(`No ${owner.label} ${id} in this organisation`, `${owner.label}_not_found`);
    return doc;
  };
  const rowOf = async (scope: TenantScope, documentId: number, id: number, forUpdate = false) => {
    const [row] = await sqlRows<AttachmentRow>(scope.em, `select ${COLUMNS} from ${owner.table} where org_id = ? and document_id = ? and id = ?${forUpdate ? ' for update' : ''}`, [
      scope.orgId,
      documentId,
      id,
    ]);
    if (!row) throw new NotFoundError(`No attachment ${id} of ${owner.label} ${documentId}`, 'attachment_not_found');
    return row;
  };
  return {
    upload: async (ctx: TenantContext, documentId: number, raw: unknown): Promise<Attachment> => {
      await documentOf(ctx, documentId);
      const file = uploadedFile(raw, maxBytes);
      // the document's row is the lock that counts its files: two uploads at once cannot both be the 51st
      await sqlRows(ctx.em, `select pg_advisory_xact_lock(hashtextextended(?, ?))`, [owner.table, documentId]);
      const [{ n }] = await sqlRows<{ n: string }>(ctx.em, `select count(*) as n from ${owner.table} where org_id = ? and document_id = ?`, [ctx.orgId, documentId]);
      if (Number(n) >= MAX_ATTACHMENTS_PER_DOCUMENT) {
        throw new BusinessRuleError(`The ${owner.label} already keeps ${MAX_ATTACHMENTS_PER_DOCUMENT} files, the most a document keeps`, 'too_many_attachments');
      }
      const [stored] = await insertAttachments(ctx, owner.table, documentId, [file], store);
      return stored;
    },
    list: async (scope: TenantScope, documentId: number, q: AttachmentListQuery) => {
      await documentOf(scope, documentId);
      const rows = await sqlRows<AttachmentRow & { total: string }>(
        scope.em,
        `select ${COLUMNS}, count(*) over () as total from ${owner.table} where org_id = ? and document_id = ? order by id limit ? offset ?`,
        [scope.orgId, documentId, q.take, q.from],
      );
      return { rows: rows.map(view), total: rows.length ? Number(rows[0].total) : 0 };
    },
    /** The bytes as stored, with their type and name. */
    content: async (scope: TenantScope, documentId: number, id: number) => {
      await documentOf(scope, documentId);
      const [row] = await sqlRows<AttachmentRow & { content: Buffer | null; storage_key: string | null }>(
        scope.em,
        `select ${COLUMNS}, content, storage_key from ${owner.table} where org_id = ? and document_id = ? and id = ?`,
        [scope.orgId, documentId, id],
      );
      if (!row) throw new NotFoundError(`No attachment ${id} of ${owner.label} ${documentId}`, 'attachment_not_found');
      if (row.content) return { attachment: view(row), bytes: row.content };
      if (!store) throw new UpstreamError(503, 'attachments', `attachment ${id} is kept in an object store this service is not configured for (ATTACHMENT_STORE=s3)`);
      return { attachment: view(row), bytes: await store.get(row.storage_key!) };
    },
    /**
     * Removes a file while the document's period is open. The received e-invoice itself is the
     * original the law keeps for the tax office: it is never removed.
     */
    remove: async (scope: TenantScope, documentId: number, id: number, lockDate: string | null): Promise<{ removed: Attachment; storageKey: string | null }> => {
      const doc = await documentOf(scope, documentId);
      const row = await rowOf(scope, documentId, id, true);
      if (row.source === 'einvoice') {
        throw new ConflictError(`Attachment ${id} is the received e-invoice the ${owner.label} was imported from; it is kept as the original`, 'attachment_is_original');
      }
      refuseClosedPeriod(lockDate, `removing a file of ${owner.label} ${documentId}`, [doc.postedOn]);
      const [gone] = await sqlRows<{ storage_key: string | null }>(scope.em, `delete from ${owner.table} where org_id = ? and id = ? returning storage_key`, [scope.orgId, id]);
      return { removed: view(row), storageKey: gone?.storage_key ?? null };
    },
  };
}

/** The name a file is saved as: its own, quoted for Content-Disposition (RFC 6266, with the UTF-8 form beside an ASCII one). */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

type HandlerContext = TenantContext & {
  c: { body: (data: Uint8Array, status: 200, headers: Record<string, string>) => Response; get(key: 'afterCommit'): Array<() => void> | undefined };
};

/** The four handlers of `…/{id}/attachments` (upload, list, the bytes, remove) for a service's route table to name. */
export function attachmentHandlers(owner: AttachmentOwner, maxBytes: number, store: S3Store | null, log?: { warn(msg: string, meta?: Record<string, unknown>): void }) {
  const op = attachmentOperations(owner, maxBytes, store);
  return {
    upload: ({ ctx, input }: { ctx: TenantContext; input: { params: { id: number }; raw: unknown } }) => op.upload(ctx, input.params.id, input.raw),
    list: async ({ ctx, input }: { ctx: TenantContext; input: { params: { id: number }; query: AttachmentListQuery } }) => {
      const { rows, total } = await op.list(ctx, input.params.id, input.query);
      return page(rows, total, input.query.from, input.query.take);
    },
    content: async ({ ctx, input }: { ctx: HandlerContext; input: { params: { id: number; attachment_id: number } } }) => {
      const { attachment, bytes } = await op.content(ctx, input.params.id, input.params.attachment_id);
      return ctx.c.body(new Uint8Array(bytes), 200, {
        'content-type': attachment.content_type,
        'content-disposition': contentDisposition(attachment.file_name),
        'x-content-type-options': 'nosniff',
        // a stored file never runs anything, even opened directly from the API's origin
        'content-security-policy': "default-src 'none'; sandbox",
        etag: `"${attachment.sha256}"`,
      });
    },
    remove: async ({ ctx, input }: { ctx: HandlerContext; input: { params: { id: number; attachment_id: number } } }) => {
      const { removed, storageKey } = await op.remove(ctx, input.params.id, input.params.attachment_id, (await postingSettingsOf(ctx)).lockDate);
      // the object goes once the row's removal has committed: a removal rolled back keeps its bytes
      if (store && storageKey) {
        ctx.c.get('afterCommit')?.push(() => void store.delete(storageKey).catch((err) => log?.warn('attachment object not removed', { key: storageKey, err: String(err) })));
      }
      return removed;
    },
  };
}
