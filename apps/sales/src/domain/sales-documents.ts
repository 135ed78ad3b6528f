import type { CreditNote, Invoice } from '@ledgerline/contracts';
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  SUBJECTS,
  type CreditNoteRequest,
  type InvoiceRequest,
  type SalesTaxLineRequest,
} from '@ledgerline/contracts';
import { BusinessRuleError, ConflictError, FALLBACK_LEGAL_CURRENCY, NotFoundError, OUTBOX_COLUMNS, dec, sqlRows, toDb, toWire, type ServiceDeps } from '@ledgerline/service-kit';
import { assertCreditHeadroom, assertDerivedFigures, computeDocument, type ComputedDocument, type ComputedTaxLine, type DocumentInput } from '@ledgerline/documents';
import { SalesDocumentSchema, type SalesDocType, type SalesDocument } from '../db/entities.js';
import { duplicateNumber, numberPattern, pickSeries, type NumberPattern } from './numbering.js';
import { issuerSnapshot } from './organisations.js';
import { withCatalogueAccounts } from './items.js';

export type Emit = ServiceDeps['emit'];
type DocumentRequest = InvoiceRequest | CreditNoteRequest;

const SUBJECT: Record<SalesDocType, string> = {
  sales_invoice: SUBJECTS.salesInvoicePosted,
  sales_credit_note: SUBJECTS.salesCreditNotePosted,
};
const LABEL: Record<SalesDocType, string> = { sales_invoice: 'invoice', sales_credit_note: 'credit note' };

// ------------------------------------------------------------------ arithmetic input

/** The arithmetic input of a request: only what the figures depend on (derived figures are ignored). */
export function documentInputOf(input: DocumentRequest, legalCurrency: string): DocumentInput {
  const taxes = (t: SalesTaxLineRequest[] | null | undefined) =>
    (t ?? []).map((x) => ({ tax_code: x.tax_code ?? null, tax_name: x.tax_name ?? null, tax_rate: x.tax_rate, rate_type: x.rate_type ?? null, tax_index: x.tax_index ?? null }));
  return {
    precision: input.precision ?? 2,
    taxes_included: input.taxes_included ?? false,
    currency: input.currency,
    legal_currency: legalCurrency,
    fx_rate: input.fx_rate ?? null,
    currency_coef: input.currency_coef ?? null,
    tax_fx_rate: input.tax_fx_rate ?? null,
    items: input.items.map((i) => ({ qty: i.qty, rate: i.rate, discount_explicit: i.discount_explicit ?? null, taxes: taxes(i.taxes) })),
    shipping_charges: (input.shipping_charges ?? []).map((s) => ({ amount: s.amount, taxes: taxes(s.taxes) })),
    discounts: (input.discounts ?? []).map((d) => ({
      title: d.title ?? null,
      value: d.value,
      value_type: d.value_type,
      allocation_method: d.allocation_method ?? 'across',
      target_type: d.target_type ?? 'line_item',
    })),
    amount_paid: 0,
  };
}

// ------------------------------------------------------------------ stored body

const n = (v: string | null | undefined) => toWire(v);

function taxLineBody(t: ComputedTaxLine, index: number, details?: Record<string, unknown> | null) {
  return {
    id: index + 1,
    tax_rate: n(t.tax_rate),
    tax_amount: n(t.tax_amount),
    tax_amount_leg: n(t.tax_amount_leg),
    tax_base: n(t.tax_base),
    tax_base_leg: n(t.tax_base_leg),
    currency_leg: t.currency_leg,
    tax_index: t.tax_index,
    tax_code: t.tax_code,
    tax_name: t.tax_name,
    rate_type: t.rate_type,
    tax_details: details ?? null,
  };
}

interface BodyContext {
  id: number;
  uid: string;
  docType: SalesDocType;
  no: string;
  counterId: number | null;
  createdAt: Date;
  org: Record<string, unknown> | null;
  credited?: { id: number | null; no: string | null };
}

/** The document as stored once and answered by GET and carried by events (JSON numbers). */
export function documentBody(input: DocumentRequest, c: ComputedDocument, ctx: BodyContext): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: ctx.id,
    uid: ctx.uid,
    created_at: ctx.createdAt.toISOString(),
    edited_at: null,
    is_locked: false,
    total_amount: n(c.total_amount),
    subtotal_amount: n(c.subtotal_amount),
    tax_amount: n(c.tax_amount),
    amount_paid: n(c.amount_paid),
    amount_due: n(c.amount_due),
    bank_account: input.bank_account ?? null,
    billing_address: input.billing_address ?? null,
    shipping_address: input.shipping_address ?? null,
    counter_id: ctx.counterId,
    currency: c.currency,
    currency_coef: n(c.currency_coef),
    fx_rate: n(c.fx_rate),
    tax_fx_rate: n(c.tax_fx_rate),
    currency_leg: c.currency_leg,
    subtotal_amount_leg: n(c.subtotal_amount_leg),
    tax_amount_leg: n(c.tax_amount_leg),
    total_amount_leg: n(c.total_amount_leg),
    customer: input.customer,
    culture: input.culture ?? null,
    document_locale: input.document_locale ?? null,
    template_layout: input.template_layout ?? null,
    date_issued: input.date_issued,
    date_taxable: input.date_taxable ?? input.date_issued,
    date_due: input.date_due ?? null,
    delivery_condition: input.delivery_condition ?? null,
    no: ctx.no,
    notes: input.notes ?? null,
    memo: input.memo ?? null,
    org: ctx.org,
    payment_reference: input.payment_reference ?? null,
    payment_info: input.payment_info ?? null,
    ...(ctx.docType === 'sales_credit_note'
      ? { credited_doc_id: ctx.credited?.id ?? null, credited_doc_no: ctx.credited?.no ?? null }
      : {
          buyer_reference: (input as InvoiceRequest).buyer_reference ?? null,
          order_reference: (input as InvoiceRequest).order_reference ?? null,
        }),
    payment_term: input.payment_term ?? null,
    precision: c.precision,
    rate_format: input.rate_format ?? null,
    taxes_included: c.taxes_included,
    tax_nexus: input.tax_nexus ?? null,
    type: input.type ?? null,
    payment_status: c.payment_status,
    overdue_days: 0,
    shop_a_object_id: input.shop_a_object_id ?? null,
    items: input.items.map((it, i) => {
      const ci = c.items[i];
      return {
        id: i + 1,
        title: it.title ?? null,
        description: it.description ?? null,
        qty: n(ci.qty),
        rate: n(ci.rate),
        rate_discounted: n(ci.rate_discounted),
        discount_explicit: n(ci.discount_explicit),
        discount_implicit: n(ci.discount_implicit),
        amount: n(ci.amount),
        net_amount: n(ci.net_amount),
        shop_a_line_id: it.shop_a_line_id ?? null,
        psp_object_id: it.psp_object_id ?? null,
        shop_b_line_id: it.shop_b_line_id ?? null,
        eshop_line_id: it.eshop_line_id ?? null,
        sku: it.sku ?? it.item?.sku ?? null,
        item: it.item ?? null,
        variant: it.variant ?? null,
        unit: it.unit ?? null,
        gl_account: it.gl_account ?? null,
        taxes: ci.taxes.map((t, k) => taxLineBody(t, k, it.taxes?.[k]?.tax_details)),
      };
    }),
    taxes: c.taxes.map((t, k) => taxLineBody(t, k)),
    shipping_charges: (input.shipping_charges ?? []).map((s, i) => {
      const cs = c.shipping_charges[i];
      return {
        id: i + 1,
        title: s.title ?? null,
        amount: n(cs.amount),
        discount_implicit: n(cs.discount_implicit),
        net_amount: n(cs.net_amount),
        shop_a_line_id: s.shop_a_line_id ?? null,
        shop_b_line_id: s.shop_b_line_id ?? null,
        eshop_line_id: s.eshop_line_id ?? null,
        taxes: cs.taxes.map((t, k) => taxLineBody(t, k, s.taxes?.[k]?.tax_details)),
      };
    }),
    discounts: c.discounts.map((d) => ({
      title: d.title,
      amount: n(d.amount),
      value: n(d.value),
      value_type: d.value_type,
      allocation_method: d.allocation_method,
      target_type: d.target_type,
    })),
    urls: [],
  };
  return body;
}

/** Whole days past the due date while something is still due (0 otherwise), as of `today`. */
export function overdueDays(dateDue: string | null | undefined, amountDue: string, today = new Date()): number {
  if (!dateDue || !dec(amountDue).gt(0)) return 0;
  const due = Date.parse(`${dateDue}T00:00:00Z`);
  const now = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return Math.max(0, Math.floor((now - due) / 86_400_000));
}

/** The view of an invoice is an Invoice, of a credit note a CreditNote. */
export type SalesView<T extends SalesDocType> = T extends 'sales_invoice' ? Invoice : CreditNote;

/**
 * `documentView` of a document whose type the caller knows. The stored body is the answer the
 * contract describes (written from the computed document when it was posted), so this is where
 * the stored JSON is trusted to have that shape.
 */
export function salesView<T extends SalesDocType>(d: SalesDocument, docType: T): SalesView<T> {
  if (d.docType !== docType) throw new Error(`sales document ${d.id} is a ${d.docType}, not a ${docType}`);
  return documentView(d) as SalesView<T>;
}

/** The stored body with the current payment state (the only part that changes after posting). */
export function documentView(d: SalesDocument): Record<string, unknown> {
  return {
    ...d.body,
    amount_paid: n(d.amountPaid),
    amount_due: n(d.amountDue),
    payment_status: d.paymentStatus,
    edited_at: d.editedAt ? d.editedAt.toISOString() : null,
    overdue_days: overdueDays(d.dateDue, d.amountDue),
  };
}

// ------------------------------------------------------------------ posting

interface CreditedInvoice {
  id: number | null;
  no: string | null;
}

/** Same customer: by id when both carry one, else by name and VAT number. */
function sameCustomer(a: Record<string, unknown> | null | undefined, b: Record<string, unknown> | null | undefined): boolean {
  if (!a || !b) return false;
  if (a.id != null && b.id != null) return Number(a.id) === Number(b.id);
  const norm = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : '');
  return norm(a.business_name) === norm(b.business_name) && norm(a.vat_no) === norm(b.vat_no) && norm(a.business_name) !== '';
}

/**
 * Checks the credited invoice (same organisation and customer; the credit notes of an invoice may
 * not exceed its total). The invoice row is locked so concurrent credit notes cannot both pass.
 */
async function checkCreditedInvoice(em: EntityManager, input: CreditNoteRequest, computed: ComputedDocument): Promise<CreditedInvoice> {
  if (input.credited_doc_id == null) return { id: null, no: input.credited_doc_no ?? null };
  const invoice = await em.findOne(
    SalesDocumentSchema,
    { id: input.credited_doc_id, docType: 'sales_invoice' },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!invoice) {
    throw new BusinessRuleError(`Invoice ${input.credited_doc_id} does not exist`, 'credited_invoice_not_found', [
      { path: 'credited_doc_id', message: 'no such invoice in this organisation', code: 'credited_invoice_not_found' },
    ]);
  }
  if (!sameCustomer(invoice.body.customer as Record<string, unknown>, input.customer as Record<string, unknown>)) {
    throw new BusinessRuleError('A credit note must have the customer of the invoice it credits', 'customer_mismatch', [
      { path: 'customer', message: 'differs from the customer of the credited invoice', code: 'customer_mismatch' },
    ]);
  }
  if (invoice.currency !== computed.currency) {
    throw new BusinessRuleError('A credit note must be in the currency of the invoice it credits', 'currency_mismatch', [
      { path: 'currency', message: `the credited invoice is in ${invoice.currency}`, code: 'currency_mismatch' },
    ]);
  }
  const earlier = await em.find(SalesDocumentSchema, { docType: 'sales_credit_note', creditedDocId: invoice.id }, { fields: ['totalAmount'] });
  assertCreditHeadroom({
    creditedTotal: invoice.totalAmount,
    earlierCredits: earlier.map((cn) => cn.totalAmount),
    credit: computed.total_amount,
    precision: computed.precision,
    creditsOf: `Credit notes of invoice ${invoice.no}`,
    document: 'invoice',
    code: 'credit_exceeds_invoice',
  });
  return { id: invoice.id, no: invoice.no };
}

function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; name?: string };
  return err?.name === 'UniqueConstraintViolationException' || err?.code === '23505';
}

/** Fields of the view that differ from the stored body only once payments arrive or time passes. */
const VIEW_OVERLAY = ['amount_paid', 'amount_due', 'payment_status', 'edited_at', 'overdue_days'] as const;

const DOC_COLUMNS = `id, uid, org_id, doc_type, no, counter_id, customer_id, customer_name, currency, precision, date_issued, date_due,
  notes, credited_doc_id, credited_doc_no, subtotal_amount, tax_amount, total_amount, amount_paid, amount_due, payment_status, body,
  created_at, updated_at`;
const DOC_VALUES = `?::bigint, ?::uuid, ?::bigint, ?::text, numbered.no, ?::bigint, ?::bigint, ?::text, ?::text, ?::smallint, ?::date, ?::date,
  ?::text, ?::bigint, ?::text, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?::numeric, ?::text, jsonb_set(?::jsonb, '{no}', to_jsonb(numbered.no)),
  ?::timestamptz, ?::timestamptz`;

/** The counter upsert (row lock until commit) and the number it gives, formatted in SQL. */
const NUMBER_FROM_COUNTER = `counter as (
    insert into number_series_counters (series_id, period_key, last_value) values (?, ?, 1)
    on conflict (series_id, period_key) do update set last_value = number_series_counters.last_value + 1
    returning last_value
  ), numbered as (
    select ?::text || lpad(last_value::text, greatest(?::int, length(last_value::text)), '0') || ?::text as no from counter
  )`;
const NUMBER_GIVEN = `numbered as (select ?::text as no)`;

/**
 * One statement: (the counter upsert and the number,) the document row unless its number is taken
 * (`on conflict do nothing`), and its outbox event only when the document row was written; the
 * number is written into the prepared body and envelope by `jsonb_set`. Taking the number is thus
 * one round trip, so the series row stays locked for that statement and the commit only.
 */
function insertStatement(numberCte: string): string {
  return `with ${numberCte}, doc as (
    insert into sales_documents (${DOC_COLUMNS})
    select ${DOC_VALUES} from numbered
    on conflict (org_id, doc_type, no) do nothing
    returning no
  ), event as (
    insert into kit_outbox ${OUTBOX_COLUMNS}
    select ?::uuid, ?::text, ?::text, ?::bigint, jsonb_set(?::jsonb, '{data,no}', to_jsonb(doc.no)) from doc
  )
  select numbered.no, exists (select 1 from doc) as inserted from numbered`;
}
const INSERT_NUMBERED = insertStatement(NUMBER_FROM_COUNTER);
const INSERT_GIVEN = insertStatement(NUMBER_GIVEN);

const PREPARE = `select nextval(pg_get_serial_sequence('sales_documents', 'id'))::bigint as id,
  (select json_build_object('legal_currency', legal_currency, 'profile', profile) from kit_organisations where org_id = ?) as replica,
  (select json_build_object('id', id, 'mask', mask) from number_series where org_id = ? and doc_type = ? and is_default) as series`;

export interface PostDeps {
  prepareEvent: ServiceDeps['prepareEvent'];
  /** 422 when a derived figure the client sent differs from the computed one (DESIGN §4). */
  strict?: boolean;
}

/**
 * Posts a sales document: figures computed once, number allocated in the same transaction, the
 * issuer copied from the organisation replica, the `*.posted` event recorded in the outbox.
 *
 * Everything is prepared before the number is taken (figures, body and event JSON, the id from
 * its sequence); the number, the document row and the event are then written by one statement,
 * so concurrent documents of a series serialise only on that statement and the commit.
 */
export async function postSalesDocument(
  em: EntityManager,
  orgId: number,
  docType: SalesDocType,
  input: DocumentRequest,
  deps: PostDeps,
): Promise<SalesDocument> {
  // One round trip for what the document needs first: its id (from the sequence, before the number
  // is taken), the organisation replica (legal currency, issuer) and the default series.
  const [pre] = await sqlRows<{
    id: number;
    replica: { legal_currency: string; profile: Record<string, unknown> } | null;
    series: { id: number; mask: string } | null;
  }>(em, PREPARE, [orgId, orgId, docType]);
  const id = pre.id;
  const replica = pre.replica ? { legalCurrency: pre.replica.legal_currency, profile: pre.replica.profile } : null;
  const computed = computeDocument(documentInputOf(input, replica?.legalCurrency ?? FALLBACK_LEGAL_CURRENCY));
  if (deps.strict) assertDerivedFigures(input, computed);
  const credited = docType === 'sales_credit_note' ? await checkCreditedInvoice(em, input as CreditNoteRequest, computed) : undefined;

  const uid = randomUUID();
  const now = new Date();
  const org = (input.org as Record<string, unknown> | null | undefined) ?? issuerSnapshot(replica);

  const explicitNo = input.no != null && input.no.trim() !== '' ? input.no.trim() : null;
  let counterId: number | null = input.counter_id ?? null;
  let pattern: NumberPattern | null = null;
  if (explicitNo !== null) {
    if (counterId !== null) await pickSeries(em, orgId, docType, counterId); // must still name a series of ours
  } else {
    const series = input.counter_id == null && pre.series ? pre.series : await pickSeries(em, orgId, docType, input.counter_id);
    pattern = numberPattern(series, input.date_issued);
    counterId = series.id;
  }

  const precision = computed.precision;
  const doc: SalesDocument = {
    id,
    uid,
    orgId,
    docType,
    no: explicitNo ?? '',
    counterId,
    customerId: input.customer.id ?? null,
    customerName: input.customer.business_name ?? input.customer.display_name ?? null,
    currency: computed.currency,
    precision,
    dateIssued: input.date_issued,
    dateDue: input.date_due ?? null,
    notes: input.notes ?? null,
    creditedDocId: credited?.id ?? null,
    creditedDocNo: credited?.no ?? null,
    subtotalAmount: toDb(computed.subtotal_amount, precision),
    taxAmount: toDb(computed.tax_amount, precision),
    totalAmount: toDb(computed.total_amount, precision),
    amountPaid: toDb(computed.amount_paid, precision),
    amountDue: toDb(computed.amount_due, precision),
    paymentStatus: computed.payment_status,
    body: documentBody(await withCatalogueAccounts(em, input), computed, { id, uid, docType, no: explicitNo ?? '', counterId, createdAt: now, org, credited }),
    createdAt: now,
    updatedAt: now,
    editedAt: null,
  };
  // Serialised once: the stored body, and the event's data unless the view already differs.
  const bodyJson = JSON.stringify(doc.body);
  const view = documentView(doc);
  const viewJson = VIEW_OVERLAY.every((k) => view[k] === doc.body[k]) ? bodyJson : JSON.stringify(view);
  const event = deps.prepareEvent({ subject: SUBJECT[docType], orgId, resource: String(id), data: view }, viewJson);

  const row = [
    id, uid, orgId, docType, counterId, doc.customerId, doc.customerName, doc.currency, precision, doc.dateIssued, doc.dateDue,
    doc.notes, doc.creditedDocId, doc.creditedDocNo, doc.subtotalAmount, doc.taxAmount, doc.totalAmount, doc.amountPaid, doc.amountDue,
    doc.paymentStatus, bodyJson, now.toISOString(), now.toISOString(),
    event.id, event.subject, event.type, event.orgId, event.json,
  ];
  let no: string | null = null;
  try {
    if (pattern === null) {
      const [r] = await sqlRows<{ no: string; inserted: boolean }>(em, INSERT_GIVEN, [explicitNo, ...row]);
      if (!r.inserted) throw duplicateNumber(docType, explicitNo!);
      no = r.no;
    } else {
      // A number already used by an explicitly numbered document is skipped (the counter moves on).
      for (let attempt = 0; attempt < 1000 && no === null; attempt++) {
        const [r] = await sqlRows<{ no: string; inserted: boolean }>(em, INSERT_NUMBERED, [
          pattern.seriesId,
          pattern.period,
          pattern.prefix,
          pattern.width,
          pattern.suffix,
          ...row,
        ]);
        if (r.inserted) no = r.no;
      }
      if (no === null) throw new ConflictError(`Numbering series ${pattern.seriesId} has no free number`, 'numbering_exhausted');
    }
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicateNumber(docType, no ?? explicitNo ?? '');
    throw e;
  }
  doc.no = no;
  doc.body.no = no;
  return doc;
}

export async function getSalesDocument(em: EntityManager, docType: SalesDocType, id: number): Promise<SalesDocument> {
  const doc = await em.findOne(SalesDocumentSchema, { id, docType });
  if (!doc) throw new NotFoundError(`No ${LABEL[docType]} ${id} in this organisation`, `${docType.replace('sales_', '')}_not_found`);
  return doc;
}
