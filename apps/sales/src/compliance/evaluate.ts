import type { TenantScope } from '@ledgerline/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SUBJECTS } from '@ledgerline/contracts';
import { NotFoundError, organisationReplica, recordEvents, sqlRows } from '@ledgerline/service-kit';
import {
  DEFAULT_RULES,
  complianceRecord,
  evaluateCompliance,
  invoiceNotFound,
  type ComplianceInvoice,
  type ComplianceOrganisation,
  type ComplianceResult,
  type RuleTable,
} from '@ledgerline/compliance';
import { ComplianceRecordSchema } from '../db/compliance.entities.js';

type Json = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);

/**
 * The organisation fields the rules need: from the replica of the profile (current Peppol id,
 * bank account…), else from the issuer snapshot stored on the invoice (country of its address).
 */
export function organisationFacts(profile: Json | null, snapshot: Json | null): ComplianceOrganisation {
  if (profile) {
    return {
      country: str(profile.country),
      is_vat_payer: typeof profile.is_vat_payer === 'boolean' ? profile.is_vat_payer : true,
      peppol_id: str(profile.peppol_id),
      vat_no: str(profile.vat_no),
      bank_account: obj(profile.bank_account) as ComplianceOrganisation['bank_account'],
      is_large_enterprise: typeof profile.is_large_enterprise === 'boolean' ? profile.is_large_enterprise : false,
    };
  }
  return {
    country: str(obj(snapshot?.address)?.country),
    vat_no: str(snapshot?.vat_no),
    peppol_id: str(snapshot?.peppol_id),
    bank_account: obj(snapshot?.bank_account) as ComplianceOrganisation['bank_account'],
  };
}

export type ComplianceWire = ReturnType<typeof complianceRecord>;

interface InvoiceRow {
  id: string | number;
  date_issued: string;
  date_due: string | null;
  amount_due: string;
  body: Json;
}

/**
 * The requested invoices of the organisation in one statement. Raw SQL (so `org_id` is written
 * by hand): hydrating hundreds of JSON bodies as managed entities costs more than the evaluation.
 */
async function loadInvoices(scope: TenantScope, ids: number[]): Promise<InvoiceRow[]> {
  const { em, orgId } = scope;
  return sqlRows<InvoiceRow>(
    em,
    `select id, date_issued::text as date_issued, date_due::text as date_due, amount_due::text as amount_due, body
       from sales_documents
      where org_id = ? and doc_type = 'sales_invoice' and id = any(?::bigint[])`,
    [orgId, `{${ids.join(',')}}`],
  );
}

/** All records of the batch in one multi-row insert. */
async function storeRecords(scope: TenantScope, results: Map<number, ComplianceResult>): Promise<void> {
  const { em, orgId } = scope;
  const rows = [...results].map(([invoiceId, r]) => ({
    org_id: orgId,
    invoice_id: invoiceId,
    status: r.status,
    reporting_method: r.reporting_method,
    delivery_eligibility: r.delivery_eligibility,
    required_action: r.required_action,
    allowed_actions: r.allowed_actions,
    blocking_reason: r.blocking_reason,
    rule_id: r.rule_id,
    failed_checks: r.failed_checks,
    evaluated_at: r.evaluated_at,
  }));
  await sqlRows(
    em,
    `insert into compliance_records (org_id, invoice_id, status, reporting_method, delivery_eligibility, required_action,
       allowed_actions, blocking_reason, rule_id, failed_checks, evaluated_at)
     select org_id, invoice_id, status, reporting_method, delivery_eligibility, required_action,
       allowed_actions, blocking_reason, rule_id, coalesce(failed_checks, '[]'::jsonb), evaluated_at
       from jsonb_array_elements(?::jsonb) with ordinality as e(v, n),
            jsonb_to_record(e.v) as x(org_id bigint, invoice_id bigint, status text, reporting_method text,
              delivery_eligibility text, required_action text, allowed_actions jsonb, blocking_reason text, rule_id text,
              failed_checks jsonb, evaluated_at timestamptz)
      order by e.n`,
    [JSON.stringify(rows)],
  );
}

/** The `sales.invoice.compliance_evaluated` events of the batch, in one statement. */
async function recordEvaluatedEvents(scope: TenantScope, results: Map<number, ComplianceResult>): Promise<void> {
  const { em, orgId } = scope;
  await recordEvents(
    em,
    'sales',
    [...results].map(([invoiceId, r]) => ({
      subject: SUBJECTS.salesInvoiceComplianceEvaluated,
      orgId,
      resource: String(invoiceId),
      data: complianceRecord(invoiceId, r),
    })),
  );
}

/**
 * POST /v1/sales/invoices/compliance/evaluate: evaluates up to 1000 invoices with four statements whatever the batch size: the
 * invoices (`id = any(...)`), the organisation replica, one multi-row insert of the records and
 * one of their events. Answers one record per requested entry, in request order; an id that
 * names no invoice of the organisation gets a blocked `invoice_not_found` record (answered, not
 * stored or announced: there is no invoice to attach it to).
 */
export async function evaluateInvoices(
  em: EntityManager,
  orgId: number,
  ids: number[],
  table: RuleTable = DEFAULT_RULES,
  now: Date = new Date(),
): Promise<ComplianceWire[]> {
  const distinct = [...new Set(ids)];
  const [docs, replica] = await Promise.all([loadInvoices({ em, orgId }, distinct), organisationReplica({ em, orgId })]);
  const profile = replica ? (replica.profile as Json) : null;
  const results = new Map<number, ComplianceResult>();
  // stored and announced in request order, whatever order the index the plan chose gives the rows
  const byId = new Map(docs.map((d) => [Number(d.id), d]));
  for (const id of distinct) {
    const doc = byId.get(id);
    if (!doc) continue;
    const invoice: ComplianceInvoice = {
      ...(doc.body as unknown as ComplianceInvoice),
      id: Number(doc.id),
      date_issued: doc.date_issued,
      date_due: doc.date_due,
      amount_due: doc.amount_due,
    };
    results.set(invoice.id, evaluateCompliance(invoice, organisationFacts(profile, obj(doc.body.org)), table, now));
  }
  if (results.size > 0) {
    await storeRecords({ em, orgId }, results);
    await recordEvaluatedEvents({ em, orgId }, results);
  }
  const missing = invoiceNotFound(now);
  return ids.map((id) => complianceRecord(id, results.get(id) ?? missing));
}

/** The latest stored evaluation of an invoice of the caller's organisation. */
export async function latestCompliance(em: EntityManager, invoiceId: number): Promise<ComplianceWire> {
  const row = await em.findOne(ComplianceRecordSchema, { invoiceId }, { orderBy: { id: 'desc' } });
  if (!row) throw new NotFoundError(`Invoice ${invoiceId} has no compliance evaluation in this organisation`, 'compliance_record_not_found');
  return complianceRecord(invoiceId, {
    status: row.status,
    reporting_method: (row.reportingMethod ?? null) as ComplianceResult['reporting_method'],
    delivery_eligibility: (row.deliveryEligibility ?? null) as ComplianceResult['delivery_eligibility'],
    required_action: (row.requiredAction ?? null) as ComplianceResult['required_action'],
    allowed_actions: row.allowedActions ?? null,
    evaluated_at: row.evaluatedAt.toISOString(),
    blocking_reason: row.blockingReason ?? null,
    rule_id: row.ruleId ?? null,
    failed_checks: row.failedChecks,
  });
}
