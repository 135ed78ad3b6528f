import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { UpstreamError, INTERNAL_HEADERS, readBodyLimited, type AuthContext } from '@ledgerline/service-kit';

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host',
  'content-length',
]);

export interface ForwardOptions {
  service: string;
  pool: Dispatcher;
  timeoutMs: number;
  internalToken?: string;
  requestId: string;
  /** The gateway's trace context for the request, passed on as `traceparent`. */
  traceparent?: string | null;
  auth?: AuthContext;
  operator?: boolean;
  /** Whether the Authorization header goes through (only to the token endpoint). */
  forwardAuthorization?: boolean;
  /** Largest body passed on; counted as it streams, so chunked bodies are bounded too (413). */
  bodyLimit: number;
}

export function createPool(url: string): Pool {
  return new Pool(url, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 });
}

/**
 * Sends the request on to the owning service with the verified caller in internal headers
 * (incoming copies of those headers are dropped first, so a client cannot forge them) and
 * streams the answer back. A refused connection is 503, a slow service 504, anything else 502.
 */
export async function forward(req: Request, url: URL, opts: ForwardOptions): Promise<Response> {
  const headers: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    const n = name.toLowerCase();
    if (HOP_BY_HOP.has(n) || n.startsWith('x-ledgerline-')) return;
    if (n === 'authorization' && !opts.forwardAuthorization) return;
    headers[n] = value;
  });
  headers['x-request-id'] = opts.requestId;
  // the service's span is a child of the gateway's (or of the client's when tracing is off)
  if (opts.traceparent) headers.traceparent = opts.traceparent;
  if (opts.auth) {
    headers[INTERNAL_HEADERS.orgId] = String(opts.auth.orgId);
    headers[INTERNAL_HEADERS.scopes] = opts.auth.scopes.join(' ');
    headers[INTERNAL_HEADERS.credentialId] = opts.auth.credentialId;
    headers[INTERNAL_HEADERS.credentialType] = opts.auth.credentialType;
  }
  if (opts.operator) headers[INTERNAL_HEADERS.credentialType] = 'operator';
  if (opts.internalToken) headers[INTERNAL_HEADERS.token] = opts.internalToken;

  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.body !== null;
  const body = hasBody ? await readBodyLimited(req, opts.bodyLimit) : undefined;
  let res: Dispatcher.ResponseData;
  try {
    res = await opts.pool.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: req.method as Dispatcher.HttpMethod,
      headers,
      body,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  } catch (err) {
    if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
      throw new UpstreamError(504, opts.service, `no answer within ${opts.timeoutMs} ms`);
    }
    const code = (err as { code?: string }).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'ENOTFOUND') {
      throw new UpstreamError(503, opts.service, 'the service is not reachable');
    }
    throw new UpstreamError(502, opts.service, 'the service failed to answer');
  }
  const out = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (HOP_BY_HOP.has(name.toLowerCase()) || value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) out.append(name, v);
    else out.set(name, value);
  }
  const buf = Buffer.from(await res.body.arrayBuffer());
  return new Response(res.statusCode === 204 || res.statusCode === 304 ? null : buf, { status: res.statusCode, headers: out });
}
