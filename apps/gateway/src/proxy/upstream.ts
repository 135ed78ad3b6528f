import type { IncomingHttpHeaders } from 'node:http';
import type { Context } from 'hono';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import { OVERLOADED_HEADER, UpstreamError } from '@ledgerline/service-kit/errors';
import { INTERNAL_HEADERS, type AuthContext } from '@ledgerline/service-kit/http/context';
import { plainAnswer } from '@ledgerline/service-kit/http/app';
import type { UpstreamSet } from './upstream-set.js';

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host',
  'content-length',
  // the gateway answered it (Node sends 100 Continue) and reads the whole body before forwarding
  'expect',
]);

/**
 * The headers a message names in its `Connection` header, which are hop-by-hop too (RFC 9110
 * §7.6.1): null for the usual `keep-alive` or `close`, which name none.
 */
export function connectionListed(value: string | string[] | undefined): Set<string> | null {
  if (value === undefined || value === 'keep-alive' || value === 'close') return null;
  let listed: Set<string> | null = null;
  for (const token of (Array.isArray(value) ? value.join(',') : value).split(',')) {
    const name = token.trim().toLowerCase();
    if (name && name !== 'keep-alive' && name !== 'close') (listed ??= new Set()).add(name);
  }
  return listed;
}

export interface ForwardOptions {
  timeoutMs: number;
  internalToken?: string;
  requestId: string;
  /** The gateway's trace context for the request, passed on as `traceparent`. */
  traceparent?: string | null;
  auth?: AuthContext;
  operator?: boolean;
  /** Whether the Authorization header goes through (only to the token endpoint). */
  forwardAuthorization?: boolean;
  /** The request's body, read and limited by the caller (`requestBody`: 413 past the limit, chunked bodies too). */
  body?: Buffer;
  /** Headers the gateway adds to the service's answer (its rate headers); the request id goes in too. */
  answerHeaders: Record<string, string>;
  /** Until when (performance.now's clock) the request may wait in line for a replica with room (decision 259); at once by default. */
  roomDeadline?: number;
}

/**
 * The client's request headers as Node parsed them (lower-case names, repeated ones joined), read
 * straight from the socket's request: a Web `Headers` built from them costs more than forwarding.
 */
export function incomingHeaders(c: Context): IncomingHttpHeaders {
  const incoming = (c.env as { incoming?: { headers: IncomingHttpHeaders } } | undefined)?.incoming;
  if (incoming) return incoming.headers;
  const headers: IncomingHttpHeaders = {};
  c.req.raw.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/**
 * The path and query of a request's URL as the service gets them: node-server has already
 * normalised the URL (dot segments, encoding) wherever it needed it, so this is the URL's own
 * `pathname + search`, a fragment a client sent left off.
 */
export function pathAndQuery(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const fragment = url.indexOf('#', start);
  return fragment < 0 ? url.slice(start) : url.slice(start, fragment);
}

/** Connection failures where the request never reached the replica: any request may go to another. */
const NOT_DELIVERED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** Failures after the request may have been delivered: only a request that is safe to repeat goes to another. */
const DROPPED = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

/**
 * Sends the request on to a replica of the owning service with the verified caller in internal
 * headers (incoming copies of those headers are dropped first, so a client cannot forge them) and
 * returns its answer. A replica that cannot be reached is marked down and the request goes to the
 * next: always when the connection was refused (the request never arrived), and after a dropped
 * connection only when repeating it is safe (GET, PUT, DELETE, or a POST with an Idempotency-Key,
 * which the service answers once). A replica's early overload refusal (nothing done) goes to the
 * next replica with room too (decision 251). No replica reachable is 503, a slow one 504, anything
 * else 502.
 */
export async function forward(
  method: string,
  incoming: IncomingHttpHeaders,
  pathAndSearch: string,
  upstream: UpstreamSet,
  opts: ForwardOptions,
): Promise<Response> {
  const headers: Record<string, string | string[]> = {};
  const listed = connectionListed(incoming.connection);
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('x-ledgerline-') || listed?.has(name)) continue;
    if (name === 'authorization' && !opts.forwardAuthorization) continue;
    headers[name] = value;
  }
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

  const body = method !== 'GET' && method !== 'HEAD' ? opts.body : undefined;
  const keyed = method === 'POST' && headers['idempotency-key'] !== undefined;
  const repeatable = method !== 'POST' || keyed;
  const request = { path: pathAndSearch, method: method as Dispatcher.HttpMethod, headers, body, timeoutMs: opts.timeoutMs, roomDeadline: opts.roomDeadline ?? 0 };
  let { res, redelivered } = await deliver(upstream, request, repeatable);
  // A keyed POST this gateway sent again after a dropped connection can find the key still
  // locked by the dropped attempt: a replica killed mid-request holds it until Postgres ends its
  // session. That 409 is the gateway's own doing, not a concurrent request of the client's, so
  // it waits the lock out (bounded) instead of passing it on.
  const until = Date.now() + IN_FLIGHT_WAIT_MS;
  for (let pause = 50; redelivered && res.statusCode === 409; pause = Math.min(pause * 2, 400)) {
    const body = await wholeBody(res, upstream, request.timeoutMs);
    const inFlight = problemCode(body.toString('utf8')) === 'idempotency_key_in_flight';
    if (!inFlight || Date.now() + pause > until) return answer(res, body, opts);
    await new Promise((r) => setTimeout(r, pause));
    ({ res } = await deliver(upstream, request, repeatable));
  }
  return answer(res, await wholeBody(res, upstream, request.timeoutMs), opts);
}

/**
 * The answer's body read whole; a replica that fails or stalls mid-body is 502 or 504, as before
 * its headers. The body gets as long as the headers had (`timeoutMs`) in all: undici's
 * `bodyTimeout` bounds each pause between chunks, so a body that trickled in forever would hold
 * the request and its in-flight slot without this.
 */
async function wholeBody(res: Dispatcher.ResponseData, upstream: UpstreamSet, timeoutMs: number): Promise<Buffer> {
  let overdue = false;
  const deadline = setTimeout(() => {
    overdue = true;
    res.body.destroy();
  }, timeoutMs);
  try {
    return Buffer.from(await res.body.arrayBuffer());
  } catch (err) {
    if (overdue) throw new UpstreamError(504, upstream.service, `the answer did not finish within ${timeoutMs} ms`);
    if (err instanceof undiciErrors.BodyTimeoutError) throw new UpstreamError(504, upstream.service, 'the answer stopped arriving');
    throw new UpstreamError(502, upstream.service, 'the service failed to answer');
  } finally {
    clearTimeout(deadline);
  }
}

/** How long a re-sent keyed POST waits for the key's lock of the attempt that was dropped. */
export const IN_FLIGHT_WAIT_MS = 5_000;

function problemCode(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { code?: unknown }).code as string | undefined;
  } catch {
    return undefined;
  }
}

interface UpstreamRequest {
  path: string;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string | string[]>;
  body: Buffer | undefined;
  timeoutMs: number;
  /** Until when the request may wait for a replica with room. */
  roomDeadline: number;
}

/**
 * One request to the first replica that takes it; `redelivered` when a replica dropped the
 * connection after the request may have arrived and the next one was asked instead.
 */
async function deliver(upstream: UpstreamSet, request: UpstreamRequest, repeatable: boolean): Promise<{ res: Dispatcher.ResponseData; redelivered: boolean }> {
  let failure: UpstreamError | null = null;
  let redelivered = false;
  let replicas = upstream.order();
  // every replica at its limit: in line until the deadline (decision 259), then refused here,
  // before anything is sent (decision 243). Woken requests take the room before newcomers, but one
  // woken while the request read its body may find it gone again: it waits again in line.
  while (replicas.length === 0) {
    const room = upstream.waitForRoom(request.roomDeadline);
    if (room !== true && !(await room)) throw upstream.overloaded();
    replicas = upstream.order();
  }
  for (let i = 0; i < replicas.length; i++) {
    const replica = replicas[i];
    upstream.sent(replica);
    let outcome: 'overloaded' | 'answered' | 'failed' = 'failed';
    try {
      const res = await replica.pool.request({
        origin: replica.origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
      });
      upstream.markUp(replica);
      // the service's own early refusal says it is past its capacity (decision 243)
      outcome = res.statusCode === 503 && res.headers[OVERLOADED_HEADER] !== undefined ? 'overloaded' : 'answered';
      // refused before the replica read the request, so nothing was done: another replica with
      // room is asked (each at most once); the last refusal is the answer
      if (outcome === 'overloaded' && i < replicas.length - 1) {
        await res.body.dump();
        continue;
      }
      return { res, redelivered };
    } catch (err) {
      if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
        throw new UpstreamError(504, upstream.service, `no answer within ${request.timeoutMs} ms`);
      }
      const code = (err as { code?: string }).code ?? '';
      if (NOT_DELIVERED.has(code) || DROPPED.has(code)) {
        upstream.markDown(replica);
        failure = new UpstreamError(503, upstream.service, 'the service is not reachable');
        if (NOT_DELIVERED.has(code)) continue;
        if (!repeatable) throw failure;
        redelivered = true;
        continue;
      }
      throw new UpstreamError(502, upstream.service, 'the service failed to answer');
    } finally {
      // out of the replica's flight once it answered: the body follows its headers at once
      upstream.answered(replica, outcome);
    }
  }
  throw failure ?? new UpstreamError(503, upstream.service, 'the service is not reachable');
}

/**
 * The replica's answer as the gateway's, without the hop-by-hop headers, with the gateway's own
 * added (lower-case names, as undici gives the service's, so one of the gateway's replaces the
 * service's of the same name rather than being written beside it). The headers stay a plain
 * object, which the server writes as it is.
 */
function answer(res: Dispatcher.ResponseData, buf: Buffer, opts: ForwardOptions): Response {
  const out: Record<string, string | string[]> = {};
  const listed = connectionListed(res.headers.connection);
  for (const name in res.headers) {
    const value = res.headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name)) continue;
    out[name] = value;
  }
  Object.assign(out, opts.answerHeaders);
  return plainAnswer(res.statusCode === 204 || res.statusCode === 304 ? null : buf, res.statusCode, out, opts.requestId);
}
