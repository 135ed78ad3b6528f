import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type RouteSpec } from '@ledgerline/contracts';
import { startStack, type Stack } from '../support/stack.js';
import { startRegisterServer, type RegisterServer } from '../support/registers.js';
import { invoiceBody } from '../sales/helpers.js';
import { billBody, vendorCreditBody } from '../purchase/fixtures.js';

/*
 * Schema fuzzing of the whole API (issue 11): the operations and request schemas come from the
 * generated OpenAPI document; every operation gets generated valid and invalid requests (wrong
 * types, boundary numbers, NUL, lone surrogates, huge strings, deep nesting, edge dates, wrong
 * shapes, missing and extra fields) with a valid credential. Never a 5xx; every 4xx is
 * problem+json; every 2xx JSON answer matches the operation's response schema. The seed is
 * printed; FUZZ_SEED=<seed> reproduces a run.
 */

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS_PER_OPERATION = Number(process.env.FUZZ_REQUESTS ?? 24);

let stack: Stack;
let registers: RegisterServer;
let doc: Json;
let fuzzKey: { id: number; key: string };

beforeAll(async () => {
  // the public registers answer from a local server, as a deployment's do from theirs
  registers = await startRegisterServer();
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'], env: registers.env });
  doc = await (await fetch(`${stack.gateway.url}/openapi.json`)).json();
  const res = await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'fuzz', scopes: ['admin'] } });
  fuzzKey = (await res.json()) as { id: number; key: string };
  // something to find: an invoice, a credit note against it, a payout
  const inv = (await (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json()) as { id: number };
  await stack.api('/v1/sales/credit-notes', { method: 'POST', json: { ...invoiceBody({ items: [{ title: 'Back', qty: -1, rate: 50, taxes: [] }] }), credited_doc_id: inv.id } });
  await stack.api('/v1/finance/payouts', { method: 'POST', json: { currency: 'CZK', lines: [{ amount: 10 }] } });
  // a journal entry and an account of the organisation's own
  await stack.api('/v1/accounting/journal-entries', { method: 'POST', json: { date_posting: '2026-11-02', description: 'Accrual', lines: [{ account_number: '518', debit: 10 }, { account_number: '389', credit: 10 }] } });
  await stack.api('/v1/accounting/accounts/221.001', { method: 'PUT', json: { name_cs: 'Fio' } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await registers?.close();
});

/** A seeded random source (mulberry32): the same seed gives the same requests. */
class Rng {
  constructor(private state: number) {}
  nextDouble(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  nextInt(min: number, max: number): number {
    return min + Math.floor(this.nextDouble() * (max - min + 1));
  }
  nextBoolean(): boolean {
    return this.nextDouble() < 0.5;
  }
}
namespace fc {
  export type Random = Rng;
}

// --- a small generator over the OpenAPI (JSON Schema 2020-12) shapes we emit ---------------------

function resolve(schema: Json): Json {
  let s = schema;
  for (let i = 0; s?.$ref && i < 20; i++) s = s.$ref.replace('#/', '').split('/').reduce((o: Json, k: string) => o?.[k], doc);
  return s ?? {};
}

const SAMPLE_STRINGS: Record<string, string[]> = {
  date: ['2026-11-23', '2026-01-01', '1900-01-01', '9999-12-31'],
  'date-time': ['2026-11-23T10:00:00Z', '2026-11-23T10:00:00+01:00'],
  email: ['a@example.com'],
  uuid: ['0b5c7a7e-5b1a-4c1e-9d4e-1a2b3c4d5e6f'],
  uri: ['https://example.com/x'],
};
const PATTERN_CANDIDATES = ['CZK', 'EUR', 'CZ', 'cs-CZ', '2026-11-23', '9950:2020123456', '[2026-01-01;2026-12-31]', '311', 'INV{YYYY}{#####}', '#1f4e79', 'a'];

function genValue(schema: Json, rnd: fc.Random, depth = 0): Json {
  const s = resolve(schema);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[rnd.nextInt(0, s.enum.length - 1)];
  const options = s.anyOf ?? s.oneOf;
  if (options) {
    const concrete = options.filter((o: Json) => resolve(o).type !== 'null');
    return genValue((concrete.length ? concrete : options)[rnd.nextInt(0, (concrete.length ? concrete : options).length - 1)], rnd, depth);
  }
  if (s.allOf) return genValue(s.allOf[0], rnd, depth);
  let type = s.type;
  if (Array.isArray(type)) type = type.find((t: string) => t !== 'null') ?? 'null';
  switch (type) {
    case 'object': {
      const out: Record<string, Json> = {};
      if (depth > 4) return out;
      const required = new Set<string>(s.required ?? []);
      for (const [k, v] of Object.entries<Json>(s.properties ?? {})) {
        if (required.has(k) || rnd.nextInt(0, 2) === 0) out[k] = genValue(v, rnd, depth + 1);
      }
      return out;
    }
    case 'array': {
      if (depth > 4) return [];
      const n = rnd.nextInt(Math.min(s.minItems ?? 0, 3), Math.min(s.maxItems ?? 3, 3));
      return Array.from({ length: n }, () => genValue(s.items ?? {}, rnd, depth + 1));
    }
    case 'string': {
      if (s.format && SAMPLE_STRINGS[s.format]) return SAMPLE_STRINGS[s.format][rnd.nextInt(0, SAMPLE_STRINGS[s.format].length - 1)];
      if (s.pattern) {
        const re = new RegExp(s.pattern);
        const hit = PATTERN_CANDIDATES.find((c) => re.test(c) && (s.maxLength ?? 1e9) >= c.length);
        if (hit) return hit;
      }
      const len = rnd.nextInt(s.minLength ?? 0, Math.min(s.maxLength ?? 12, 12));
      return 'x'.repeat(Math.max(len, s.minLength ?? 0));
    }
    case 'integer': {
      const min = Math.max(s.minimum ?? -1000, -1e6);
      const max = Math.min(s.maximum ?? 1000, 1e6);
      return rnd.nextInt(Math.ceil(min), Math.floor(Math.max(min, max)));
    }
    case 'number': {
      const min = Math.max(s.minimum ?? s.exclusiveMinimum ?? -1000, -1e6);
      const max = Math.min(s.maximum ?? 1000, 1e6);
      return Math.round((min + rnd.nextDouble() * (max - min)) * 100) / 100 || (s.exclusiveMinimum !== undefined ? 1 : 0);
    }
    case 'boolean':
      return rnd.nextBoolean();
    case 'null':
      return null;
    default:
      return rnd.nextBoolean() ? 'x' : 1;
  }
}

let nested: Json = 'leaf';
for (let i = 0; i < 200; i++) nested = { n: nested };
const HOSTILE_VALUES: Json[] = [
  'a\u0000b',
  '\ud800',
  'x'.repeat(300_000),
  1e308,
  -1e308,
  9007199254740993,
  -1,
  0,
  0.004,
  1e15,
  '0000-01-01',
  '9999-12-31T23:59:60Z',
  '',
  null,
  true,
  [],
  {},
  [[[[[[]]]]]],
  nested,
  '<script>alert(1)</script>',
  "' or 1=1 --",
  '😀'.repeat(100),
];

/** A copy of `value` with one randomly chosen field (at any depth) replaced, removed, or joined by an extra one. */
function mutate(value: Json, rnd: fc.Random): Json {
  const hostile = HOSTILE_VALUES[rnd.nextInt(0, HOSTILE_VALUES.length - 1)];
  if (value === null || typeof value !== 'object') return hostile;
  const copy = structuredClone(value);
  const paths: Array<Array<string | number>> = [];
  const walk = (v: Json, p: Array<string | number>) => {
    if (v === null || typeof v !== 'object' || p.length > 5) return;
    for (const k of Object.keys(v)) {
      const key = Array.isArray(v) ? Number(k) : k;
      paths.push([...p, key]);
      walk(v[k], [...p, key]);
    }
  };
  walk(copy, []);
  if (paths.length === 0) return rnd.nextBoolean() ? hostile : { ...copy, extra_field: hostile };
  const path = paths[rnd.nextInt(0, paths.length - 1)];
  const parent = path.slice(0, -1).reduce((o: Json, k) => o[k], copy);
  const last = path[path.length - 1];
  switch (rnd.nextInt(0, 3)) {
    case 0:
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 1:
      if (!Array.isArray(parent)) parent[`${String(last)}_extra`] = hostile;
      else parent[last as number] = hostile;
      break;
    default:
      parent[last] = hostile;
  }
  return copy;
}

/**
 * Known-good bodies of the writes that reach deep into the domain (documents, payments): half of
 * their requests start from these, so a mutation lands in an otherwise valid request.
 */
const VALID_BODIES: Partial<Record<string, () => Json>> = {
  createInvoice: () => invoiceBody(),
  createCreditNote: () => ({ ...invoiceBody({ items: [{ title: 'Back', qty: -1, rate: 10, taxes: [] }] }), credited_doc_id: 1 }),
  createBill: () => billBody(),
  createVendorCredit: () => vendorCreditBody(),
  recordBankTransaction: () => ({ amount: 298, currency: 'CZK', date_transaction: '2026-11-23', paid_record: { type: 'sales_invoice', id: 1 } }),
  createPayout: () => ({ currency: 'CZK', date_issued: '2026-11-23', lines: [{ amount: 100, paid_record: { type: 'sales_invoice', id: 1 } }, { amount: -5 }] }),
  replacePayout: () => ({ currency: 'CZK', lines: [{ amount: 50 }] }),
  createItem: () => ({ name: 'Widget', sku: 'W', sales_rate: 100, currency: 'CZK', tax_rate: 21 }),
  createPriceList: () => ({ name: 'List', currency: 'CZK', rates: [{ item_id: 1, rate: 90 }] }),
  createNumberingSeries: () => ({ doc_type: 'sales_invoice', name: 'S', mask: 'F{YYYY}{####}' }),
  saveTemplate: () => ({ code: 'fz', name: 'Fuzz', html_template: '<p>{{ doc.no }} {{ doc.total_amount | money }}</p>' }),
  updateOrganisation: () => ({ name: 'Fuzz s.r.o.', country: 'CZ', vat_no: 'CZ12345678' }),
  emailInvoice: () => ({ to: 'a@example.com', subject: 'Invoice' }),
};

interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Json[];
  body?: Json;
  route: RouteSpec;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const route = ROUTES.find((r) => r.operationId === op.operationId);
      if (!route) throw new Error(`OpenAPI operation ${op.operationId} has no route`);
      const content = op.requestBody?.content ?? {};
      const body = content['application/json']?.schema ?? content['application/*+json']?.schema ?? Object.values<Json>(content)[0]?.schema;
      out.push({ method: method.toUpperCase(), path, operationId: op.operationId, parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])], body, route });
    }
  }
  return out;
}

const PATH_VALUES = ['1', '2', '3', '0', '-1', 'abc', '9007199254740993', '%00', '1e3', 'csv', 'json', '1'.repeat(40)];

function buildRequest(op: Operation, rnd: fc.Random, hostile: boolean) {
  let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const p = op.parameters.find((x: Json) => x.in === 'path' && x.name === name);
    const generated = p ? String(genValue(p.schema, rnd)) : '1';
    const pick = hostile || rnd.nextInt(0, 3) === 0 ? PATH_VALUES[rnd.nextInt(0, PATH_VALUES.length - 1)] : generated;
    // never the fuzzing credential itself or the bootstrap key: deleting them would end the run
    if (op.path.includes('api-keys') && (pick === '1' || pick === String(fuzzKey.id))) return '424242';
    return encodeURIComponent(pick).replace('%2500', '%00');
  });
  const query = new URLSearchParams();
  for (const p of op.parameters.filter((x: Json) => x.in === 'query')) {
    if (!p.required && rnd.nextInt(0, 2) !== 0) continue;
    let v: Json = genValue(p.schema, rnd);
    if (hostile && rnd.nextInt(0, 2) === 0) v = HOSTILE_VALUES[rnd.nextInt(0, HOSTILE_VALUES.length - 1)];
    query.append(p.name, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  let body: string | undefined;
  if (op.body) {
    const known = VALID_BODIES[op.operationId];
    let value = known && rnd.nextBoolean() ? known() : genValue(op.body, rnd);
    if (hostile) {
      const kind = rnd.nextInt(0, 9);
      if (kind === 0) body = '{"unterminated": ';
      else if (kind === 1) body = JSON.stringify([value]);
      else if (kind === 2) body = 'null';
      else {
        value = mutate(value, rnd);
        if (kind === 3) value = mutate(value, rnd);
      }
    }
    body ??= JSON.stringify(value);
  }
  const qs = query.toString();
  return { url: `${path}${qs ? `?${qs}` : ''}`, body };
}

async function send(op: Operation, req: { url: string; body?: string }) {
  const headers: Record<string, string> = { authorization: `Bearer ${fuzzKey.key}` };
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${stack.gateway.url}${req.url}`, { method: op.method, headers, body: req.body });
}

describe('schema fuzzing of every operation', () => {
  it(`never answers 5xx; 4xx are problems; 2xx match the response schema (seed ${SEED})`, async () => {
    console.log(`fuzz seed ${SEED} (reproduce with FUZZ_SEED=${SEED})`);
    const rnd = new Rng(SEED);
    const ops = operations();
    expect(ops.length).toBe(ROUTES.length);
    const failures: string[] = [];
    let sent = 0;
    const statuses = new Map<number, number>();
    const started = Date.now();
    for (const op of ops) {
      for (let i = 0; i < REQUESTS_PER_OPERATION; i++) {
        const req = buildRequest(op, rnd, i % 3 !== 0);
        const res = await send(op, req);
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const type = res.headers.get('content-type') ?? '';
        const text = await res.text();
        const where = `${op.method} ${req.url.slice(0, 200)} ${req.body ? `body ${req.body.slice(0, 300)}` : ''}`;
        if (res.status >= 500) failures.push(`${res.status} ${where} → ${text.slice(0, 300)}`);
        else if (res.status >= 400 && !type.startsWith('application/problem+json')) failures.push(`${res.status} without problem+json: ${where}`);
        else if (res.status < 300 && type.includes('json') && op.route.response) {
          const parsed = op.route.response.safeParse(JSON.parse(text));
          if (!parsed.success) failures.push(`${res.status} off-schema answer: ${where}: ${parsed.error.issues.slice(0, 3).map((x) => `${x.path.join('.')} ${x.message}`).join('; ')}`);
        }
        if (failures.length >= 10) break;
      }
    }
    console.log(`fuzz: ${sent} requests over ${ops.length} operations in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    // the generator must reach the success paths too, not only the validation errors
    expect((statuses.get(200) ?? 0) + (statuses.get(202) ?? 0)).toBeGreaterThan(sent / 10);
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 170_000);
});

describe('credentials on every operation', () => {
  it('no credential → 401, a wrong one → 401, a key of another area → 403', async () => {
    const readers = {
      settings: (await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'sales only', scopes: ['sales:read', 'sales:write'] } })).json()) as { key: string },
      other: (await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'settings only', scopes: ['settings:read', 'settings:write'] } })).json()) as { key: string },
    };
    const wrong = 'ak_' + 'Z'.repeat(32) + '_AAAAAA';
    const mismatches: string[] = [];
    for (const op of operations()) {
      const url = `${stack.gateway.url}${op.path.replace(/\{[^}]+\}/g, (m) => (m === '{format}' ? 'json' : m === '{book_id}' ? '1' : '1'))}`;
      const body = op.body ? JSON.stringify(genValue(op.body, new Rng(1))) : undefined;
      const call = (authorization?: string) =>
        fetch(url, { method: op.method, body, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(authorization ? { authorization } : {}) } });
      const expectStatus = async (res: Response, status: number, label: string) => {
        if (res.status !== status) mismatches.push(`${op.method} ${op.path} ${label}: ${res.status}, expected ${status}`);
        if (!(res.headers.get('content-type') ?? '').startsWith('application/problem+json')) mismatches.push(`${op.method} ${op.path} ${label}: not problem+json`);
      };
      if (op.route.open) continue; // the token endpoint authenticates clients in its body
      await expectStatus(await call(), 401, 'no credential');
      await expectStatus(await call(`Bearer ${wrong}`), 401, 'wrong credential');
      if (op.route.operatorOnly) continue; // only the operator token, which no key is
      const weaker = op.route.scope === 'settings' ? readers.settings.key : readers.other.key;
      await expectStatus(await call(`Bearer ${weaker}`), 403, 'wrong scope');
    }
    expect(mismatches).toEqual([]);
  }, 120_000);
});
