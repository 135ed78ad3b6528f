import { Hono, type Context } from 'hono';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AppError,
  MalformedRequestError,
  NotAcceptableError,
  NotFoundError,
  OverloadedError,
  PayloadTooLargeError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  internalProblem,
  toProblem,
} from '../errors.js';
import { JsonText } from '../json-text.js';
import { keepAnswerText } from './answer-text.js';
import { AnswerBuffers, answerAllocator } from './answer-buffers.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';
import { SpanKind, endSpan, startSpan, traceparentOf, withStatementsUnder } from '../tracing.js';
import { INTERNAL_HEADERS, type KitEnv } from './context.js';
import { isJsonContentType, negotiateJson } from './negotiation.js';
import { DEFAULT_FAILURE_LINES_PER_SECOND, FailureLines } from './failure-lines.js';
import { mapDriverError } from './driver-errors.js';
import { parseMultipart } from './multipart.js';
import { assertExactNumbers, assertStorableJson, assertStorablePath, assertStorableQuery, unstorableText } from './hostile-input.js';
import { AdmissionGate, type AdmissionOptions } from './admission.js';
import { standingLines } from './standing-lines.js';

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  metrics: MetricsRegistry;
  bodyLimit: number;
  /**
   * Readiness probes: name → check, each bounded to 2 s. /readyz answers 503 while any is false
   * (what the process needs to serve at all: for a service its database and NATS).
   */
  readiness?: Record<string, () => Promise<boolean>>;
  /**
   * Services this process depends on but can serve without (the gateway's upstreams): reported
   * by /readyz, which says `degraded` and names the ones down, still 200.
   */
  dependencies?: Record<string, () => Promise<boolean>>;
  /** Paths answered with their own media types (HTML, PDF, CSV); JSON negotiation skips them. */
  nonJsonPaths?: RegExp[];
  /** Paths that also accept `application/x-www-form-urlencoded` (kept as the raw string). */
  formBodyPaths?: RegExp[];
  /** Paths whose write requests may carry an XML document (application/xml, text/xml): the handler gets it as text. */
  xmlBodyPaths?: RegExp[];
  /**
   * Paths whose write requests carry a file (XML, text/plain or application/octet-stream): the
   * handler gets the bytes as they came (`input.raw`, a Buffer), to decode in the file's own charset.
   */
  fileBodyPaths?: RegExp[];
  /** Paths that take file uploads (`multipart/form-data`, and only that): the handler gets the parts (`MultipartBody`). */
  multipartBodyPaths?: RegExp[];
  /** The body limit of those paths (the largest file plus its form). */
  uploadLimit?: number;
  /** The gateway proxies bodies as they come: no parsing, no JSON negotiation. */
  proxy?: boolean;
  /** When set, `/v1` requests must carry it (proof they came through the gateway). */
  internalToken?: string;
  /** Services read the caller from internal headers; the gateway authenticates itself. */
  trustInternalHeaders: boolean;
  /** Share of requests written to the access log (0 none, 1 all); failures (5xx) always are. */
  accessLogSample?: number;
  /** Lines a second for each kind of failure (5xx), the rest counted in one line (`FailureLines`); 0 every line. */
  failureLinesPerSecond?: number;
  /**
   * Early load shedding of `/v1` requests that come over the network (`AdmissionGate`): how many
   * work at once and when a queued one is refused with 503 before anything is read or done.
   * Absent: every request is taken.
   */
  admission?: AdmissionOptions;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Marks answers built by `plainAnswer`. The request middleware leaves their headers alone:
 * touching them would turn the plain object into a Web `Headers`, which the server then copies
 * back into one. A property, not a WeakSet: the gateway marks every answer, and a WeakSet's entry
 * cost more.
 */
const CARRIES_REQUEST_ID = Symbol('carriesRequestId');

/** The process's buffers for large JSON answers (pages), one pool for every app it serves. */
const ANSWER_BUFFERS = new AnswerBuffers();

/**
 * An answer whose headers stay a plain object, written by the server as they are, with the
 * request's `x-request-id` among them (the middleware's job for any other answer): JSON answers,
 * problems, the gateway's forwarded answers. `headers` is taken over, not copied.
 */
export function plainAnswer(body: string | Buffer | null, status: number, headers: Record<string, string | string[]>, requestId: string | undefined): Response {
  if (requestId !== undefined) headers['x-request-id'] = requestId;
  const res = new Response(body, { status, headers: headers as Record<string, string> });
  if (requestId !== undefined) (res as Response & { [CARRIES_REQUEST_ID]?: true })[CARRIES_REQUEST_ID] = true;
  if (typeof body === 'string') keepAnswerText(res, body);
  return res;
}

export function problemResponse(c: Context, err: AppError | null): Response {
  const requestId = (c.get('requestId') as string | undefined) ?? undefined;
  const instance = new URL(c.req.url).pathname;
  const body = err ? toProblem(err, instance, requestId) : internalProblem(instance, requestId);
  // the log line of a failed request says why, as the client was told
  if (body.status >= 500) c.set('failure', { code: body.code, detail: body.detail });
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  if (err?.headers) Object.assign(headers, err.headers);
  return plainAnswer(JSON.stringify(body), body.status, headers, requestId);
}

/**
 * JSON response in the media type the client negotiated (application/json by default). A body
 * already serialised (`JsonText`, e.g. a posted document's view, written once for its event) is
 * sent as it is; a page of such texts as one buffer, encoded once (`JsonText.ofList`) into one of
 * the process's answer buffers, used again after the answer is sent (answer-buffers.ts).
 */
export function respond(c: Context, body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  const type = negotiateJson(c.req.header('accept')) ?? 'application/json';
  const payload = body instanceof JsonText ? body.answerBody(answerAllocator(ANSWER_BUFFERS, (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing)) : JSON.stringify(body);
  return plainAnswer(payload, status, { ...headers, 'content-type': `${type}; charset=utf-8` }, c.get('requestId') as string | undefined);
}

/**
 * The Hono app every process starts from: request ids, access logs and metrics, content
 * negotiation, body checks (415/413/400), caller context, health, readiness, metrics and the
 * single place where errors become problem+json.
 */
export function createHttpApp(opts: HttpAppOptions): Hono<KitEnv> {
  const app = new Hono<KitEnv>();
  const requests = opts.metrics.counter('http_requests_total', 'HTTP requests by method, route and status');
  const duration = opts.metrics.histogram('http_request_duration_seconds', 'HTTP request duration');
  const failures = new FailureLines(opts.logger, opts.failureLinesPerSecond ?? DEFAULT_FAILURE_LINES_PER_SECOND);
  const shed = opts.metrics.counter('http_requests_shed_total', 'Requests refused with 503 before any work, by why (queue_full, standing_queue, waited_too_long)');
  const stalls = opts.metrics.counter('http_request_queue_stalls_total', 'Intervals of a stall at the usual load (decisions 269, 270), whose queue was waited out rather than refused');
  const gate = opts.admission
    ? new AdmissionGate({
        ...opts.admission,
        onStall: () => stalls.inc(),
        onStanding: standingLines(opts.logger),
      })
    : null;
  const queueWait = opts.metrics.histogram('http_request_queue_wait_seconds', 'How long admitted requests waited for their turn');

  app.use('*', async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    c.set('requestId', requestId);
    c.set('log', opts.logger.child({ request_id: requestId }));
    const incomingTrace = c.req.header('traceparent') ?? null;
    const span = startSpan(`${c.req.method}`, SpanKind.SERVER, incomingTrace, { 'http.request.method': c.req.method, 'url.path': c.req.path, 'service.role': opts.service });
    c.set('traceparent', traceparentOf(span) ?? incomingTrace);
    const started = performance.now();
    let route = 'unmatched';
    try {
      await withStatementsUnder(span, next);
    } finally {
      route = c.req.routePath || 'unmatched';
      span.updateName(`${c.req.method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', c.res.status);
      endSpan(span, c.res.status >= 500 ? `HTTP ${c.res.status}` : undefined);
    }
    if (!(c.res as Response & { [CARRIES_REQUEST_ID]?: true })[CARRIES_REQUEST_ID]) c.res.headers.set('x-request-id', requestId);
    const seconds = (performance.now() - started) / 1000;
    requests.inc({ method: c.req.method, route, status: String(c.res.status) });
    duration.observe({ method: c.req.method, route }, seconds);
    const sample = opts.accessLogSample ?? 0;
    if (c.res.status >= 500 || (sample > 0 && (sample >= 1 || Math.random() < sample))) {
      // one line per request: what was asked, by whom, and how it went (never the body or a secret)
      const auth = c.get('auth');
      const line = {
        method: c.req.method,
        route,
        path: c.req.path,
        status: c.res.status,
        duration_ms: Math.round(seconds * 100_000) / 100,
        credential_id: auth?.credentialId ?? null,
        org_id: auth?.orgId ?? null,
      };
      if (c.res.status >= 500) {
        const problem = c.get('failure') ?? null;
        failures.write(c.get('log'), { method: line.method, route, status: line.status, code: problem?.code ?? null }, { ...line, problem });
      } else c.get('log').info('access', line);
    }
  });

  app.get('/healthz', (c) => c.json({ status: 'ok', service: opts.service }));
  app.get('/readyz', async (c) => {
    const run = async (probes: Record<string, () => Promise<boolean>> | undefined) => {
      const names = Object.keys(probes ?? {});
      // a probe that has not answered within its bound is down (a pool waiting for a connection would hold the check past the prober's timeout)
      const results = await Promise.all(names.map((n) => boundedProbe(probes![n])));
      return Object.fromEntries(names.map((n, i) => [n, results[i]])) as Record<string, boolean>;
    };
    const [checks, dependencies] = await Promise.all([run(opts.readiness), run(opts.dependencies)]);
    const ok = Object.values(checks).every(Boolean);
    const down = Object.keys(dependencies).filter((n) => !dependencies[n]);
    const status = !ok ? 'not_ready' : down.length ? 'degraded' : 'ready';
    const body: Record<string, unknown> = { status, service: opts.service, checks };
    if (opts.dependencies) Object.assign(body, { dependencies, down });
    return c.json(body, ok ? 200 : 503);
  });
  app.get('/metrics', (c) => c.body(opts.metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4' }));

  app.use('/v1/*', async (c, next) => {
    if (opts.proxy) return next();
    // only what came over the network queues: the process's own reads (a write's audit record
    // reads the resource through this app) run inside a request already admitted
    const fromNetwork = (c.env as { incoming?: unknown } | undefined)?.incoming !== undefined;
    const entry = gate && fromNetwork ? await gate.enter() : null;
    if (entry && !entry.admitted) {
      shed.inc({ reason: entry.reason });
      throw new OverloadedError(opts.service);
    }
    if (entry) {
      queueWait.observe({}, entry.waitedMs / 1000);
      c.set('awayFromGate', entry.away);
    }
    try {
      await admitted(c, next);
    } finally {
      entry?.leave();
    }
  });
  /** What a `/v1` request goes through once admitted: its path, media type, caller and body checked, then its handler. */
  const admitted = async (c: Context<KitEnv>, next: () => Promise<void>) => {
    const path = c.req.path;
    assertStorableQuery(c.req.url);
    assertStorablePath(new URL(c.req.url).pathname);
    const producesJson = !(opts.nonJsonPaths ?? []).some((re) => re.test(path));
    if (producesJson && negotiateJson(c.req.header('accept')) === null) throw new NotAcceptableError();

    if (opts.trustInternalHeaders) {
      if (opts.internalToken && c.req.header(INTERNAL_HEADERS.token) !== opts.internalToken) {
        throw new UnauthorizedError('Requests must come through the gateway', 'gateway_required');
      }
      const org = c.req.header(INTERNAL_HEADERS.orgId);
      if (org && /^\d+$/.test(org)) {
        c.set('auth', {
          orgId: Number(org),
          scopes: (c.req.header(INTERNAL_HEADERS.scopes) ?? '').split(' ').filter(Boolean),
          credentialId: c.req.header(INTERNAL_HEADERS.credentialId) ?? 'unknown',
          credentialType: (c.req.header(INTERNAL_HEADERS.credentialType) as 'api_key') ?? 'api_key',
        });
      }
    }

    if (WRITE_METHODS.has(c.req.method)) {
      const declared = Number(c.req.header('content-length') ?? '0');
      if (c.req.method === 'POST' && (opts.multipartBodyPaths ?? []).some((re) => re.test(path))) {
        const type = c.req.header('content-type') ?? '';
        if (!/^multipart\/form-data\s*(;|$)/i.test(type)) {
          throw new AppError(415, 'unsupported_media_type', 'Unsupported media type', `Content-Type ${type || '(none)'} is not accepted here; send the file as multipart/form-data`);
        }
        const limit = opts.uploadLimit ?? opts.bodyLimit;
        if (declared > limit) throw new PayloadTooLargeError(limit);
        c.set('body', await parseMultipart(await requestBody(c, limit), type));
        return next();
      }
      if (declared > opts.bodyLimit) throw new PayloadTooLargeError(opts.bodyLimit);
      const bytes = await requestBody(c, opts.bodyLimit);
      if (isFileContentType(c.req.header('content-type')) && (opts.fileBodyPaths ?? []).some((re) => re.test(path))) {
        c.set('body', bytes.length > 0 ? bytes : undefined);
        return next();
      }
      const raw = bytes.toString('utf8');
      if (raw.trim().length > 0) {
        const isForm = (c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
        if (isForm && (opts.formBodyPaths ?? []).some((re) => re.test(path))) {
          const why = unstorableText(decodeFormSafely(raw));
          if (why) throw new MalformedRequestError(`The form body ${why}`, 'invalid_body');
          c.set('body', raw);
          return next();
        }
        if (isXmlContentType(c.req.header('content-type')) && (opts.xmlBodyPaths ?? []).some((re) => re.test(path))) {
          const why = unstorableText(raw);
          if (why) throw new MalformedRequestError(`The XML body ${why}`, 'invalid_body');
          c.set('body', raw);
          return next();
        }
        if (!isJsonContentType(c.req.header('content-type'))) {
          throw new UnsupportedMediaTypeError(c.req.header('content-type') ?? '');
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          throw new MalformedRequestError('The request body is not valid JSON', 'malformed_json');
        }
        assertStorableJson(parsed);
        assertExactNumbers(raw, parsed);
        c.set('body', parsed);
      } else c.set('body', undefined);
    }
    await next();
  };

  app.notFound((c) => problemResponse(c, new NotFoundError(`No route for ${c.req.method} ${c.req.path}`, 'route_not_found')));
  app.onError(async (err, c) => {
    // the unit of work knows the request's transaction, and whether a lost connection ended it
    const mapped = err instanceof AppError ? err : mapDriverError((await c.get('explainFailure')?.(err)) ?? err);
    if (!mapped) {
      (c.get('log') ?? opts.logger).error('unhandled error', { err, method: c.req.method, path: c.req.path });
      return problemResponse(c, null);
    }
    return problemResponse(c, mapped);
  });
  return app;
}

/** How long a readiness probe may take before it counts as down: under the orchestrator's own probe timeout (1 s by default in Kubernetes is raised to 3 s in the manifests). */
const PROBE_TIMEOUT_MS = 2000;

async function boundedProbe(probe: () => Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([probe().catch(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), PROBE_TIMEOUT_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}

function isFileContentType(type: string | undefined): boolean {
  const t = (type ?? '').split(';')[0].trim().toLowerCase();
  return t === 'text/plain' || t === 'application/octet-stream' || isXmlContentType(t);
}

function isXmlContentType(type: string | undefined): boolean {
  const t = (type ?? '').split(';')[0].trim().toLowerCase();
  return t === 'application/xml' || t === 'text/xml' || /^application\/[\w.+-]+\+xml$/.test(t);
}

function decodeFormSafely(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** Bytes of an oversized body read and thrown away so that the client still receives its 413. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The request's body, counting bytes as they stream in: a body without Content-Length (chunked)
 * is refused with 413 as soon as it passes `limit`, never buffered whole. The rest of an oversized
 * body is read and dropped (up to 64 MB, kept in no buffer) before answering: cancelling the
 * stream would reset the connection before the 413 is written, and the client would see only a
 * broken socket. Past 64 MB the connection is cut.
 *
 * Read from Node's own request stream when the server is Node's (reading `Request.body` makes the
 * adapter build a Web Request and a ReadableStream around the socket first, a tenth of the
 * gateway's CPU per forwarded write), else from the Web Request.
 */
export function requestBody(c: Context, limit: number): Promise<Buffer> {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return Promise.resolve(Buffer.alloc(0));
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && typeof incoming.on === 'function') return readLimited(incoming, limit, incoming);
  const body = c.req.raw.body;
  return body ? readLimited(body as unknown as AsyncIterable<Uint8Array>, limit) : Promise.resolve(Buffer.alloc(0));
}

async function readLimited(stream: AsyncIterable<Uint8Array | string>, limit: number, incoming?: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      total += bytes.byteLength;
      if (total > limit) {
        // read on and drop; leaving the loop past the discard limit destroys the stream
        if (total > DISCARD_LIMIT_BYTES) break;
        continue;
      }
      chunks.push(bytes);
    }
  } catch (err) {
    if (total > limit) throw new PayloadTooLargeError(limit);
    // the client hung up before its body ended: its request, not our failure (nobody reads the answer)
    if (incoming?.aborted || (err as { code?: string }).code === 'ECONNRESET' || (err as Error).message === 'aborted') {
      throw new MalformedRequestError('The connection closed before the request body ended', 'body_incomplete');
    }
    throw err;
  }
  if (total > limit) throw new PayloadTooLargeError(limit);
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}
