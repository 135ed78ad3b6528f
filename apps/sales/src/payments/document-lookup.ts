import type { EntityManager } from '@mikro-orm/postgresql';
import { salesDocumentLookupRequestSchema, type DocumentLookupAnswer } from '@ledgerline/contracts';
import { sqlRows, toWire } from '@ledgerline/service-kit';
import type { SalesDocType } from '../db/entities.js';

export type DocumentLookupResult = DocumentLookupAnswer & { type: SalesDocType };

/*
 * What a lookup answers, read by one prepared statement: the figures and the few body fields it
 * needs, never the whole stored body hydrated into an entity (a bank transaction paying an
 * invoice asks this once, and a statement of a thousand payments a thousand times). The body is
 * json (stored as text): `json_to_record` reads its four top-level fields in one pass without
 * building the whole document (the customer stays text until its two fields are read): 0.13 ms
 * of Postgres's CPU per lookup of a 10-line invoice, where converting the body to jsonb took 0.22
 * and reading the old jsonb column 0.08 (decision 130).
 */
const LOOKUP_COLUMNS = `doc_type, id, no, total_amount::text as total_amount, amount_due::text as amount_due, currency,
  json_typeof(f.customer) = 'object' as has_customer,
  f.customer->'id' as customer_id, f.customer->'business_name' as customer_name,
  f.fx_rate, f.currency_coef, f.total_amount_leg, d.proforma_state, f.advance_amount,
  (select sum((a->>'amount_leg')::numeric) from json_array_elements(case when json_typeof(f.advances) = 'array' then f.advances else '[]' end) a)::text as advance_amount_leg`;
const LOOKUP_FROM = `sales_documents d
  cross join lateral json_to_record(d.body) as f(customer json, fx_rate json, currency_coef json, total_amount_leg json, advance_amount json, advances json)`;

const BY = {
  id: `select ${LOOKUP_COLUMNS} from ${LOOKUP_FROM} where org_id = ? and doc_type = ? and id = ?`,
  no: `select ${LOOKUP_COLUMNS} from ${LOOKUP_FROM} where org_id = ? and doc_type = ? and no = ?`,
};

interface LookupRow {
  doc_type: SalesDocType;
  id: number | string;
  no: string;
  total_amount: string;
  amount_due: string;
  currency: string;
  has_customer: boolean | null;
  customer_id: unknown;
  customer_name: unknown;
  fx_rate: unknown;
  currency_coef: unknown;
  total_amount_leg: unknown;
  proforma_state: string | null;
  advance_amount: unknown;
  advance_amount_leg: string | null;
}

/** Finds a sales document of the caller's organisation by id or number (finance checks what it matches). */
export async function lookupDocument(em: EntityManager, raw: unknown, orgId: number): Promise<DocumentLookupResult> {
  const req = salesDocumentLookupRequestSchema.parse(raw);
  const [row] =
    req.id != null
      ? await sqlRows<LookupRow>(em, BY.id, [orgId, req.type, req.id], { prepared: true })
      : await sqlRows<LookupRow>(em, BY.no, [orgId, req.type, req.no], { prepared: true });
  // a cancelled proforma is paid by nothing: the payment waits in suspense for a refund or a match by hand
  if (!row || row.proforma_state === 'cancelled') {
    return { found: false, type: req.type, id: req.id ?? null, no: req.no ?? null, total_amount: null, amount_due: null, currency: null, contact: null };
  }
  return {
    found: true,
    type: row.doc_type,
    id: Number(row.id),
    no: row.no,
    total_amount: toWire(row.total_amount),
    amount_due: toWire(row.amount_due),
    currency: row.currency,
    contact: row.has_customer ? { id: typeof row.customer_id === 'number' ? row.customer_id : null, business_name: typeof row.customer_name === 'string' ? row.customer_name : null } : null,
    // as stored on the document (never recomputed): finance converts and clears payments with them
    fx_rate: wireNumber(row.fx_rate),
    currency_coef: wireNumber(row.currency_coef),
    // a proforma is no receivable: its payment is held on 324 at the payment's own rate (decision 236)
    total_amount_leg: row.doc_type === 'sales_proforma' ? null : wireNumber(row.total_amount_leg),
    // a final invoice's advances: payments clear the rest of it (issue 75)
    ...(row.advance_amount_leg != null && { advance_amount: wireNumber(row.advance_amount), advance_amount_leg: wireNumber(row.advance_amount_leg) }),
  };
}

/** A stored figure of the document body (a number or a decimal string) as a JSON number, else null. */
function wireNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return toWire(v);
  return null;
}
