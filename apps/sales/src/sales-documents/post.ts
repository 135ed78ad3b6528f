import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { FALLBACK_LEGAL_CURRENCY, JsonText, tableRate, NotFoundError, lockDateOf, postingDate, refuseClosedPeriod, sqlRows, toDb, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { NUMBER_PLACEHOLDER, checkCreditedDocument, creditedIdOf, figuresAfterPayment, insertNumberedDocument, withDocumentNumber, type CreditRule, type DocumentNumber } from '@ledgerline/posted-documents';
import { assertDerivedFigures, computeDocument, numberPattern, type ComputedDocument } from '@ledgerline/documents';
import type { DocumentKind } from '@ledgerline/rendering';
import { SalesDocumentSchema, type SalesDocType, type SalesDocument } from '../db/entities.js';
import { duplicateNumber, pickSeries } from '../numbering-series/series.js';
import { catalogueItemIds, withCatalogueFacts } from '../items/items.js';
import { documentCategories, documentParties } from '@ledgerline/documents/line-categories';
import { checkIntraEuCustomer } from './customer-vat-check.js';
import { issuerSnapshot } from './issuer.js';
import { refuseDueBeforeIssue } from './dates.js';
import { documentBody, documentInputOf, type DocumentRequest } from './body.js';
import { SALES_VIEW_COLUMNS, VIEW_OVERLAY, documentView, viewTextOfRow, type SalesViewRow } from './view.js';

/**
 * What differs between the two sales documents, as data: the invoice and the credit note are
 * posted by the same steps (`postSalesDocument`).
 */
export interface SalesDocumentKind<T extends SalesDocType, R extends DocumentRequest> {
  docType: T;
  /** The `*.posted` subject; null for a kind that records its own event once the document is written (a proforma). */
  subject: string | null;
  /** e.g. `credit note`, in messages. */
  label: string;
  /** The template's document kind, and the first word of its PDF's file name. */
  rendering: DocumentKind;
  fileName: string;
  /** The document a request credits (credit notes), checked with the shared credit rule. */
  credits?: { rule: CreditRule; creditedId: (input: R) => number | null | undefined; creditedNo: (input: R) => string | null | undefined };
  /** Body fields only this kind carries, given the credited document when there is one and what issued it. */
  ownFields: (input: R, credited: { id: number | null; no: string | null } | null, issuedBy: IssuedBy) => Record<string, unknown>;
  /**
   * What the document deducts as already paid (a final invoice's advances), worked out in the
   * document's transaction once its figures are known: the amount counted as paid, the body
   * fields that state it, and what to do once the document has its number (settle the proformas).
   */
  deducts?: (ctx: TenantContext, input: R, computed: ComputedDocument, legalCurrency: string) => Promise<Deduction | null>;
}

/** What a document deducts as paid before any payment (see `SalesDocumentKind.deducts`). */
export interface Deduction {
  paid: string;
  own: Record<string, unknown>;
  /** The document's figures after the deduction: in a foreign currency, what the advances taxed kept at their legal values. */
  computed: ComputedDocument;
  written: (doc: { id: number; no: string }) => Promise<void>;
}

/** What issued a document besides a client's request: the recurring invoice whose period it is. */
export interface IssuedBy {
  recurringInvoiceId?: number | null;
  /** The proforma whose payment an advance tax document declares. */
  proformaId?: number | null;
}

const PREPARE = `select nextval(pg_get_serial_sequence('sales_documents', 'id'))::bigint as id,
  (select json_build_object('legal_currency', legal_currency, 'profile', profile) from kit_organisations where org_id = ?) as replica,
  (select json_build_object('id', id, 'mask', mask) from number_series where org_id = ? and doc_type = ? and is_default) as series`;
/** `PREPARE` with the revenue accounts and supply of the catalogue items the lines name (a statement of its own, so documents naming none pay nothing for it). */
const PREPARE_WITH_ITEMS = `${PREPARE},
  (select json_agg(json_build_object('id', id, 'gl_account', gl_account, 'supply', supply)) from items
    where org_id = ? and id = any(?::bigint[]) and (gl_account is not null or supply is not null)) as item_facts`;

/**
 * The rate of a foreign-currency document: the one it states, else the exchange-rate table's in
 * force on its tax point date (date_taxable, else date_issued), with the units it is quoted for;
 * 422 `fx_rate_required` when the table has none. `origin` is what the document says of it.
 * `validate` checks the rest of the document first (a 400 names every field at once).
 */
async function documentRate(ctx: TenantContext, input: DocumentRequest, legalCurrency: string, validate: () => unknown) {
  const currency = input.currency.toUpperCase();
  if (currency === legalCurrency) return { input: {}, origin: { fx_rate_date: null, fx_rate_source: null } };
  if (input.fx_rate != null) return { input: {}, origin: { fx_rate_date: null, fx_rate_source: 'stated' } };
  // a document that is wrong anyway is refused for all it gets wrong before the table is asked
  validate();
  const date = input.date_taxable ?? input.date_issued;
  const rate = await tableRate(ctx, { currency, date, legalCurrency, path: 'fx_rate' });
  return { input: { fx_rate: rate.rate, currency_coef: rate.amount }, origin: { fx_rate_date: rate.rate_date, fx_rate_source: rate.source } };
}

const hasExplicitNumber = (input: DocumentRequest) => input.no != null && input.no.trim() !== '';

/** Where the number comes from: the client's, else the series the request names, else the default series. */
async function documentNumber(
  em: EntityManager,
  orgId: number,
  docType: SalesDocType,
  input: DocumentRequest,
  defaultSeries: { id: number; mask: string } | null,
): Promise<{ counterId: number | null; number: DocumentNumber }> {
  const explicitNo = hasExplicitNumber(input) ? input.no!.trim() : null;
  if (explicitNo !== null) {
    if (input.counter_id != null) await pickSeries({ em, orgId }, docType, input.counter_id); // must still name a series of ours
    return { counterId: input.counter_id ?? null, number: { given: explicitNo } };
  }
  const series = input.counter_id == null && defaultSeries ? defaultSeries : await pickSeries({ em, orgId }, docType, input.counter_id);
  const pattern = numberPattern(series.mask, input.date_issued);
  return {
    counterId: series.id,
    number: { counter: { table: 'number_series_counters', key: { series_id: series.id, period_key: pattern.period } }, pattern },
  };
}

async function creditedOf<R extends DocumentRequest>(ctx: TenantContext, kind: SalesDocumentKind<SalesDocType, R>, input: R, computed: ComputedDocument) {
  if (!kind.credits) return null;
  const no = kind.credits.creditedNo(input)?.trim() || null;
  // an invoice named by its number alone is the invoice: checked and linked as by its id
  const id = await creditedIdOf(ctx.em, kind.credits.rule, ctx.orgId, { id: kind.credits.creditedId(input), no }, input.customer as Record<string, unknown>);
  if (id == null) return { id: null, no };
  const doc = await checkCreditedDocument(ctx.em, kind.credits.rule, {
    orgId: ctx.orgId,
    creditedId: id,
    party: input.customer as Record<string, unknown>,
    currency: computed.currency,
    total: computed.total_amount,
    precision: computed.precision,
  });
  return { id: doc.id, no: doc.no };
}

/**
 * What a document is before it is written: its figures computed once (at the table's rate when it
 * states none), its catalogue facts and VAT categories, the customer's VIES check; with the id it
 * will have and the organisation replica and default series it was read with.
 */
async function draftSalesDocument<T extends SalesDocType, R extends DocumentRequest>(ctx: TenantContext, kind: SalesDocumentKind<T, R>, input: R, opts: { strict?: boolean }) {
  const { em, orgId } = ctx;
  const docType = kind.docType;
  refuseDueBeforeIssue(input);
  // One round trip for what the document needs first: its id (from the sequence, before the number
  // is taken), the organisation replica (legal currency, issuer), the default series and the
  // revenue accounts of the catalogue items its lines name.
  const itemIds = catalogueItemIds(input);
  const [sql, params] = itemIds.length ? [PREPARE_WITH_ITEMS, [orgId, orgId, docType, orgId, `{${itemIds.join(',')}}`]] : [PREPARE, [orgId, orgId, docType]];
  const [pre] = await sqlRows<{
    id: number;
    replica: { legal_currency: string; profile: Record<string, unknown> } | null;
    series: { id: number; mask: string } | null;
    item_facts?: Array<{ id: number; gl_account: unknown; supply: 'goods' | 'services' | null }> | null;
  }>(em, sql, params, { prepared: true });
  const replica = pre.replica ? { legalCurrency: pre.replica.legal_currency, profile: pre.replica.profile } : null;
  const legalCurrency = replica?.legalCurrency ?? FALLBACK_LEGAL_CURRENCY;
  const figuresInput = documentInputOf(input, legalCurrency, replica?.profile.rounding_increment);
  const fx = await documentRate(ctx, input, legalCurrency, () => computeDocument({ ...figuresInput, fx_rate: 1 }));
  const computed = computeDocument({ ...figuresInput, ...fx.input });
  if (opts.strict) assertDerivedFigures(input, computed);
  refuseClosedPeriod(lockDateOf(replica?.profile), `the ${kind.label}`, [postingDate.document(input)]);
  const catalogued = withCatalogueFacts(input, new Map((pre.item_facts ?? []).map((a) => [Number(a.id), a])));
  const categories = documentCategories(input, documentParties(input.customer, input.billing_address?.country, replica?.profile.country as string | null | undefined));
  const customerVatCheck = await checkIntraEuCustomer(ctx, input.customer, categories);
  return { pre, replica, legalCurrency, fx, computed, catalogued, categories, customerVatCheck };
}

/**
 * A stored document drafted anew from a replacing request (an unpaid proforma's PUT): the same id,
 * uid, number and series, new figures and body. Returns the columns to write.
 */
export async function redraftSalesDocument<T extends SalesDocType, R extends DocumentRequest>(
  ctx: TenantContext,
  kind: SalesDocumentKind<T, R>,
  old: Pick<SalesDocument, 'id' | 'uid' | 'no' | 'counterId' | 'createdAt'>,
  input: R,
): Promise<Partial<SalesDocument>> {
  const { replica, fx, computed, catalogued, categories, customerVatCheck } = await draftSalesDocument(ctx, kind, input, {});
  const precision = computed.precision;
  const org = (input.org as Record<string, unknown> | null | undefined) ?? issuerSnapshot(replica);
  const body = documentBody(catalogued, computed, {
    id: old.id,
    uid: old.uid,
    no: old.no,
    counterId: old.counterId ?? null,
    createdAt: old.createdAt,
    org,
    own: { ...kind.ownFields(input, null, {}), ...fx.origin, ...(customerVatCheck && { customer_vat_check: customerVatCheck }) },
    categories,
    defaultSupply: replica?.profile.default_supply,
  });
  return { ...documentColumns(input, computed), body };
}

/** The columns a document's request and figures give, the same for a new document and a redrafted one. */
function documentColumns(input: DocumentRequest, computed: ComputedDocument, paid?: { amountPaid: string; amountDue: string; paymentStatus: string } | null) {
  const precision = computed.precision;
  return {
    customerId: input.customer.id ?? null,
    customerName: input.customer.business_name ?? input.customer.display_name ?? null,
    currency: computed.currency,
    precision,
    dateIssued: input.date_issued,
    dateDue: input.date_due ?? null,
    notes: input.notes ?? null,
    subtotalAmount: toDb(computed.subtotal_amount, precision),
    taxAmount: toDb(computed.tax_amount, precision),
    totalAmount: toDb(computed.total_amount, precision),
    amountPaid: paid?.amountPaid ?? toDb(computed.amount_paid, precision),
    amountDue: paid?.amountDue ?? toDb(computed.amount_due, precision),
    paymentStatus: paid?.paymentStatus ?? computed.payment_status,
    paymentReference: input.payment_reference ?? null,
  };
}

/**
 * Posts a sales document: figures computed once, the credited document checked, the issuer
 * copied from the organisation replica, then number, document and `*.posted` event written by
 * one statement (`insertNumberedDocument`).
 *
 * Everything is prepared before the number is taken (figures, body and event JSON, the id from
 * its sequence), so concurrent documents of a series serialise only on that statement and the
 * commit.
 */
export async function postSalesDocument<T extends SalesDocType, R extends DocumentRequest>(
  ctx: TenantContext,
  kind: SalesDocumentKind<T, R>,
  input: R,
  opts: { strict?: boolean } & IssuedBy = {},
): Promise<{ document: SalesDocument; view: JsonText; written: TenantContext }> {
  const { em, orgId } = ctx;
  const docType = kind.docType;
  const { pre, replica, legalCurrency, fx, computed: drafted, catalogued, categories, customerVatCheck } = await draftSalesDocument(ctx, kind, input, opts);
  const id = pre.id;
  const precision = drafted.precision;

  // From here on everything is written, and the credited document locked, in the transaction
  // shared by the concurrent documents of this type (one commit for the group, not one each): a
  // number from a series is taken under the series' row lock, held until the commit.
  const numbered = (hasExplicitNumber(input) ? await ctx.inOwnTransaction() : await ctx.inCommitGroup(docType)) as TenantContext;
  const credited = await creditedOf(numbered, kind, input, drafted);
  const { counterId, number } = await documentNumber(numbered.em, orgId, docType, input, pre.series);
  const deduction = kind.deducts ? await kind.deducts(numbered, input, drafted, legalCurrency) : null;
  const computed = deduction?.computed ?? drafted;
  const paid = deduction ? figuresAfterPayment({ totalAmount: computed.total_amount.toString(), amountPaid: '0', precision }, deduction.paid) : null;

  const uid = randomUUID();
  const now = ctx.now();
  const org = (input.org as Record<string, unknown> | null | undefined) ?? issuerSnapshot(replica);
  const no = 'given' in number ? number.given : NUMBER_PLACEHOLDER;
  const doc: SalesDocument = {
    id,
    uid,
    orgId,
    docType,
    no,
    counterId,
    ...documentColumns(input, computed, paid),
    creditedDocId: credited?.id ?? null,
    creditedDocNo: credited?.no ?? null,
    recurringInvoiceId: opts.recurringInvoiceId ?? null,
    proformaId: opts.proformaId ?? null,
    proformaState: null,
    settledById: null,
    settledByNo: null,
    cancelledAt: null,
    body: documentBody(catalogued, computed, { id, uid, no, counterId, createdAt: now, org, own: { ...kind.ownFields(input, credited, opts), ...fx.origin, ...(customerVatCheck && { customer_vat_check: customerVatCheck }), ...deduction?.own }, categories, defaultSupply: replica?.profile.default_supply }),
    createdAt: now,
    updatedAt: now,
    editedAt: null,
    viewIsBody: false,
  };
  // Serialised once: the stored body, and the event's data unless the view already differs.
  const bodyJson = JSON.stringify(doc.body);
  const view = documentView(doc);
  doc.viewIsBody = VIEW_OVERLAY.every((k) => view[k] === doc.body[k]);
  const viewJson = doc.viewIsBody ? bodyJson : JSON.stringify(view);
  const event = kind.subject ? ctx.prepareEvent({ subject: kind.subject, resource: String(id), data: view }, viewJson) : null;

  const { no: _no, editedAt: _editedAt, ...row } = doc;
  doc.no = await insertNumberedDocument(numbered.em, {
    schema: SalesDocumentSchema,
    row: { ...row, body: new JsonText(bodyJson) },
    numberProperty: 'no',
    numberIn: ['body'],
    uniqueKey: '(org_id, doc_type, no)',
    event,
    number,
    duplicate: (taken) => duplicateNumber(docType, taken),
  });
  doc.body.no = doc.no;
  if (deduction) await deduction.written({ id, no: doc.no });
  // the answer is the event's view, serialised once, with the number taken put in its place
  const answer = 'given' in number ? viewJson : withDocumentNumber(viewJson, doc.no);
  return { document: doc, view: new JsonText(answer), written: numbered };
}

/**
 * The answer of GET …/{id}: one prepared statement reads what the view needs (the stored body and
 * the payment state), without hydrating an entity (issue 15: the hot read of integrations polling
 * their documents).
 */
export async function readSalesDocumentView(scope: TenantScope, kind: { docType: SalesDocType; label: string }, id: number): Promise<JsonText> {
  const { em, orgId } = scope;
  const [row] = await sqlRows<SalesViewRow>(em, `select ${SALES_VIEW_COLUMNS} from sales_documents where org_id = ? and id = ? and doc_type = ?`, [orgId, id, kind.docType], {
    prepared: true,
  });
  if (!row) throw new NotFoundError(`No ${kind.label} ${id} in this organisation`, `${kind.docType.replace('sales_', '')}_not_found`);
  return new JsonText(viewTextOfRow(row));
}

export async function getSalesDocument(em: EntityManager, kind: { docType: SalesDocType; label: string }, id: number): Promise<SalesDocument> {
  const doc = await em.findOne(SalesDocumentSchema, { id, docType: kind.docType });
  if (!doc) throw new NotFoundError(`No ${kind.label} ${id} in this organisation`, `${kind.docType.replace('sales_', '')}_not_found`);
  return doc;
}
