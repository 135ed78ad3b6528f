import { z } from 'zod';
import { problemSchema } from './common.js';
import { EVENT_DATA_SCHEMAS, SUBJECTS, cloudEventSchema, eventType, streamForSubject, type Subject } from './events.js';
import { ROUTES, type RouteSpec } from './routes.js';
import { requiredScope } from './scopes.js';

/*
 * The published documents, generated from the contracts (never written by hand):
 * - `buildOpenApiDocument()`: OpenAPI 3.1.0 of every operation in ROUTES;
 * - `buildEventCatalogue()`: AsyncAPI 3.0.0 of every subject in SUBJECTS with its data schema.
 *
 * Schemas are converted with zod 4's `z.toJSONSchema`. Every schema with `.meta({ id })` becomes
 * a named component; when a component converts differently as input and as output (defaults,
 * transforms), the input variant is named `<Id>Input`.
 */

type Json = Record<string, unknown>;
type Io = 'input' | 'output';
type Target = 'draft-2020-12' | 'draft-07';

export const API_BASE_PATH = '/v1';

/** Media types a JSON request body is accepted as (DESIGN §2). */
export const JSON_REQUEST_MEDIA_TYPES = ['application/json', 'application/json-patch+json', 'text/json', 'application/*+json'] as const;
/** Media types a JSON response is offered as (DESIGN §2). */
export const JSON_RESPONSE_MEDIA_TYPES = ['application/json', 'text/json', 'text/plain'] as const;
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

// --- schema conversion -----------------------------------------------------------------------

interface Converted {
  root: Json;
  defs: Record<string, Json>;
}

/** Drops what every object schema of ours says needlessly: unknown fields are ignored, not refused. */
function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === 'additionalProperties' && v === false) continue;
      if (k === '$schema') continue;
      if (k === 'format' && v === 'base64') {
        out.contentEncoding = 'base64';
        continue;
      }
      out[k] = clean(v);
    }
    return out;
  }
  return node;
}

function rewriteRefs(node: unknown, rename: (id: string) => string, defsPrefix: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, rename, defsPrefix));
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(defsPrefix)) {
        out[k] = rename(decodeURIComponent(v.slice(defsPrefix.length)));
      } else out[k] = rewriteRefs(v, rename, defsPrefix);
    }
    return out;
  }
  return node;
}

function refsIn(node: unknown, defsPrefix: string, acc = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, defsPrefix, acc));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(defsPrefix)) acc.add(decodeURIComponent(v.slice(defsPrefix.length)));
      else refsIn(v, defsPrefix, acc);
    }
  }
  return acc;
}

/**
 * Converts many zod schemas into one set of named components. `use` registers a schema and
 * returns a function that yields its final JSON Schema (refs pointing into `componentPrefix`);
 * call `finish()` once every schema is registered.
 */
class SchemaCollector {
  private readonly cache = new Map<z.ZodType, Partial<Record<Io, Converted>>>();
  private readonly defs: Record<Io, Map<string, string>> = { input: new Map(), output: new Map() };
  private readonly pending: Array<() => void> = [];
  private renamedInputs = new Set<string>();
  private readonly defsPrefix: string;

  constructor(
    private readonly target: Target,
    private readonly componentPrefix: string,
  ) {
    this.defsPrefix = target === 'draft-07' ? '#/definitions/' : '#/$defs/';
  }

  private convert(schema: z.ZodType, io: Io): Converted {
    const entry = this.cache.get(schema) ?? {};
    const found = entry[io];
    if (found) return found;
    const raw = z.toJSONSchema(schema, { target: this.target, io, unrepresentable: 'any' }) as Json;
    const defsKey = this.target === 'draft-07' ? 'definitions' : '$defs';
    const defs = (raw[defsKey] ?? {}) as Record<string, Json>;
    const rootRaw: Json = { ...raw };
    delete rootRaw[defsKey];
    const converted: Converted = { root: clean(rootRaw) as Json, defs: {} };
    for (const [id, def] of Object.entries(defs)) {
      const json = clean(def) as Json;
      converted.defs[id] = json;
      const text = JSON.stringify(json);
      const seen = this.defs[io].get(id);
      if (seen !== undefined && seen !== text) {
        throw new Error(`Two different schemas carry the component id "${id}" (${io})`);
      }
      this.defs[io].set(id, text);
    }
    entry[io] = converted;
    this.cache.set(schema, entry);
    return converted;
  }

  /** Registers `schema` for `io`; the returned thunk gives its JSON Schema after `finish()`. */
  use(schema: z.ZodType, io: Io): () => Json {
    const converted = this.convert(schema, io);
    let result: Json | undefined;
    this.pending.push(() => {
      result = rewriteRefs(converted.root, (id) => this.refTo(id, io), this.defsPrefix) as Json;
    });
    return () => {
      if (!result) throw new Error('SchemaCollector.finish() has not run');
      return result;
    };
  }

  private componentName(id: string, io: Io): string {
    return io === 'input' && this.renamedInputs.has(id) ? `${id}Input` : id;
  }

  private refTo(id: string, io: Io): string {
    return `${this.componentPrefix}${encodeURIComponent(this.componentName(id, io))}`;
  }

  /** Resolves input/output naming and returns the named component schemas. */
  finish(): Record<string, Json> {
    const { input, output } = this.defs;
    const differing = new Set<string>();
    for (const [id, text] of input) if (output.has(id) && output.get(id) !== text) differing.add(id);
    // A component whose input form refers to a renamed one must be renamed too.
    let grew = true;
    while (grew) {
      grew = false;
      for (const [id, text] of input) {
        if (differing.has(id) || !output.has(id)) continue;
        if ([...refsIn(JSON.parse(text), this.defsPrefix)].some((r) => differing.has(r))) {
          differing.add(id);
          grew = true;
        }
      }
    }
    this.renamedInputs = differing;
    const components: Record<string, Json> = {};
    for (const io of ['output', 'input'] as const) {
      for (const [id, text] of this.defs[io]) {
        const name = this.componentName(id, io);
        if (components[name]) continue;
        components[name] = rewriteRefs(JSON.parse(text), (r) => this.refTo(r, io), this.defsPrefix) as Json;
      }
    }
    for (const run of this.pending) run();
    return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
  }
}

// --- OpenAPI ---------------------------------------------------------------------------------

const SCHEMA_PREFIX = '#/components/schemas/';

/** Hono `:id` → OpenAPI `{id}`, under `/v1`. */
export function openApiPath(route: Pick<RouteSpec, 'path'>): string {
  return API_BASE_PATH + route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

interface ErrorResponseDef {
  name: string;
  description: string;
  headers?: string[];
}

const ERROR_RESPONSES: Record<number, ErrorResponseDef> = {
  400: { name: 'BadRequest', description: 'Malformed JSON, or a query, path or body that fails its schema; errors[] names each field' },
  401: { name: 'Unauthorized', description: 'Missing, unknown, expired or revoked credential', headers: ['WWW-Authenticate'] },
  403: { name: 'Forbidden', description: 'The credential lacks the scope of the operation' },
  404: { name: 'NotFound', description: "No such resource in the caller's organisation" },
  406: { name: 'NotAcceptable', description: 'Accept excludes every media type the operation offers' },
  409: { name: 'Conflict', description: 'Duplicate document number, locked record, or the same Idempotency-Key still in flight' },
  413: { name: 'PayloadTooLarge', description: 'The request body exceeds the limit (1 MiB by default)' },
  415: { name: 'UnsupportedMediaType', description: 'The request body is not JSON (application/json, text/json, application/*+json)' },
  422: { name: 'UnprocessableContent', description: 'A valid shape breaking a business rule, or an Idempotency-Key reused with another request' },
  429: { name: 'TooManyRequests', description: 'Rate limit exceeded', headers: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] },
  502: { name: 'BadGateway', description: 'The owning service failed', headers: ['Retry-After'] },
  503: { name: 'ServiceUnavailable', description: 'The owning service is down', headers: ['Retry-After'] },
  504: { name: 'GatewayTimeout', description: 'The owning service did not answer in time', headers: ['Retry-After'] },
};

const HEADERS: Record<string, Json> = {
  'X-Request-Id': { description: 'Request id: the one sent, or one generated by the gateway', schema: { type: 'string' } },
  'Idempotent-Replayed': { description: 'true when the response is a replay of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
  'WWW-Authenticate': { description: 'Bearer challenge', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer', minimum: 0 } },
  Deprecation: { description: 'Present when the operation is deprecated (RFC 9745)', schema: { type: 'string' } },
  Sunset: { description: 'When a deprecated operation stops working (RFC 8594)', schema: { type: 'string' } },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The problem responses an operation can answer with. */
export function errorStatusesFor(route: RouteSpec): number[] {
  const statuses = new Set<number>([400, 401, 406, 429, 502, 503, 504]);
  if (!route.open) statuses.add(403);
  if (route.pathParams || route.path.includes(':')) statuses.add(404);
  // renderings run the organisation's template: a template over its limits is 422
  if (route.produces?.some((t) => t === 'text/html' || t === 'application/pdf')) statuses.add(422);
  if (route.method !== 'GET') {
    statuses.add(409);
    statuses.add(422);
    if (route.body) {
      statuses.add(413);
      statuses.add(415);
    }
  }
  return [...statuses].sort((a, b) => a - b);
}

function nonJsonSchema(mediaType: string): Json {
  if (mediaType === 'application/pdf') return { type: 'string', contentMediaType: 'application/pdf' };
  return { type: 'string', contentMediaType: mediaType };
}

/** Query or path parameters from the input JSON Schema of their object. */
function parametersFrom(objectSchema: Json, location: 'query' | 'path'): Json[] {
  const properties = (objectSchema.properties ?? {}) as Record<string, Json>;
  const required = new Set((objectSchema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, prop]) => {
    let schema: Json = { ...prop };
    const description = schema.description as string | undefined;
    delete schema.description;
    const param: Json = { name, in: location };
    if (description) param.description = description;
    param.required = location === 'path' || required.has(name);
    // A repeatable parameter (one value or an array) is documented as an exploded array.
    const anyOf = schema.anyOf as Json[] | undefined;
    const arrayForm = anyOf?.find((s) => s.type === 'array');
    if (anyOf && arrayForm) {
      schema = { ...arrayForm };
      param.style = 'form';
      param.explode = true;
    }
    param.schema = schema;
    return param;
  });
}

export interface OpenApiOptions {
  /**
   * Origin of the gateway, e.g. `https://api.example.com`. Paths carry the `/v1` prefix, so a
   * trailing `/v1` given here is dropped rather than doubled.
   */
  serverUrl?: string;
}

function serverOrigin(serverUrl: string | undefined): string {
  const url = (serverUrl ?? 'http://localhost:8080').replace(/\/+$/, '');
  return url.endsWith(API_BASE_PATH) ? url.slice(0, -API_BASE_PATH.length) || '/' : url;
}

/** The OpenAPI 3.1.0 document of the public interface, generated from ROUTES. */
export function buildOpenApiDocument(opts: OpenApiOptions = {}): Json {
  const collector = new SchemaCollector('draft-2020-12', SCHEMA_PREFIX);
  const problem = collector.use(problemSchema, 'output');

  interface PendingOperation {
    route: RouteSpec;
    pathParams?: () => Json;
    query?: () => Json;
    body?: () => Json;
    bodyRequired: boolean;
    response?: () => Json;
  }
  const pendingOps: PendingOperation[] = ROUTES.map((route) => ({
    route,
    pathParams: route.pathParams ? collector.use(route.pathParams, 'input') : undefined,
    query: route.query ? collector.use(route.query, 'input') : undefined,
    body: route.body ? collector.use(route.body, 'input') : undefined,
    bodyRequired: route.body ? !route.body.safeParse(undefined).success : false,
    response: route.response ? collector.use(route.response, 'output') : undefined,
  }));
  const schemas = collector.finish();

  const paths: Record<string, Record<string, Json>> = {};
  for (const op of pendingOps) {
    const { route } = op;
    const parameters: Json[] = [];
    const pathJson = op.pathParams?.();
    const declared = new Set(Object.keys((pathJson?.properties ?? {}) as Json));
    if (pathJson) parameters.push(...parametersFrom(pathJson, 'path'));
    for (const m of route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)) {
      if (!declared.has(m[1])) parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    }
    const queryJson = op.query?.();
    if (queryJson) parameters.push(...parametersFrom(queryJson, 'query'));
    if (route.method === 'POST' && !route.open) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    parameters.push({ $ref: '#/components/parameters/XRequestId' });

    const successHeaders: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
    if (route.method === 'POST' && !route.open) successHeaders['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
    const content: Json = {};
    const responseJson = op.response?.() ?? {};
    for (const mediaType of route.produces ?? ['application/json']) {
      if (mediaType === 'application/json') for (const t of JSON_RESPONSE_MEDIA_TYPES) content[t] = { schema: responseJson };
      else content[mediaType] = { schema: nonJsonSchema(mediaType) };
    }
    const status = String(route.successStatus ?? 200);
    const responses: Json = {
      [status]: {
        description: status === '202' ? 'Accepted' : 'Success',
        headers: successHeaders,
        content,
      },
    };
    for (const s of errorStatusesFor(route)) responses[String(s)] = { $ref: `#/components/responses/${ERROR_RESPONSES[s].name}` };

    const operation: Json = {
      operationId: route.operationId,
      summary: route.summary,
      description: [
        route.specNo ? `Spec endpoint #${route.specNo}.` : 'Extension (DESIGN §1).',
        route.open
          ? 'Open: no credential needed.'
          : route.operatorOnly
            ? 'Authorised only by the operator token.'
            : `Needs scope \`${requiredScope(route.scope, route.method)}\` (or \`admin\`).`,
      ].join(' '),
      tags: [route.tag],
      parameters,
      responses,
      'x-service': route.service,
    };
    if (route.specNo) operation['x-spec-endpoint'] = route.specNo;
    if (!route.open) {
      const scope = requiredScope(route.scope, route.method);
      operation['x-required-scope'] = route.operatorOnly ? 'operator' : scope;
      operation.security = route.operatorOnly ? [{ operatorToken: [] }] : [{ bearerAuth: [scope] }];
    }
    if (op.body) {
      const bodySchema = op.body();
      const bodyContent: Json = {};
      for (const t of JSON_REQUEST_MEDIA_TYPES) bodyContent[t] = { schema: bodySchema };
      for (const t of route.consumes ?? []) if (!bodyContent[t]) bodyContent[t] = { schema: bodySchema };
      operation.requestBody = { required: op.bodyRequired, content: bodyContent };
    }
    const path = openApiPath(route);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation;
  }

  const problemRef = problem();
  const responses: Json = {};
  for (const [status, def] of Object.entries(ERROR_RESPONSES)) {
    const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
    for (const h of def.headers ?? []) headers[h] = headerRef(h);
    responses[def.name] = {
      description: `${status}: ${def.description}`,
      headers,
      content: { [PROBLEM_MEDIA_TYPE]: { schema: problemRef } },
    };
  }

  const tags = [...new Set(ROUTES.map((r) => r.tag))].map((name) => ({ name }));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Ledgerline API',
      version: '1.0.0',
      summary: 'Accounting and invoicing: sales, purchase, finance, ledger and settings.',
      description: [
        'Every request needs `Authorization: Bearer <token>`, where the token is an API key or an access token from `POST /v1/oauth/token` (client credentials); GET needs `<area>:read`, other methods `<area>:write`, `admin` grants all.',
        'Request bodies are JSON (application/json, application/json-patch+json, text/json, application/*+json); JSON responses are offered as application/json, text/json and text/plain. Unknown fields are ignored; figures the server derives are ignored on input.',
        'Errors are RFC 9457 problem details (application/problem+json). Every POST accepts `Idempotency-Key` (24 h replay). Lists take `from` and `take` (at most 1000), `sort=field|-field` and `search`; ranges are written `v`, `[v;]`, `[;v]` or `[a;b]`.',
        'Versioning: the major version is in the path; within /v1 only additive changes are made; deprecations are announced with the Deprecation and Sunset headers.',
      ].join('\n\n'),
    },
    servers: [{ url: serverOrigin(opts.serverUrl), description: 'Gateway' }],
    tags,
    paths,
    components: {
      schemas,
      responses,
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Same key, query and body within 24 h replays the stored response; another query or body → 422; still in flight → 409',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
        XRequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description: 'Request id for tracing; generated when absent and returned on every response',
          schema: { type: 'string', maxLength: 200 },
        },
      },
      headers: HEADERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (ak_…) or an access token issued by POST /v1/oauth/token. The security requirement names the scope needed.',
        },
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The operator token (OPERATOR_TOKEN); only for POST /v1/admin/organisations',
        },
      },
    },
  };
}

// --- AsyncAPI --------------------------------------------------------------------------------

const ASYNC_SCHEMA_PREFIX = '#/components/schemas/';

function pascal(subject: string): string {
  return subject
    .split(/[._]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
}

export interface EventCatalogueOptions {
  /** NATS server shown in the catalogue (default localhost:4222). */
  natsHost?: string;
}

/**
 * The AsyncAPI 3.0.0 catalogue of the event subjects: each message is a CloudEvents 1.0 JSON
 * envelope whose `data` follows the subject's schema. Schemas are JSON Schema draft-07 (the
 * AsyncAPI schema format).
 */
export function buildEventCatalogue(opts: EventCatalogueOptions = {}): Json {
  const collector = new SchemaCollector('draft-07', ASYNC_SCHEMA_PREFIX);
  const envelope = collector.use(cloudEventSchema, 'output');
  const subjects = Object.values(SUBJECTS) as Subject[];
  const data = subjects.map((s) => ({ subject: s, schema: collector.use(EVENT_DATA_SCHEMAS[s], 'output') }));
  const schemas = collector.finish();
  schemas.CloudEvent = { ...envelope(), description: 'CloudEvents 1.0 envelope (structured JSON mode); extensions orgid and traceparent' };

  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  for (const { subject, schema } of data) {
    const key = pascal(subject);
    const dataSchema = schema();
    messages[key] = {
      name: subject,
      title: subject,
      contentType: 'application/json',
      headers: {
        type: 'object',
        properties: {
          'Nats-Msg-Id': { type: 'string', description: 'Equals the CloudEvents id; JetStream de-duplicates on it' },
          traceparent: { type: 'string', description: 'W3C trace context' },
        },
      },
      payload: {
        allOf: [
          { $ref: `${ASYNC_SCHEMA_PREFIX}CloudEvent` },
          {
            type: 'object',
            properties: { type: { const: eventType(subject) }, data: dataSchema },
            required: ['type', 'data'],
          },
        ],
      },
      'x-cloudevents-type': eventType(subject),
    };
    channels[key] = {
      address: subject,
      title: subject,
      description: `Stream ${streamForSubject(subject)}. Subjects carry the deployment prefix NATS_SUBJECT_PREFIX when set.`,
      messages: { [key]: { $ref: `#/components/messages/${key}` } },
    };
    operations[`publish${key}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${key}` },
      summary: `Published when ${subject.replace(/[._]/g, ' ')}`,
      messages: [{ $ref: `#/channels/${key}/messages/${key}` }],
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Ledgerline events',
      version: '1.0.0',
      description:
        'Events of the platform on NATS JetStream, one stream per owning service. Every message is a CloudEvents 1.0 JSON envelope; `type` is `com.ledgerline.<subject>.v1`, `orgid` names the organisation. Delivery is at least once: consumers de-duplicate by the event id.',
    },
    defaultContentType: 'application/json',
    servers: {
      nats: { host: opts.natsHost ?? 'localhost:4222', protocol: 'nats', description: 'NATS JetStream' },
    },
    channels,
    operations,
    components: { schemas, messages },
  };
}
