import { MalformedRequestError } from '../errors.js';
import { unstorableText } from './hostile-input.js';

/** A file part of a `multipart/form-data` body: the bytes as they came, with what the client said of them. */
export interface UploadedFile {
  field: string;
  /** The file name the client gave (its last path segment), or null. */
  fileName: string | null;
  /** The part's Content-Type as the client gave it: a claim, not a fact (the bytes decide). */
  declaredType: string | null;
  bytes: Buffer;
}

/** A `multipart/form-data` body as a handler gets it (`input.raw`). */
export interface MultipartBody {
  kind: 'multipart';
  files: UploadedFile[];
  fields: Record<string, string>;
}

export function isMultipartBody(v: unknown): v is MultipartBody {
  return typeof v === 'object' && v !== null && (v as MultipartBody).kind === 'multipart';
}

/** The last segment of a client's file name, without control characters, at most 255 characters. */
/** A file's name as kept, whichever way it came (an upload, a file an e-invoice embeds): its last path segment, no control characters, at most 255 characters; null when nothing storable is left. */
export function cleanFileName(name: string | null | undefined): string | null {
  if (!name) return null;
  // eslint-disable-next-line no-control-regex
  const base = name.split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (!base || unstorableText(base)) return null;
  return base.slice(0, 255);
}

/**
 * Parses a `multipart/form-data` body (the platform's own parser, as `fetch` reads a form). A body
 * that is not a well-formed form of that boundary is 400 `invalid_body`; text fields that could not
 * be stored (NUL, lone surrogates) likewise.
 */
export async function parseMultipart(bytes: Buffer, contentType: string): Promise<MultipartBody> {
  if (!/boundary=/i.test(contentType)) {
    throw new MalformedRequestError('A multipart/form-data body needs the boundary parameter in its Content-Type', 'invalid_body');
  }
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new MalformedRequestError('The request body is not a well-formed multipart/form-data body of its boundary', 'invalid_body');
  }
  const files: UploadedFile[] = [];
  const fields: Record<string, string> = {};
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      const why = unstorableText(value) ?? unstorableText(field);
      if (why) throw new MalformedRequestError(`The form field ${field.slice(0, 40)} ${why}`, 'invalid_body');
      fields[field] = value;
    } else {
      files.push({ field, fileName: cleanFileName(value.name), declaredType: value.type || null, bytes: Buffer.from(await value.arrayBuffer()) });
    }
  }
  return { kind: 'multipart', files, fields };
}
