import type { InvoiceRequest, ProformaListQuery } from '@ledgerline/contracts';
import { SUBJECTS } from '@ledgerline/contracts';
import { documentVariableSymbol } from '@ledgerline/documents';
import { ConflictError, JsonText, NotFoundError, keysetPageOfJson, sqlRows, toWire, type OperationContext, type SqlCondition, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { withContactParty, type ContactNaming } from '@ledgerline/posted-documents';
import { SalesDocumentSchema } from '../db/entities.js';
import { listSalesDocuments } from '../sales-documents/list.js';
import { postSalesDocument, redraftSalesDocument } from '../sales-documents/post.js';
import { SALES_VIEW_COLUMNS, viewOfRow, type SalesViewRow } from '../sales-documents/view.js';
import { PROFORMAS } from './kinds.js';

/*
 * Proforma invoices (issue 75, decision 236): a request for payment in advance, numbered by its
 * own series and rendered like an invoice, never posted. Its payments (matched by finance as
 * `sales_proforma`) are held on 324 and, for a VAT payer, each gets a tax document
 * (tax-documents.ts); a final invoice deducts them (deductions.ts) and settles it.
 */

/** The columns a proforma's view adds to a sales document's. */
const PROFORMA_COLUMNS = `no, payment_reference, proforma_state, settled_by_id, settled_by_no, cancelled_at,
  (select coalesce(json_agg(json_build_object('id', t.id, 'no', t.no, 'date_issued', to_char(t.date_issued, 'YYYY-MM-DD'),
      'total_amount', t.total_amount, 'tax_amount', t.tax_amount) order by t.id), '[]'::json)
     from sales_documents t where t.org_id = sales_documents.org_id and t.proforma_id = sales_documents.id and t.doc_type = 'sales_advance_tax_document') as tax_documents`;

interface ProformaRow extends SalesViewRow {
  no: string;
  payment_reference: string | null;
  proforma_state: 'settled' | 'cancelled' | null;
  settled_by_id: string | number | null;
  settled_by_no: string | null;
  cancelled_at: Date | string | null;
  tax_documents: Array<{ id: number; no: string; date_issued: string; total_amount: string | number; tax_amount: string | number }>;
}

/** A proforma's status: settled or cancelled when it is, else its payments' (an overpaid one is paid). */
export function proformaStatus(state: string | null, paymentStatus: string): 'unpaid' | 'partially_paid' | 'paid' | 'settled' | 'cancelled' {
  if (state === 'settled' || state === 'cancelled') return state;
  if (paymentStatus === 'overpaid') return 'paid';
  return paymentStatus as 'unpaid' | 'partially_paid' | 'paid';
}

function proformaView(row: ProformaRow): Record<string, unknown> {
  const view = viewOfRow(row);
  const iso = (v: Date | string | null) => (v === null ? null : (v instanceof Date ? v : new Date(v)).toISOString());
  return {
    ...view,
    // nothing more is asked of a settled or cancelled proforma, so it is never overdue
    overdue_days: row.proforma_state ? 0 : view.overdue_days,
    status: proformaStatus(row.proforma_state, row.payment_status),
    variable_symbol: documentVariableSymbol(row.payment_reference, row.no) ?? '',
    tax_documents: row.tax_documents.map((t) => ({ ...t, id: Number(t.id), total_amount: toWire(String(t.total_amount)), tax_amount: toWire(String(t.tax_amount)) })),
    settled_by: row.settled_by_id != null ? { invoice_id: Number(row.settled_by_id), invoice_no: row.settled_by_no } : null,
    cancelled_at: iso(row.cancelled_at),
  };
}

/** The proforma as GET answers it; 404 when the organisation has none of this id. */
export async function readProforma(scope: TenantScope, id: number, lock = false): Promise<Record<string, unknown> & { status: string }> {
  const [row] = await sqlRows<ProformaRow>(
    scope.em,
    `select ${SALES_VIEW_COLUMNS}, ${PROFORMA_COLUMNS} from sales_documents where org_id = ? and id = ? and doc_type = 'sales_proforma'${lock ? ' for update' : ''}`,
    [scope.orgId, id],
  );
  if (!row) throw new NotFoundError(`No proforma invoice ${id} in this organisation`, 'proforma_not_found');
  return proformaView(row) as Record<string, unknown> & { status: string };
}

/** Records `sales.proforma_invoice.<what>` with the proforma as it now stands, in the caller's transaction. */
export async function emitProforma(ctx: Pick<OperationContext, 'emit' | 'em' | 'orgId'>, id: number, what: 'issued' | 'updated'): Promise<Record<string, unknown>> {
  const view = await readProforma({ em: ctx.em, orgId: ctx.orgId! }, id);
  await ctx.emit({ subject: what === 'issued' ? SUBJECTS.salesProformaIssued : SUBJECTS.salesProformaUpdated, resource: String(id), data: view });
  return view;
}

export async function createProforma(ctx: TenantContext, body: Omit<InvoiceRequest, 'customer' | 'currency'> & ContactNaming): Promise<JsonText> {
  const input = (await withContactParty(ctx, body, 'customer')) as unknown as InvoiceRequest;
  return new JsonText(JSON.stringify(await issueProforma(ctx, input)));
}

/** A proforma of a request whose customer is resolved, and its `issued` event; its view. */
export async function issueProforma(ctx: TenantContext, input: InvoiceRequest): Promise<Record<string, unknown>> {
  const { document, written } = await postSalesDocument(ctx, PROFORMAS, input);
  // the proforma's event in the transaction that wrote it (a series' commit group)
  return emitProforma(written, document.id, 'issued');
}

/** Locks a proforma for a change, refusing one that is past changing (`what` names the change in the message). */
async function lockOpenProforma(ctx: TenantContext, id: number, what: string) {
  const view = await readProforma(ctx, id, true);
  if (view.status === 'cancelled') throw new ConflictError(`Proforma invoice ${view.no} is cancelled: it cannot be ${what}`, 'proforma_cancelled');
  if (view.status === 'settled') throw new ConflictError(`Proforma invoice ${view.no} is settled by invoice ${(view.settled_by as { invoice_no: string }).invoice_no}: it cannot be ${what}`, 'proforma_settled');
  // a replaced proforma would no longer be what its tax documents declared; a cancelled one may have had a payment refunded
  if (Number(view.amount_paid) !== 0 || (what === 'replaced' && (view.tax_documents as unknown[]).length > 0)) {
    throw new ConflictError(`Proforma invoice ${view.no} has payments: it cannot be ${what} (refund the payments first)`, 'proforma_paid');
  }
  return view;
}

/** PUT: an unpaid proforma drafted anew from the request; its id, number and series stay. */
export async function replaceProforma(ctx: TenantContext, id: number, body: Omit<InvoiceRequest, 'customer' | 'currency'> & ContactNaming): Promise<JsonText> {
  const current = await lockOpenProforma(ctx, id, 'replaced');
  const input = (await withContactParty(ctx, body, 'customer')) as unknown as InvoiceRequest;
  const doc = await ctx.em.findOneOrFail(SalesDocumentSchema, { id, docType: 'sales_proforma' });
  // the number is the proforma's: a request naming another is refused rather than renumbering it
  if (input.no != null && input.no.trim() !== '' && input.no.trim() !== current.no) {
    throw new ConflictError(`A proforma invoice keeps its number ${String(current.no)}`, 'number_immutable', [{ path: 'no', message: 'differs from the proforma number', code: 'number_immutable' }]);
  }
  const next = await redraftSalesDocument(ctx, PROFORMAS, doc, { ...input, no: doc.no, counter_id: doc.counterId ?? null });
  ctx.em.assign(doc, { ...next, editedAt: ctx.now(), updatedAt: ctx.now() });
  await ctx.em.flush();
  return new JsonText(JSON.stringify(await emitProforma(ctx, id, 'updated')));
}

/** POST …/cancel: a proforma nothing was paid on is cancelled; nothing is due on it any more. */
export async function cancelProforma(ctx: TenantContext, id: number): Promise<JsonText> {
  await lockOpenProforma(ctx, id, 'cancelled');
  await sqlRows(ctx.em, `update sales_documents set proforma_state = 'cancelled', cancelled_at = ?, amount_due = 0, updated_at = ? where org_id = ? and id = ?`, [
    ctx.now(),
    ctx.now(),
    ctx.orgId,
    id,
  ]);
  return new JsonText(JSON.stringify(await emitProforma(ctx, id, 'updated')));
}

/** The list's status filter in the columns that keep it. */
function statusCondition(statuses: readonly string[]): SqlCondition {
  const parts: string[] = [];
  const params: unknown[] = [];
  const states = statuses.filter((s) => s === 'settled' || s === 'cancelled');
  const paid = statuses.filter((s) => s !== 'settled' && s !== 'cancelled').flatMap((s) => (s === 'paid' ? ['paid', 'overpaid'] : [s]));
  if (states.length) {
    parts.push('proforma_state = any(?::text[])');
    params.push(`{${states.join(',')}}`);
  }
  if (paid.length) {
    parts.push('(proforma_state is null and payment_status = any(?::text[]))');
    params.push(`{${paid.join(',')}}`);
  }
  return { sql: `(${parts.join(' or ')})`, params };
}

export async function listProformas(ctx: TenantScope, q: ProformaListQuery) {
  const listed = await listSalesDocuments(ctx.em, ctx.orgId, 'sales_proforma', q, {
    conditions: q.status?.length ? [statusCondition(q.status)] : [],
    columns: PROFORMA_COLUMNS,
  });
  return keysetPageOfJson(
    listed.rows.map((r) => JSON.stringify(proformaView(r as ProformaRow))),
    listed,
    q,
  );
}
