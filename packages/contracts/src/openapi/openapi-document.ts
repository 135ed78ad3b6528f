import { problemSchema } from '../common.js';
import { ROUTES, type RouteSpec } from '../routes.js';
import { SCOPES, requiredScope } from '../scopes.js';
import { OPERATION_EXAMPLES } from './examples.js';
import { API_BASE_PATH, type Json, PROBLEM_MEDIA_TYPE, SchemaCollector } from './json-schema.js';

/* The OpenAPI 3.1.0 document of every operation in ROUTES. */

/**
 * Each tag in the order a user meets the API (the reference page lists them so): selling first,
 * then buying, the bank, the books and reports, and the settings and credentials last; with a
 * line saying what it is for.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Invoices: 'Sales invoices: create (numbered and posted at once), read, list, render as HTML or PDF',
  'Credit notes': 'Sales credit notes against an invoice: create, read, list, render; check a number',
  Items: 'The catalogue of items and their sales rates',
  Contacts:
    "The directory of customers and vendors documents name by contact_id, with its identifiers checked (IČO, DIČ, IBAN), filled from ARES and checked in VIES and the Czech VAT payers' register; the contacts scope",
  Numbering: 'Numbering series of sales documents and their masks',
  'Audit trail': 'Every write made through the API, hash-chained per organisation in the service that made it',
  'Payment reminders': 'Overdue invoices reminded level by level, with late-payment interest at the statutory rate',
  'Advance invoices': 'Proforma invoices asking for payment in advance, the tax documents a VAT payer issues on their payments, and the final invoice that deducts them (`advances`)',
  'Recurring invoices': 'Invoices the service issues every period from a template, each period exactly once',
  'E-invoices': 'Invoices and credit notes as Peppol BIS Billing 3.0 (UBL 2.1) and ISDOC 6.0.2 documents, and received ones imported as bills',
  'E-mail': 'Sending invoices by e-mail, and the e-mail log',
  Compliance: 'Whether and how invoices must be delivered or reported (e-invoicing mandates)',
  'Vendor bills': 'Bills received from vendors',
  'Vendor credits': 'Credits received from vendors against a bill',
  Inventory: 'Received purchase documents for inventory systems (JSON or CSV)',
  'Bank statements': 'Bank statement files (ISO 20022 camt.053, GPC/ABO, MT940) imported whole: balances reconciled, entries matched to invoices by variable symbol, reference or amount',
  'Bank transactions': 'Bank transactions, matched to the documents they pay',
  Payouts: 'Payouts of payment providers: many payments and fees in one bank transfer',
  'Payment orders': "Vendor bills paid in one batch: the bank's file as ISO 20022 pain.001.001.03 or the Czech ABO, cleared by the statement's payments",
  Ledger: 'The general ledger the posted documents build, and its chart of accounts',
  'Fixed assets': 'The register of fixed assets, their Czech tax depreciation (§31/§32) and the monthly accounting depreciation posted as journal entries',
  'Journal entries': 'Manual journal entries posted straight to the ledger (opening balances, accruals and their reversal, depreciation, corrections), and the closing of a year',
  Reporting: 'Trial balance (JSON or CSV), the profit and loss account, the balance sheet, the VAT return, the VAT control statement, the EC Sales List, aged receivables and payables, customer statements',
  Organisation: 'The organisation profile (issuer of its documents)',
  'Exchange rates': "The organisation's table of exchange rates into its legal currency: the Czech National Bank's or the ECB's, imported, or set by hand",
  'Repo rates': "The Czech National Bank's two-week repo-rate history statutory late-payment interest is computed from: shipped, imported from the bank's file, fetched, or set by hand",
  Templates: 'Document templates for HTML and PDF rendering',
  'Delivery conditions': 'Incoterms 2020 delivery conditions',
  Integrations: 'Hosting-provider and bank integrations',
  Webhooks: "Signed HTTPS deliveries of the organisation's events (Standard Webhooks)",
  'API keys': 'API keys of the organisation and their scopes',
  'API clients': 'OAuth 2 client credentials and access tokens',
};

// --- OpenAPI ---------------------------------------------------------------------------------

export const SCHEMA_PREFIX = '#/components/schemas/';

/** Hono `:id` → OpenAPI `{id}`, under `/v1`. */
export function openApiPath(route: Pick<RouteSpec, 'path'>): string {
  return API_BASE_PATH + route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

export interface ErrorResponseDef {
  name: string;
  description: string;
  headers?: string[];
}

export const ERROR_RESPONSES: Record<number, ErrorResponseDef> = {
  400: { name: 'BadRequest', description: 'Malformed JSON, or a query, path or body that fails its schema or carries a field the operation does not know; errors[] names each field' },
  401: { name: 'Unauthorized', description: 'Missing, unknown, expired or revoked credential', headers: ['WWW-Authenticate'] },
  403: { name: 'Forbidden', description: 'The credential lacks the scope of the operation' },
  404: { name: 'NotFound', description: "No such resource in the caller's organisation" },
  406: { name: 'NotAcceptable', description: 'Accept excludes every media type the operation offers' },
  409: { name: 'Conflict', description: "Duplicate document number, locked record, a date in a closed period (`period_locked`: on or before the organisation's lock_date), or the same Idempotency-Key still in flight" },
  413: { name: 'PayloadTooLarge', description: 'The request body exceeds the limit (1 MiB by default)' },
  415: { name: 'UnsupportedMediaType', description: 'The request body is not JSON (application/json, text/json, application/*+json)' },
  422: { name: 'UnprocessableContent', description: 'A valid shape breaking a business rule, or an Idempotency-Key reused with another request' },
  429: { name: 'TooManyRequests', description: 'Rate limit exceeded', headers: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] },
  502: { name: 'BadGateway', description: 'The owning service failed', headers: ['Retry-After'] },
  503: {
    name: 'ServiceUnavailable',
    description:
      'The owning service or its database cannot be reached, the database cannot take writes now, or the service is past its capacity and refused the request before reading it. `service_unavailable`: nothing was done, send it again after Retry-After. `commit_outcome_unknown` (writes): the database connection went while the write was being committed, so it may have been made; send it again with the same Idempotency-Key, or look it up before sending it again',
    headers: ['Retry-After'],
  },
  504: { name: 'GatewayTimeout', description: 'The owning service did not answer in time', headers: ['Retry-After'] },
};

export const HEADERS: Record<string, Json> = {
  'X-Request-Id': { description: 'Request id: the one sent, or one generated by the gateway', schema: { type: 'string' } },
  'Idempotent-Replayed': { description: 'true when the response is a replay of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
  'WWW-Authenticate': { description: 'Bearer challenge', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer', minimum: 0 } },
};
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The problem responses an operation can answer with. */
export function errorStatusesFor(route: RouteSpec): number[] {
  const statuses = new Set<number>([400, 401, 406, 429, 502, 503, 504]);
  if (!route.open) statuses.add(403);
  if (route.pathParams || route.path.includes(':')) statuses.add(404);
  // renderings run the organisation's template: a template over its limits is 422
  if (route.produces?.some((t) => t === 'text/html' || t === 'application/pdf' || t === 'application/xml')) statuses.add(422);
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

export function nonJsonSchema(mediaType: string): Json {
  // a PDF is bytes (generators make it a file); HTML and CSV are text
  if (mediaType === 'application/pdf') return { type: 'string', format: 'binary' };
  return { type: 'string' };
}

/** Query or path parameters from the input JSON Schema of their object. */
export function parametersFrom(objectSchema: Json, location: 'query' | 'path'): Json[] {
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

/**
 * The server of the document: the configured public origin, else `/`, relative to where the
 * document was fetched, so "Try it" calls the host the reader's browser used (localhost,
 * 127.0.0.1 or a proxy) and never trips over CORS.
 */
export function serverOrigin(serverUrl: string | undefined): string {
  if (!serverUrl) return '/';
  const url = serverUrl.replace(/\/+$/, '');
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
    const example = OPERATION_EXAMPLES[route.operationId];
    for (const mediaType of route.produces ?? ['application/json']) {
      // documented as application/json only (generators pick it); text/json and text/plain are still served on request
      if (mediaType === 'application/json') content[mediaType] = { schema: responseJson, ...(example?.response !== undefined && { example: example.response }) };
      else content[mediaType] = { schema: nonJsonSchema(mediaType), ...(example?.responseText?.mediaType === mediaType && { example: example.responseText.text }) };
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
      // an API key (bearer), or an access token of an API client granted the scope (OAuth2)
      operation.security = route.operatorOnly ? [{ operatorToken: [] }] : [{ apiKey: [] }, { oauth2: [scope] }];
    } else operation.security = [];
    if (op.body) {
      const bodySchema = op.body();
      const bodyContent: Json = {};
      // application/json is the documented type (generators send what is listed); the other JSON
      // types the API accepts are named in the description, not listed, so no client picks `application/*+json`
      for (const t of route.consumes ?? ['application/json']) {
        const bodyExample = t === 'application/json' ? example?.request : example?.requestText?.mediaType === t ? example.requestText.text : undefined;
        bodyContent[t] = { schema: bodySchema, ...(bodyExample !== undefined && { example: bodyExample }) };
      }
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

  // in the order a user meets them (TAG_DESCRIPTIONS), a tag it does not list after them
  const used = new Set(ROUTES.map((r) => r.tag));
  const tags = [...Object.keys(TAG_DESCRIPTIONS).filter((t) => used.has(t)), ...[...used].filter((t) => !(t in TAG_DESCRIPTIONS))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] }));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Ledgerline API',
      version: '1.0.0',
      summary: 'Accounting and invoicing: sales, purchase, finance, ledger and settings.',
      contact: { name: 'Ledgerline', url: 'https://github.com/ledgerline/ledgerline' },
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description: [
        'Every request needs `Authorization: Bearer <token>`, where the token is an API key or an access token from `POST /v1/oauth/token` (client credentials); GET needs `<area>:read`, other methods `<area>:write`, `admin` grants all.',
        'Request bodies are JSON: send `Content-Type: application/json` (application/json-patch+json, text/json and application/*+json are accepted too). JSON responses are application/json (text/json and text/plain on request through Accept). A field or query parameter an operation does not know is refused (400 `validation_error`, each named in errors[] with code `unrecognized_keys`); the fields of the resource as the operation answers it (ids, figures the server derives, timestamps) are accepted and ignored, so a resource read can be sent back.',
        'Money on the wire: amounts are JSON numbers in the currency\'s units with at most 2 decimals (rates and quantities up to 6), |amount| ≤ 10¹³, rounded half away from zero by the server; a number with more than 15 significant digits cannot be carried exactly by a JSON number and is refused (400 `inexact_number`) rather than rounded. Stored figures are decimals (never binary floating point).',
        'Errors are RFC 9457 problem details (application/problem+json). A client has 10 s to send a request\'s headers and 60 s to send the whole request, body included (the defaults); past either it is answered 408 `request_timeout` and the connection is closed. Every POST accepts `Idempotency-Key` (24 h replay): it makes every request safe to send again, even after a 503 `commit_outcome_unknown`. Lists take `from` and `take` (at most 1000), `sort=field|-field` and `search`; ranges are written `v`, `[v;]`, `[;v]` or `[a;b]`.',
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
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (ak_…) as a bearer token. The key must hold the scope the operation names in x-required-scope (or admin).',
        },
        oauth2: {
          type: 'oauth2',
          description: 'An access token of an API client (POST /v1/settings/security/clients), obtained with the client credentials grant and sent as a bearer token.',
          flows: {
            clientCredentials: {
              tokenUrl: '/v1/oauth/token',
              scopes: Object.fromEntries(SCOPES.map((s) => [s, s === 'admin' ? 'Everything' : `${s.endsWith(':read') ? 'Read' : 'Change'} ${s.split(':')[0]}`])),
            },
          },
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
