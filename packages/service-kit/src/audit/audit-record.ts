import { ROUTES, routingOrder, type RouteSpec } from '@ledgerline/contracts';
import { pathPattern } from '../path-pattern.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows } from '../db/orm.js';

/*
 * What an audit record says of a write (decision 211): who (the credential's id and type, never its
 * secret), where (organisation, request id), what (operation, resource type and id, status) and
 * the resource before and after, with secrets and personal data masked and the fields that changed
 * named. Records are written in the write's own transaction, so a write that committed has its
 * record and a write that did not has none.
 */

/** Fields whose values are secrets: never kept, not even hashed. */
const SECRET_FIELDS = /^(key|secret|client_secret|access_token|refresh_token|api_key|password|token|signing_secret|private_key|binary_content)$/i;
/** Fields holding personal data about people: kept as masked, so the trail says they changed without repeating them. */
const PERSONAL_FIELDS = /(^|_)(email|phone|first_name|last_name|birth_date|date_of_birth|personal_id|iban|account_number)$/i;
const MASK = '***';
/** A body larger than this is kept as its size only (a statement of thousands of entries). */
const MAX_KEPT_CHARS = 64 * 1024;

/** Our own credentials (`ak_…`, `cs_…`) and a webhook signing secret, wherever they stand. */
const SECRET_VALUE = /^(ak|cs|whsec)_[A-Za-z0-9+/=_-]{12,}$/;
const EMAIL_ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
const IBAN = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
/** Query parameters of a URL that carry a credential (`?token=…`, `&sig=…`). */
const SECRET_PARAM = /^(token|access_token|api_key|apikey|key|secret|sig|signature|password|pass|auth|code|credential)s?$/i;

/**
 * A string masked by what it is, whatever field holds it (issue 71: masking by field name alone
 * hid a reminder's wording and kept a webhook URL's token): a credential or an e-mail address or
 * IBAN whole, a URL's password and credential parameters.
 */
function maskedText(raw: string): string {
  const s = storable(raw);
  // most texts (names, codes, dates, amounts) can be none of those: each needs a sign of its kind
  if (!s.includes('://') && !s.includes('@') && !s.includes('_') && !(s.length >= 15 && MAY_BE_IBAN.test(s))) return s;
  const t = s.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) return SECRET_VALUE.test(t) || EMAIL_ADDRESS.test(t) || IBAN.test(t.replace(/\s+/g, '')) ? MASK : s;
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    return s;
  }
  let changed = false;
  if (url.password) {
    url.password = MASK;
    changed = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) {
      url.searchParams.set(name, MASK);
      changed = true;
    }
  }
  return changed ? url.toString() : s;
}

/**
 * Text Postgres' jsonb takes: no NUL and no lone surrogate (a record it refused would fail the
 * write it records, and in a commit group its neighbours' with it). Input with either is refused
 * at the door, so this is for what a service's answer could hold anyway.
 */
function storable(s: string): string {
  const whole = SURROGATE.test(s) ? s.replace(LONE_SURROGATE, '\uFFFD') : s;
  return whole.includes('\0') ? whole.replaceAll('\0', '\uFFFD') : whole;
}
const SURROGATE = /[\uD800-\uDFFF]/;
/** What an IBAN begins with, spaces allowed (`IBAN` is tested with the spaces taken out). */
const MAY_BE_IBAN = /^\s*[A-Z]\s*[A-Z]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A value under a field named as personal data: masked when it is one (text, a number, a list of them); a structure is looked into. */
const isLeaf = (v: unknown) => typeof v !== 'object' || (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null));

/** The value with secrets and personal data masked, at any depth: by the field's name and by what each text is. */
export function masked(value: unknown, depth = 0): unknown {
  if (depth > 32) return MASK;
  if (typeof value !== 'object' || value === null) return typeof value === 'string' ? maskedText(value) : value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = masked(value[i], depth + 1);
    return out;
  }
  // (loops rather than Object.entries/fromEntries: a third of the time on a 10-line credit note)
  const out: Record<string, unknown> = {};
  const fields = value as Record<string, unknown>;
  for (const k in fields) {
    if (!Object.prototype.hasOwnProperty.call(fields, k)) continue;
    const v = fields[k];
    const kind = fieldKind(k);
    const kept = v === null || v === undefined ? v : kind === 'secret' || (kind === 'personal' && isLeaf(v)) ? MASK : masked(v, depth + 1);
    const name = kind === 'plain' ? k : storable(k);
    // a field named __proto__ stays a field, not the prototype
    if (name === '__proto__') Object.defineProperty(out, name, { value: kept, enumerable: true, writable: true, configurable: true });
    else out[name] = kept;
  }
  return out;
}

/**
 * What a field's name says of its value, remembered: the same few hundred names come in every
 * answer, and testing each against the patterns was most of a record's masking (issue 79). The
 * memory is bounded; names past it are tested each time.
 */
function fieldKind(name: string): 'secret' | 'personal' | 'plain' | 'unusual' {
  let kind = FIELD_KINDS.get(name);
  if (kind) return kind;
  kind = SECRET_FIELDS.test(name) ? 'secret' : PERSONAL_FIELDS.test(name) ? 'personal' : storable(name) !== name ? 'unusual' : 'plain';
  if (FIELD_KINDS.size < 10_000) FIELD_KINDS.set(name, kind);
  return kind;
}
const FIELD_KINDS = new Map<string, 'secret' | 'personal' | 'plain' | 'unusual'>();

/** The top-level fields whose values differ between two states (every field of the one there is, when the other is not). */
export function changedFields(before: unknown, after: unknown): string[] {
  const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
  const a = obj(before);
  const b = obj(after);
  if (!a && !b) return [];
  // one state only (a creation, a removal): its fields that hold something, without writing each out
  if (!a || !b) return Object.entries((a ?? b)!).flatMap(([k, v]) => (v === null || v === undefined ? [] : [k])).sort();
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  return [...keys].filter((k) => JSON.stringify(a?.[k] ?? null) !== JSON.stringify(b?.[k] ?? null)).sort();
}

/** A JSON state as kept, and as its text: masked, or `{ truncated, size }` when too large (masked and written out once). */
function kept(state: unknown): { value: unknown; text: string } | null {
  if (state === undefined || state === null) return null;
  const value = masked(state);
  const text = JSON.stringify(value);
  if (text.length <= MAX_KEPT_CHARS) return { value, text };
  const truncated = { truncated: true, size: text.length };
  return { value: truncated, text: JSON.stringify(truncated) };
}

export interface AuditedRoute {
  route: RouteSpec;
  /** Matches the request paths of the route (`/v1/…`). */
  pattern: RegExp;
  /** The static path before the first parameter, e.g. `/sales/invoices`. */
  resourceType: string;
  /** The name of the path parameter that identifies the resource, when there is one. */
  idParam: string | null;
  /** The GET route template that reads the resource as it stands (for the state before), if one exists. */
  readPath: string | null;
}

/** Each write route of a service in the route table's routing order, with how its resource is named and read. */
export function auditedRoutes(service: string, routes: readonly RouteSpec[] = ROUTES): AuditedRoute[] {
  const own = routingOrder(routes.filter((r) => r.service === service));
  const gets = new Set(own.filter((r) => r.method === 'GET').map((r) => r.path));
  const out: AuditedRoute[] = [];
  for (const route of own) {
    if (route.method === 'GET') continue;
    const segments = route.path.split('/');
    const firstParam = segments.findIndex((s) => s.startsWith(':'));
    const resourceType = firstParam < 0 ? route.path : segments.slice(0, firstParam).join('/');
    // the resource's own path: the route's up to its last parameter (an action such as /pause, or a sub-resource's parent, is read there)
    const lastParam = segments.map((s) => s.startsWith(':')).lastIndexOf(true);
    const own = lastParam < 0 ? route.path : segments.slice(0, lastParam + 1).join('/');
    // a POST that adds to a listed collection (…/attachments) creates: nothing stood before it
    const createsInCollection = route.method === 'POST' && (lastParam < 0 || gets.has(route.path));
    const readPath = !createsInCollection && gets.has(own) ? own : null;
    out.push({ route, pattern: pathPattern(route.path), resourceType, idParam: firstParam < 0 ? null : segments[firstParam].slice(1), readPath });
  }
  return out;
}

export interface AuditEntry {
  orgId: number;
  credentialType: string;
  credentialId: string;
  requestId: string;
  operation: string;
  method: string;
  path: string;
  resourceType: string;
  resourceId: string | null;
  status: number;
  before: unknown;
  after: unknown;
}

/** Whether the answer is the resource read before (same id), so their fields compare; an action's result (an e-mail sent) is not. */
function comparable(before: unknown, after: unknown): boolean {
  if (!before || !after) return true;
  return (before as { id?: unknown }).id === (after as { id?: unknown }).id;
}

/** A record as it is written: its states masked and written out, the fields that changed named. */
export interface AuditRow {
  entry: AuditEntry;
  before: string | null;
  after: string | null;
  changedFields: string[];
}

/** The record of `e` as it is written (the masking and the comparison done once, wherever it is written). */
export function auditRow(e: AuditEntry): AuditRow {
  const before = kept(e.before);
  const after = kept(e.after);
  const changed = comparable(before?.value, after?.value) ? changedFields(before?.value ?? null, after?.value ?? null) : [];
  return { entry: e, before: before?.text ?? null, after: after?.text ?? null, changedFields: changed.map((f) => f.replace(/["\\]/g, '')) };
}

const AUDIT_COLUMNS = 'org_id, credential_type, credential_id, request_id, operation, method, path, resource_type, resource_id, status, before, after, changed_fields';

/** The statement writing one record, to run alone or as a part of another (a request's last write). */
export function auditInsert(row: AuditRow): { sql: string; params: unknown[] } {
  const { entry: e, before, after, changedFields: fields } = row;
  return {
    sql: `insert into kit_audit_events (${AUDIT_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::text[])`,
    params: [
      e.orgId,
      e.credentialType,
      e.credentialId,
      e.requestId,
      e.operation,
      e.method,
      e.path.slice(0, 2000),
      e.resourceType,
      e.resourceId?.slice(0, 255) ?? null,
      e.status,
      before,
      after,
      `{${fields.map((f) => `"${f}"`).join(',')}}`,
    ],
  };
}

/** Writes one record (in the transaction `em` is in). */
export async function insertAuditEntry(em: EntityManager, e: AuditEntry): Promise<void> {
  await insertAuditRows(em, [auditRow(e)]);
}

/**
 * Writes records in the transaction `em` is in, in their order, with one statement however many
 * there are: a commit group writes its members' records together just before its commit (issue
 * 79: a statement of its own for every document's record was a round trip and an execution each).
 */
export async function insertAuditRows(em: EntityManager, rows: readonly AuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length === 1) {
    const one = auditInsert(rows[0]);
    await sqlRows(em, one.sql, one.params, { prepared: true });
    return;
  }
  // one JSON array of the records, the states set in as the JSON texts they already are (not
  // quoted into strings, which Postgres would then read twice)
  const json = `[${rows
    .map(({ entry: e, before, after, changedFields }) => {
      const fields = {
        org_id: e.orgId,
        credential_type: e.credentialType,
        credential_id: e.credentialId,
        request_id: e.requestId,
        operation: e.operation,
        method: e.method,
        path: e.path.slice(0, 2000),
        resource_type: e.resourceType,
        resource_id: e.resourceId?.slice(0, 255) ?? null,
        status: e.status,
        changed_fields: changedFields,
      };
      return `${JSON.stringify(fields).slice(0, -1)},"before":${before ?? 'null'},"after":${after ?? 'null'}}`;
    })
    .join(',')}]`;
  await sqlRows(
    em,
    `insert into kit_audit_events (${AUDIT_COLUMNS})
     select ${AUDIT_COLUMNS}
       from jsonb_array_elements(?::jsonb) with ordinality as r(v, n),
            jsonb_to_record(r.v) as x(org_id bigint, credential_type text, credential_id text, request_id text, operation text, method text, path text,
              resource_type text, resource_id text, status int, before jsonb, after jsonb, changed_fields text[])
      order by r.n`,
    [json],
    { prepared: true },
  );
}
