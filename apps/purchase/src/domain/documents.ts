import type { VendorBill, VendorCredit } from '@ledgerline/contracts';
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { transactionTypeSchema } from '@ledgerline/contracts/common';
import { vendorBillRequestSchema, vendorCreditRequestSchema } from '@ledgerline/contracts/purchase';
import { SUBJECTS } from '@ledgerline/contracts';
import { assertCreditHeadroom, assertDerivedFigures, computeDocument, DocumentValidationError, type ComputedTaxLine, type DocumentInput } from '@ledgerline/documents';
import {
  BusinessRuleError,
  ConflictError,
  NotFoundError,
  dec,
  parseOrThrow,
  toWire,
  type ServiceDeps,
} from '@ledgerline/service-kit';
import {
  PurchaseDocumentSchema,
  type PurchaseDocument,
  type PurchaseKind,
  type StoredItem,
  type StoredTaxLine,
} from '../db/entities.js';
import { allocateNumber } from './numbering.js';
import { daysPast, isoDay, legalCurrencyOf } from '@ledgerline/service-kit';

export type Emit = ServiceDeps['emit'];

export const KIND_TYPES: Record<PurchaseKind, 'purchase_bill' | 'purchase_vendor_credit'> = {
  bill: 'purchase_bill',
  vendor_credit: 'purchase_vendor_credit',
};
const EVENT_SUBJECTS: Record<PurchaseKind, string> = {
  bill: SUBJECTS.purchaseBillPosted,
  vendor_credit: SUBJECTS.purchaseVendorCreditPosted,
};
const REQUEST_SCHEMAS = { bill: vendorBillRequestSchema, vendor_credit: vendorCreditRequestSchema } as const;

/** Derived or identifying fields a request may carry but that never come from the client. */
const NOT_INPUT = [
  'id', 'uid', 'created_at', 'edited_at', 'is_locked', 'total_amount', 'subtotal_amount', 'amount_paid',
  'amount_due', 'payment_status', 'overdue_days', 'taxes',
] as const;
/** Fields a copy (`copy_from_id`) does not take over from its source. */
const NOT_COPIED = [...NOT_INPUT, 'no', 'copy_from_id', 'credited_doc_no'] as const;

function omit(obj: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!keys.includes(k) && v !== undefined) out[k] = v;
  return out;
}

/**
 * The request of a new document. With `copy_from_id` the new document starts from the copied
 * document's accepted input, and every field the body carries overrides it. `type` must be in the
 * body itself either way (spec §2.3: required in the request).
 */
async function readRequest(em: EntityManager, kind: PurchaseKind, raw: unknown) {
  const schema = REQUEST_SCHEMAS[kind];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return parseOrThrow(schema, raw);
  const body = raw as Record<string, unknown>;
  if (body.copy_from_id === undefined || body.copy_from_id === null) return parseOrThrow(schema, body);

  const head = parseOrThrow(z.object({ type: transactionTypeSchema, copy_from_id: z.int().min(1) }), body);
  const source = await em.findOne(PurchaseDocumentSchema, { id: head.copy_from_id });
  if (!source) {
    throw new BusinessRuleError(`Purchase document ${head.copy_from_id} to copy from does not exist`, 'copy_source_not_found', [
      { path: 'copy_from_id', message: 'no such purchase document', code: 'copy_source_not_found' },
    ]);
  }
  return parseOrThrow(schema, { ...omit(source.input, NOT_COPIED), ...omit(body, []) });
}

/** Whether two vendor contacts are the same party: by id, else VAT number, else registration number, else name. */
export function sameVendor(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const norm = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v ?? null);
  for (const key of ['id', 'vat_no', 'reg_no', 'business_name']) {
    const x = norm(a[key]);
    const y = norm(b[key]);
    if (x !== null && y !== null && x !== '' && y !== '') return x === y;
  }
  return false;
}

function storeTax(t: ComputedTaxLine): StoredTaxLine {
  return {
    tax_index: t.tax_index,
    tax_rate: t.tax_rate,
    tax_amount: t.tax_amount,
    tax_amount_leg: t.tax_amount_leg,
    tax_base: t.tax_base,
    tax_base_leg: t.tax_base_leg,
    tax_code: t.tax_code,
    tax_name: t.tax_name,
    rate_type: t.rate_type,
  };
}

async function nextLineIds(em: EntityManager, n: number): Promise<number[]> {
  if (n === 0) return [];
  const rows = (await em
    .getConnection()
    .execute('select nextval(\'purchase_line_ids\') as id from generate_series(1, ?)', [n], 'all', em.getTransactionContext())) as Array<{
    id: number | string;
  }>;
  return rows.map((r) => Number(r.id));
}

/** The shared document arithmetic; its `fx_rate` is this interface's `tax_fx_rate`, so errors name that field. */
function computeFigures(input: DocumentInput) {
  try {
    return computeDocument(input);
  } catch (e) {
    if (e instanceof DocumentValidationError && e.errors?.some((x) => x.path === 'fx_rate')) {
      throw new DocumentValidationError(
        e.errors.map((x) => (x.path === 'fx_rate' ? { ...x, path: 'tax_fx_rate', message: `${x.message} when currency is not the legal currency` } : x)),
      );
    }
    throw e;
  }
}

/**
 * Posts a vendor bill or vendor credit: validates, computes every figure once with the shared
 * document arithmetic, numbers it, stores it and records its `*.posted` event in the same transaction.
 */
export async function postPurchaseDocument<K extends PurchaseKind>(
  em: EntityManager,
  orgId: number,
  kind: K,
  raw: unknown,
  emit: Emit,
  opts: { strict?: boolean } = {},
): Promise<PurchaseView<K>> {
  const req = await readRequest(em, kind, raw);
  const input = omit(req as Record<string, unknown>, NOT_INPUT);

  let credited: PurchaseDocument | null = null;
  if (kind === 'vendor_credit' && 'credited_doc_id' in req && req.credited_doc_id) {
    // Locked until commit: concurrent credits of one bill are checked one after another.
    credited = await em.findOne(PurchaseDocumentSchema, { id: req.credited_doc_id, kind: 'bill' }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const fail = (message: string) =>
      new BusinessRuleError(message, 'invalid_credited_document', [{ path: 'credited_doc_id', message, code: 'invalid_credited_document' }]);
    if (!credited) throw fail(`Vendor bill ${req.credited_doc_id} does not exist`);
    if (!sameVendor(credited.vendor, req.vendor as Record<string, unknown>)) throw fail('The credited bill belongs to another vendor');
    if (credited.currency.trim() !== req.currency) {
      throw new BusinessRuleError('A vendor credit must be in the currency of the bill it credits', 'currency_mismatch', [
        { path: 'currency', message: `the credited bill is in ${credited.currency.trim()}`, code: 'currency_mismatch' },
      ]);
    }
  }

  const computed = computeFigures({
    currency: req.currency,
    legal_currency: await legalCurrencyOf(em, orgId),
    // Purchase documents carry one rate to the legal currency: tax_fx_rate.
    fx_rate: req.tax_fx_rate ?? null,
    tax_fx_rate: req.tax_fx_rate ?? null,
    precision: req.precision ?? 2,
    taxes_included: req.taxes_included ?? false,
    items: req.items.map((it) => ({
      qty: it.qty,
      rate: it.rate,
      taxes: it.taxes ?? [],
      tax_deduction_ratio: it.tax_deduction_ratio ?? null,
      net_deduction_ratio: it.net_deduction_ratio ?? null,
    })),
  });
  if (opts.strict) assertDerivedFigures(req, computed);
  if (credited) {
    const earlier = await em.find(PurchaseDocumentSchema, { kind: 'vendor_credit', creditedDocId: credited.id }, { fields: ['totalAmount'] });
    assertCreditHeadroom({
      creditedTotal: credited.totalAmount,
      earlierCredits: earlier.map((vc) => vc.totalAmount),
      credit: computed.total_amount,
      precision: computed.precision,
      creditsOf: `Vendor credits of bill ${credited.no}`,
      document: 'bill',
      code: 'credit_exceeds_document',
    });
  }

  let no = req.no?.trim() || null;
  if (no) {
    if ((await em.count(PurchaseDocumentSchema, { kind, no })) > 0) {
      throw new ConflictError(`A ${kind === 'bill' ? 'vendor bill' : 'vendor credit'} numbered ${no} already exists`, 'duplicate_number');
    }
  } else {
    // Skip numbers of the series a client already used by hand.
    do no = await allocateNumber(em, orgId, kind, req.date_issued);
    while ((await em.count(PurchaseDocumentSchema, { kind, no })) > 0);
  }

  const lineIds = await nextLineIds(em, req.items.length);
  const items: StoredItem[] = req.items.map((it, i) => {
    const c = computed.items[i];
    return {
      id: lineIds[i],
      description: it.description ?? null,
      qty: c.qty,
      rate: c.rate,
      amount: c.amount,
      tax_deduction_ratio: c.tax_deduction_ratio ?? '1',
      net_deduction_ratio: c.net_deduction_ratio ?? '1',
      item: (it.item as Record<string, unknown>) ?? null,
      unit: (it.unit as Record<string, unknown>) ?? null,
      gl_account: (it.gl_account as Record<string, unknown> | null | undefined) ?? null,
      taxes: c.taxes.map(storeTax),
    };
  });

  const vendor = req.vendor as Record<string, unknown>;
  const doc = em.create(PurchaseDocumentSchema, {
    orgId,
    kind,
    uid: randomUUID(),
    no,
    vendorDocNo: req.vendor_doc_no ?? null,
    creditedDocId: credited?.id ?? null,
    creditedDocNo: credited?.no ?? null,
    copyFromId: req.copy_from_id ?? null,
    vendor,
    vendorName: (vendor.business_name as string | undefined) ?? (vendor.display_name as string | undefined) ?? null,
    type: req.type as Record<string, unknown>,
    currency: computed.currency,
    precision: computed.precision,
    taxesIncluded: computed.taxes_included,
    taxFxRate: computed.tax_fx_rate,
    dateIssued: req.date_issued,
    dateTaxable: req.date_taxable ?? null,
    dateDue: req.date_due ?? null,
    description: req.description ?? null,
    rateFormat: req.rate_format ?? null,
    taxNexus: (req.tax_nexus as Record<string, unknown>) ?? null,
    paymentReference: req.payment_reference ?? null,
    bankAccountNumber: req.bank_account_number ?? null,
    rsn: req.rsn ?? null,
    items,
    taxes: computed.taxes.map(storeTax),
    subtotalAmount: computed.subtotal_amount,
    taxAmount: computed.tax_amount,
    totalAmount: computed.total_amount,
    amountPaid: computed.amount_paid,
    amountDue: computed.amount_due,
    paymentStatus: computed.payment_status,
    isLocked: false,
    input,
    createdAt: new Date(),
    editedAt: new Date(),
  });
  try {
    await em.flush();
  } catch (e) {
    // A concurrent request took the same number between the check and the insert.
    if ((e as { name?: string }).name === 'UniqueConstraintViolationException') {
      throw new ConflictError(`A ${kind === 'bill' ? 'vendor bill' : 'vendor credit'} numbered ${no} already exists`, 'duplicate_number');
    }
    throw e;
  }

  const view = purchaseView(doc, kind);
  await emit(em, { subject: EVENT_SUBJECTS[kind], orgId, resource: String(doc.id), data: view });
  return view;
}

/** The view of a bill is a VendorBill, of a vendor credit a VendorCredit. */
export type PurchaseView<K extends PurchaseKind> = K extends 'bill' ? VendorBill : VendorCredit;

/** `documentView` of a document whose kind the caller knows (it adds the credit fields exactly for vendor credits). */
export function purchaseView<K extends PurchaseKind>(d: PurchaseDocument, kind: K): PurchaseView<K> {
  if (d.kind !== kind) throw new Error(`purchase document ${d.id} is a ${d.kind}, not a ${kind}`);
  return documentView(d) as PurchaseView<K>;
}

const wireTax = (t: StoredTaxLine) => ({
  id: null,
  tax_index: t.tax_index,
  tax_rate: toWire(t.tax_rate),
  tax_amount: toWire(t.tax_amount),
  tax_amount_leg: toWire(t.tax_amount_leg),
  tax_base: toWire(t.tax_base),
  tax_base_leg: toWire(t.tax_base_leg),
  tax_code: t.tax_code,
  tax_name: t.tax_name,
  rate_type: t.rate_type,
});

/** The stored document as the interface answers it (spec §2.3; bills without credited_doc_*). */
export function documentView(d: PurchaseDocument): VendorBill | VendorCredit {
  const dateDue = isoDay(d.dateDue);
  const view: VendorBill = {
    id: d.id,
    uid: d.uid,
    created_at: d.createdAt.toISOString(),
    edited_at: d.editedAt.toISOString(),
    is_locked: d.isLocked,
    total_amount: toWire(d.totalAmount),
    subtotal_amount: toWire(d.subtotalAmount),
    amount_paid: toWire(d.amountPaid),
    amount_due: toWire(d.amountDue),
    currency: d.currency.trim(),
    vendor: d.vendor,
    date_issued: isoDay(d.dateIssued),
    date_taxable: isoDay(d.dateTaxable),
    date_due: dateDue,
    no: d.no,
    description: d.description ?? null,
    precision: d.precision,
    rate_format: d.rateFormat ?? null,
    taxes_included: d.taxesIncluded,
    tax_fx_rate: toWire(d.taxFxRate),
    type: d.type,
    payment_status: d.paymentStatus,
    overdue_days: dec(d.amountDue).gt(0) ? daysPast(dateDue) : 0,
    tax_nexus: d.taxNexus ?? null,
    vendor_doc_no: d.vendorDocNo ?? null,
    payment_reference: d.paymentReference ?? null,
    bank_account_number: d.bankAccountNumber ?? null,
    copy_from_id: d.copyFromId ?? null,
    items: d.items.map((it) => ({
      id: it.id,
      description: it.description,
      qty: toWire(it.qty),
      rate: toWire(it.rate),
      amount: toWire(it.amount),
      tax_deduction_ratio: toWire(it.tax_deduction_ratio),
      net_deduction_ratio: toWire(it.net_deduction_ratio),
      item: it.item,
      unit: it.unit,
      gl_account: it.gl_account ?? null,
      taxes: it.taxes.map(wireTax),
    })),
    taxes: d.taxes.map(wireTax),
    rsn: d.rsn ?? null,
  };
  if (d.kind === 'vendor_credit') return { ...view, credited_doc_id: d.creditedDocId ?? null, credited_doc_no: d.creditedDocNo ?? null } satisfies VendorCredit;
  return view;
}

export async function findPurchaseDocument(em: EntityManager, kind: PurchaseKind, id: number): Promise<PurchaseDocument> {
  const doc = await em.findOne(PurchaseDocumentSchema, { id, kind });
  if (!doc) throw new NotFoundError(`${kind === 'bill' ? 'Vendor bill' : 'Vendor credit'} ${id} does not exist`, 'document_not_found');
  return doc;
}

