import { createHash, createHmac, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { UpstreamError } from '@ledgerline/service-kit';

/*
 * Where attachment bytes live (decision 210): in the service's own Postgres by default, or in an
 * S3-compatible object store when configured (`ATTACHMENT_STORE=s3`). Either way the row with the
 * file's name, type, size and SHA-256 is in the service's database; with S3 the row names the
 * object. An object gets a key of its own (never shared), written before the row: a transaction
 * that rolls back leaves an unreferenced object at worst, never a row without its bytes.
 */

export const attachmentStoreConfigShape = {
  /** `postgres` (default): bytes in the service's database; `s3`: in the S3 bucket below. */
  ATTACHMENT_STORE: z.enum(['postgres', 's3']).default('postgres'),
  /** The S3-compatible endpoint, e.g. https://s3.eu-central-1.amazonaws.com or http://127.0.0.1:9000 (path-style requests). */
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name').optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
};
export type AttachmentStoreConfig = z.output<z.ZodObject<typeof attachmentStoreConfigShape>>;

export interface S3Settings {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** The store a configuration names; S3 needs every S3_ setting (a missing one stops the service at boot). */
export function attachmentStoreOf(config: AttachmentStoreConfig): S3Store | null {
  if (config.ATTACHMENT_STORE === 'postgres') return null;
  const missing = (['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).filter((k) => !config[k]);
  if (missing.length) throw new Error(`ATTACHMENT_STORE=s3 needs ${missing.join(', ')}`);
  return new S3Store({
    endpoint: config.S3_ENDPOINT!,
    bucket: config.S3_BUCKET!,
    region: config.S3_REGION,
    accessKeyId: config.S3_ACCESS_KEY_ID!,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY!,
  });
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
/** RFC 3986 encoding of one path segment, as Signature Version 4 wants it. */
const encodeSegment = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface SignedRequestParts {
  method: string;
  host: string;
  /** The request path, already URI-encoded. */
  path: string;
  headers: Record<string, string>;
  payloadHash: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  at: Date;
}

/**
 * AWS Signature Version 4 for S3 (no query string): the request's headers with `authorization`
 * added. Every header given is signed; `host`, `x-amz-date` and `x-amz-content-sha256` must be
 * among them.
 */
export function signV4(r: SignedRequestParts): Record<string, string> {
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const amzDate = headers['x-amz-date'];
  const day = amzDate.slice(0, 8);
  const names = Object.keys(headers).sort();
  const canonical = [r.method, r.path, '', ...names.map((n) => `${n}:${headers[n].trim()}`), '', names.join(';'), r.payloadHash].join('\n');
  const scope = `${day}/${r.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${r.secretAccessKey}`, day), r.region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(toSign).digest('hex');
  return { ...headers, authorization: `AWS4-HMAC-SHA256 Credential=${r.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}` };
}

/** The `x-amz-date` of an instant (YYYYMMDD'T'HHMMSS'Z'). */
export const amzDate = (at: Date) => at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** A path-style request to an object of the bucket, signed. */
export function signS3Request(s: S3Settings, method: string, key: string, body: Buffer | null, at: Date, extra: Record<string, string> = {}): { url: string; headers: Record<string, string> } {
  const endpoint = new URL(s.endpoint);
  const path = `${endpoint.pathname.replace(/\/$/, '')}/${encodeSegment(s.bucket)}/${key.split('/').map(encodeSegment).join('/')}`;
  const payloadHash = sha256Hex(body ?? '');
  const headers = signV4({
    method,
    host: endpoint.host,
    path,
    headers: { host: endpoint.host, 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate(at), ...extra },
    payloadHash,
    region: s.region,
    accessKeyId: s.accessKeyId,
    secretAccessKey: s.secretAccessKey,
    at,
  });
  return { url: `${endpoint.origin}${path}`, headers };
}

/** Objects in one bucket of an S3-compatible store. */
export class S3Store {
  readonly kind = 's3';

  constructor(private readonly s: S3Settings) {}

  /** A new key for an organisation's file (never reused). */
  newKey(orgId: number): string {
    return `attachments/${orgId}/${randomUUID()}`;
  }

  private async request(method: 'PUT' | 'GET' | 'DELETE', key: string, body: Buffer | null, extra: Record<string, string> = {}): Promise<Response> {
    const { url, headers } = signS3Request(this.s, method, key, body, new Date(), extra);
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: body ? new Uint8Array(body) : undefined, signal: AbortSignal.timeout(30_000) });
    } catch (err) {
      // the client learns that the store did not answer, not where it is or what it said
      throw new UpstreamError(503, 'attachment store', `no answer to ${method} (${(err as Error).name})`);
    }
    if (!res.ok && !(method === 'DELETE' && res.status === 404)) {
      await res.body?.cancel();
      throw new UpstreamError(res.status >= 500 ? 503 : 502, 'attachment store', `HTTP ${res.status} to ${method}`);
    }
    return res;
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.request('PUT', key, bytes, { 'content-type': contentType });
  }

  async get(key: string): Promise<Buffer> {
    return Buffer.from(await (await this.request('GET', key, null)).arrayBuffer());
  }

  async delete(key: string): Promise<void> {
    await (await this.request('DELETE', key, null)).body?.cancel();
  }
}
