import { describe, expect, it } from 'vitest';
import { SUBJECTS, eventType, organisationSubjects, splitTenantSubject, tenantSubject } from './events.js';
import { buildEventCatalogue, buildOpenApiDocument, errorStatusesFor, openApiPath } from './openapi.js';
import { ROUTES } from './routes.js';
import { SCOPES } from './scopes.js';
import { actRowSchema, transactionRowSchema, transactionTaxPostingSchema } from './accounting.js';

type Json = Record<string, any>;

const doc = buildOpenApiDocument({ serverUrl: 'https://api.example.test' }) as Json;
const operations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
);

function resolve(root: Json, ref: string): any {
  expect(ref.startsWith('#/')).toBe(true);
  return ref
    .slice(2)
    .split('/')
    .reduce((node: any, part) => node?.[decodeURIComponent(part)], root);
}

function allRefs(node: unknown, acc: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => allRefs(n, acc));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') acc.push(v);
      else allRefs(v, acc);
    }
  }
  return acc;
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1.0 and survives a JSON round trip', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    expect(doc.servers[0].url).toBe('https://api.example.test');
  });

  it('does not double /v1 when the server URL already ends with it', () => {
    const withBase = buildOpenApiDocument({ serverUrl: 'https://api.example.test/v1/' }) as Json;
    expect(withBase.servers[0].url).toBe('https://api.example.test');
    expect(Object.keys(withBase.paths).every((p) => p.startsWith('/v1/'))).toBe(true);
  });

  it('covers the 26 spec endpoints, each once', () => {
    const specNos = operations.map((o) => o.op['x-spec-endpoint']).filter((n) => n !== undefined);
    expect([...specNos].sort((a, b) => a - b)).toEqual(Array.from({ length: 26 }, (_, i) => i + 1));
  });

  it('has an operation for every ROUTES entry, under /v1 with {param} syntax', () => {
    expect(operations).toHaveLength(ROUTES.length);
    for (const route of ROUTES) {
      const path = openApiPath(route);
      expect(path.startsWith('/v1/')).toBe(true);
      expect(path).not.toContain(':');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${path}`).toBeDefined();
      expect(op.operationId).toBe(route.operationId);
    }
    expect(new Set(operations.map((o) => o.op.operationId)).size).toBe(operations.length);
  });

  it('gives every route its schemas', () => {
    for (const route of ROUTES) {
      expect(route.response, route.operationId).toBeDefined();
      if (route.path.includes(':')) expect(route.pathParams, route.operationId).toBeDefined();
      // actions on a resource (revoke, rotate-secret, retry, unmatch, reopen, pause, resume, cancel, sent, fetch) take no body
      if ((route.method === 'POST' || route.method === 'PUT') && !/\/(revoke|rotate-secret|retry|unmatch|reopen|pause|resume|cancel|sent|fetch)$/.test(route.path)) expect(route.body, route.operationId).toBeDefined();
    }
  });

  it('declares every path parameter', () => {
    for (const { path, op } of operations) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters as Json[]).filter((p) => p.in === 'path').map((p) => p.name);
      expect(declared.sort()).toEqual(names.sort());
      for (const p of (op.parameters as Json[]).filter((p) => p.in === 'path')) expect(p.required).toBe(true);
    }
  });

  it('secures every operation except the open ones', () => {
    for (const route of ROUTES) {
      const op = doc.paths[openApiPath(route)][route.method.toLowerCase()];
      if (route.open) {
        // explicitly open (linters flag an operation that merely leaves security out)
        expect(op.security).toEqual([]);
      } else {
        expect(op.security?.length, route.operationId).toBeGreaterThan(0);
        for (const requirement of op.security) for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes[scheme]).toBeDefined();
      }
    }
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.oauth2).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/v1/oauth/token' } } });
    expect(Object.keys(doc.components.securitySchemes.oauth2.flows.clientCredentials.scopes).sort()).toEqual([...SCOPES].sort());
  });

  it('names the scope an operation needs', () => {
    const op = doc.paths['/v1/sales/credit-notes'].post;
    // an API key (which carries its scopes) or an OAuth2 access token with the scope; scopes sit on the oauth2 scheme only
    expect(op.security).toEqual([{ apiKey: [] }, { oauth2: ['sales:write'] }]);
    expect(op['x-required-scope']).toBe('sales:write');
    expect(doc.paths['/v1/finance/payouts'].get.security).toEqual([{ apiKey: [] }, { oauth2: ['finance:read'] }]);
  });

  it('documents problem+json error responses on every operation', () => {
    for (const route of ROUTES) {
      const op = doc.paths[openApiPath(route)][route.method.toLowerCase()];
      const statuses = Object.keys(op.responses).map(Number);
      expect(statuses).toEqual(expect.arrayContaining([400, 401, 406, 429, 502, 503, 504]));
      if (!route.open) expect(statuses).toContain(403);
      if (route.method !== 'GET') expect(statuses).toEqual(expect.arrayContaining([409, 422]));
      if (route.body) expect(statuses).toEqual(expect.arrayContaining([413, 415]));
      if (route.path.includes(':')) expect(statuses).toContain(404);
      expect(statuses.sort()).toEqual([Number(route.successStatus ?? 200), ...errorStatusesFor(route)].sort());
      for (const status of errorStatusesFor(route)) {
        const response = resolve(doc, op.responses[String(status)].$ref);
        expect(response.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
      }
    }
    expect(doc.components.schemas.Problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'code']));
  });

  it('answers 202 for the compliance evaluation and 200 otherwise', () => {
    expect(Object.keys(doc.paths['/v1/sales/invoices/compliance/evaluate'].post.responses)).toContain('202');
    expect(Object.keys(doc.paths['/v1/sales/credit-notes'].post.responses)).toContain('200');
  });

  it('documents JSON answers as application/json, and the other types as declared (a PDF as binary)', () => {
    const ok = doc.paths['/v1/sales/credit-notes'].post.responses['200'].content;
    expect(Object.keys(ok)).toEqual(['application/json']);
    expect(ok['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreditNote' });
    expect(Object.keys(doc.paths['/v1/sales/credit-notes/{id}/html'].get.responses['200'].content)).toEqual(['text/html']);
    expect(doc.paths['/v1/sales/invoices/{id}/pdf'].get.responses['200'].content).toEqual({ 'application/pdf': { schema: { type: 'string', format: 'binary' } } });
    expect(Object.keys(doc.paths['/v1/inventory/in/export/{format}'].get.responses['200'].content)).toContain('text/csv');
  });

  it('documents request bodies as application/json, so generated clients send it (the other JSON types are accepted, and said in prose)', () => {
    const body = doc.paths['/v1/sales/credit-notes'].post.requestBody;
    expect(body.required).toBe(true);
    expect(Object.keys(body.content)).toEqual(['application/json']);
    for (const { op } of operations) if (op.requestBody) expect(Object.keys(op.requestBody.content)).not.toContain('application/*+json');
    expect(Object.keys(doc.paths['/v1/oauth/token'].post.requestBody.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(doc.info.description).toMatch(/application\/\*\+json are accepted too/);
    expect(body.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreditNoteRequest' });
  });

  it('takes Idempotency-Key on authenticated POSTs and X-Request-Id everywhere', () => {
    for (const { method, op } of operations) {
      const refs = (op.parameters as Json[]).map((p) => p.$ref);
      expect(refs).toContain('#/components/parameters/XRequestId');
      if (method === 'post' && op.security.length) expect(refs).toContain('#/components/parameters/IdempotencyKey');
    }
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
  });

  it('speaks to API users: no internal references, every tag described, a licence and a contact, a relative server', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/Spec endpoint|architecture §|spec §|\(extension\)/);
    for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/\w{4}/);
    expect(new Set(doc.tags.map((t: Json) => t.name))).toEqual(new Set(ROUTES.map((r) => r.tag)));
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    expect(doc.info.contact.url).toMatch(/^https:/);
    expect((buildOpenApiDocument() as Json).servers).toEqual([{ url: '/', description: 'Gateway' }]);
    expect((buildOpenApiDocument({ serverUrl: 'https://api.example.com/v1' }) as Json).servers[0].url).toBe('https://api.example.com');
    expect(doc.info.description).toMatch(/Money on the wire/);
  });

  it('documents repeatable query parameters as exploded arrays', () => {
    const params = doc.paths['/v1/finance/payouts'].get.parameters as Json[];
    const psp = params.find((p) => p.name === 'psp_object_id');
    expect(psp).toMatchObject({ in: 'query', style: 'form', explode: true, schema: { type: 'array' } });
    const take = params.find((p) => p.name === 'take');
    expect(take?.schema).toMatchObject({ type: 'integer', maximum: 1000, default: 100 });
  });

  it('resolves every $ref', () => {
    for (const ref of allRefs(doc)) expect(resolve(doc, ref), ref).toBeDefined();
  });

  it('documents the limits of the spec in the schemas', () => {
    const s = doc.components.schemas;
    const country = s.Address.properties.country.anyOf.find((x: Json) => x.type === 'string');
    expect(country.maxLength).toBe(2);
    expect(s.ComplianceEvaluateRequest).toMatchObject({ type: 'array', minItems: 1, maxItems: 1000, items: { type: 'integer' } });
    expect(s.VendorCreditRequest.required).toContain('type');
    expect(s.PayoutRequest.required).toContain('currency');
    expect(s.BankIntegrationRequest.required).toContain('type');
    expect(s.HostingIntegrationRequest.required).toEqual(expect.arrayContaining(['config', 'source']));
    expect(s.TrialBalanceColumn.properties.key.enum).toContain('gl_account.number');
  });
});

describe('ledger arrays (which one to sum)', () => {
  it('says rows are the postings to sum and act_rows and taxes restate them, with a consistent example', () => {
    const t = doc.components.schemas.AccountingTransaction;
    expect(t.description).toMatch(/Sum `rows` only/);
    const { rows, act_rows: actRows, taxes } = t.properties;
    expect(rows.description).toMatch(/This is the array to sum/);
    expect(actRows.description).toMatch(/never add them to rows/);
    expect(taxes.description).toMatch(/subset of rows.*never add them to rows/);
    const sum = (xs: Array<{ debit: number; credit: number }>, k: 'debit' | 'credit') => xs.reduce((a, x) => a + x[k] * 100, 0) / 100;
    const [r] = rows.examples;
    const [a] = actRows.examples;
    const [x] = taxes.examples;
    expect(sum(r, 'debit')).toBe(298);
    expect(sum(r, 'credit')).toBe(298);
    expect([sum(a, 'debit'), sum(a, 'credit')]).toEqual([298, 298]);
    for (const tax of x) expect(r.map(({ id, debit, credit, gl_account }: Json) => ({ id, debit, credit, gl_account }))).toContainEqual(tax);
    for (const row of r) expect(transactionRowSchema.safeParse(row).success).toBe(true);
    for (const row of a) expect(actRowSchema.safeParse(row).success).toBe(true);
    for (const row of x) expect(transactionTaxPostingSchema.safeParse(row).success).toBe(true);
    // a client that adds all three arrays would double the figures
    expect(sum([...r, ...a, ...x], 'credit')).toBeGreaterThan(2 * 298);
  });
});

describe('tenant subjects', () => {
  it('every catalogue subject has three tokens, so `<area>.*.*.<org>` selects all of one organisation', () => {
    for (const s of Object.values(SUBJECTS)) expect(s.split('.'), s).toHaveLength(3);
  });

  it('a published subject splits into its catalogue subject and organisation; one without an organisation does not', () => {
    expect(tenantSubject(SUBJECTS.salesInvoicePosted, 42)).toBe('sales.invoice.posted.42');
    expect(splitTenantSubject('sales.invoice.posted.42')).toEqual({ subject: 'sales.invoice.posted', orgId: 42 });
    for (const bad of ['sales.invoice.posted', 'sales.invoice.posted.0', 'sales.invoice.posted.-1', 'sales.invoice.posted.4x', 'sales.invoice.posted.12345678901234567']) {
      expect(splitTenantSubject(bad), bad).toBeNull();
    }
    expect(organisationSubjects('sales', 42)).toBe('sales.*.*.42');
  });
});

describe('event catalogue', () => {
  const cat = buildEventCatalogue() as Json;

  it('is AsyncAPI 3.0.0 with a channel, an operation and a message per subject', () => {
    expect(cat.asyncapi).toBe('3.0.0');
    const addresses = Object.values(cat.channels as Json).map((c: Json) => c.address);
    // the organisation is the last token of every address, a declared channel parameter
    expect(addresses.sort()).toEqual(Object.values(SUBJECTS).map((s) => `${s}.{orgId}`).sort());
    for (const channel of Object.values(cat.channels as Json)) expect(channel.parameters.orgId.description).toMatch(/organisation/);
    expect(Object.keys(cat.operations)).toHaveLength(Object.values(SUBJECTS).length);
    for (const message of Object.values(cat.components.messages as Json)) {
      expect(message.payload.allOf[0]).toEqual({ $ref: '#/components/schemas/CloudEvent' });
      expect(message.payload.allOf[1].properties.type.const).toBe(eventType(message.name));
      expect(message.payload.allOf[1].properties.data).toBeDefined();
    }
  });

  it('carries the CloudEvents envelope and resolves every $ref', () => {
    expect(cat.components.schemas.CloudEvent.properties.specversion.const).toBe('1.0');
    for (const ref of allRefs(cat)) expect(resolve(cat, ref), ref).toBeDefined();
    expect(JSON.parse(JSON.stringify(cat))).toEqual(cat);
  });
});
