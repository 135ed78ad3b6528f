import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import { assertDerivedFigures, computeDocument, DocumentValidationError, numberPattern, paymentStatus, type ComputedTaxLine, type DocumentInput } from '@ledgerline/documents';
import { dec, ratePerUnit, tableRate, toDb, JsonText, postingDate, postingSettingsOf, refuseClosedPeriod, sqlRows, type TenantContext } from '@ledgerline/service-kit';
import { documentCategories, documentParties, recapKey, supplyOf, type DocumentCategories } from '@ledgerline/documents/line-categories';
import { withContactParty } from '@ledgerline/posted-documents';
import { checkVendor } from './vendor-check.js';
import { checkCreditedDocument, creditedIdOf, duplicateDocumentNumber, insertNumberedDocument, NUMBER_PLACEHOLDER, nextDocumentId, withDocumentNumber } from '@ledgerline/posted-documents';
import { PurchaseDocumentSchema, type PurchaseDocument, type PurchaseKind, type StoredItem, type StoredTaxLine } from '../db/entities.js';
import type { PurchaseDocumentKind, PurchaseRequestSchema } from './kind.js';
import { NOT_INPUT, omit } from './request.js';
import { purchaseView, type PurchaseView } from './view.js';

function storeTax(t: ComputedTaxLine, categories: DocumentCategories): StoredTaxLine {
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
    tax_category: categories.recap.get(recapKey(t)) ?? null,
  };
}

async function nextLineIds(em: EntityManager, n: number): Promise<number[]> {
  if (n === 0) return [];
  const rows = await sqlRows<{ id: number | string }>(em, "select nextval('purchase_line_ids') as id from generate_series(1, ?::int)", [n]);
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
 * The rate of a foreign-currency document: the one it states, else the exchange-rate table's in
 * force on its tax point date (date_taxable, else date_issued), per unit of the currency (purchase
 * documents quote their rate per unit); 422 `fx_rate_required` naming tax_fx_rate when the table
 * has none. Also what the document says of it (`fx_rate_date`, `fx_rate_source`). `validate`
 * checks the rest of the document first (a 400 names every field at once).
 */
async function documentRate(
  ctx: TenantContext,
  req: { currency: string; tax_fx_rate?: number | null; date_taxable?: string | null; date_issued: string },
  legalCurrency: string,
  validate: () => unknown,
) {
  const currency = req.currency.toUpperCase();
  if (currency === legalCurrency) return { rate: req.tax_fx_rate ?? null, date: null, source: null };
  if (req.tax_fx_rate != null) return { rate: req.tax_fx_rate, date: null, source: 'stated' };
  // a document that is wrong anyway is refused for all it gets wrong before the table is asked
  validate();
  const rate = await tableRate(ctx, { currency, date: req.date_taxable ?? req.date_issued, legalCurrency, path: 'tax_fx_rate' });
  return { rate: ratePerUnit(rate), date: rate.rate_date, source: rate.source };
}

/**
 * Posts a vendor bill or vendor credit by the steps every posted document takes: figures computed
 * once with the shared document arithmetic, the credited bill checked with the shared credit
 * rule, then number, document and `*.posted` event written by one statement
 * (`insertNumberedDocument`).
 */
export async function postPurchaseDocument<K extends PurchaseKind, S extends PurchaseRequestSchema>(
  ctx: TenantContext,
  kind: PurchaseDocumentKind<K, S>,
  named: z.output<S>,
  opts: {
    strict?: boolean;
    /** Checks the computed figures before anything is written (an imported document's stated totals). */
    expect?: (computed: ReturnType<typeof computeFigures>) => void;
    /** Writes beside the document, in its transaction (an import's registry row). */
    alongside?: (em: EntityManager, documentId: number) => Promise<void>;
  } = {},
): Promise<{ view: PurchaseView<K>; json: JsonText }> {
  const { em, orgId } = ctx;
  // the vendor (and currency, due date, account) of a bill naming a contact of the directory
  const req = await withContactParty(ctx, named, 'vendor');
  const { legalCurrency, lockDate, country, defaultSupply, isVatPayer } = await postingSettingsOf(ctx);
  // the organisation is the buyer: a zero-rated line is never K or G to it, so the vendor is the other party
  const categories = documentCategories(req, documentParties(req.vendor as { vat_no?: string | null }, null, country));
  const figuresOf = (rate: DocumentInput['fx_rate']) => computeFigures({
    currency: req.currency,
    legal_currency: legalCurrency,
    // Purchase documents carry one rate to the legal currency: tax_fx_rate.
    fx_rate: rate,
    tax_fx_rate: rate,
    precision: req.precision ?? 2,
    taxes_included: req.taxes_included ?? false,
    items: req.items.map((it) => ({
      qty: it.qty,
      rate: it.rate,
      taxes: it.taxes ?? [],
      tax_deduction_ratio: it.tax_deduction_ratio ?? null,
      net_deduction_ratio: it.net_deduction_ratio ?? null,
    })),
    rounding_amount: req.rounding_amount ?? null,
  });
  const fx = await documentRate(ctx, req, legalCurrency, () => figuresOf(1));
  const computed = figuresOf(fx.rate);
  if (opts.strict) assertDerivedFigures(req, computed);
  opts.expect?.(computed);
  refuseClosedPeriod(lockDate, `the ${kind.label}`, [postingDate.document(req)]);
  // §109 guarantees a Czech VAT payer's purchases: another buyer has nothing to check
  const vendorCheck = (kind.kind === 'bill' || kind.kind === 'advance') && isVatPayer && country === 'CZ' ? await checkVendor(ctx, req, computed.total_amount_leg) : null;
  const id = await nextDocumentId(em, PurchaseDocumentSchema);
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
      supply: supplyOf(it, defaultSupply),
      taxes: c.taxes.map((t) => storeTax(t, categories)),
    };
  });

  const given = req.no?.trim() || null;
  // The credited bill is locked and the document written in the transaction shared by concurrent
  // documents of this kind (one commit for the group): a series number is taken under its row
  // lock, held until that commit.
  const numbered = (given ? await ctx.inOwnTransaction() : await ctx.inCommitGroup(kind.kind)) as TenantContext;
  const creditedNo = kind.credits?.creditedNo(req)?.trim() || null;
  // the vendor's invoice named by its number alone is the bill that recorded it, checked as by its id
  const creditedId = kind.credits
    ? await creditedIdOf(numbered.em, kind.credits.rule, numbered.orgId, { id: kind.credits.creditedId(req), no: creditedNo }, req.vendor as Record<string, unknown>)
    : null;
  const credited =
    kind.credits && creditedId
      ? await checkCreditedDocument(numbered.em, kind.credits.rule, {
          orgId: numbered.orgId,
          creditedId,
          party: req.vendor as Record<string, unknown>,
          currency: req.currency,
          total: computed.total_amount,
          precision: computed.precision,
        })
      : null;

  // a final bill's advances, a tax document's advance bill: locked and checked in this transaction
  const drafted = computed.taxes.map((t) => storeTax(t, categories));
  const deduction = kind.deducts ? await kind.deducts(numbered, req, computed, drafted) : null;
  const taxes = deduction?.taxes ? deduction.taxes.map((t) => storeTax(t, categories)) : drafted;
  const paid = deduction ? dec(deduction.paid) : dec(computed.amount_paid);

  const vendor = req.vendor as Record<string, unknown>;
  const now = ctx.now();
  const doc: PurchaseDocument = {
    id,
    orgId,
    kind: kind.kind,
    uid: randomUUID(),
    no: given ?? NUMBER_PLACEHOLDER,
    vendorDocNo: req.vendor_doc_no ?? null,
    creditedDocId: credited?.id ?? null,
    // without a bill of ours to point at, the credit keeps the number it names (the vendor's original invoice)
    creditedDocNo: credited?.no ?? creditedNo,
    copyFromId: req.copy_from_id ?? null,
    vendor,
    vendorName: (vendor.business_name as string | undefined) ?? (vendor.display_name as string | undefined) ?? null,
    type: req.type as Record<string, unknown>,
    currency: computed.currency,
    precision: computed.precision,
    taxesIncluded: computed.taxes_included,
    taxFxRate: computed.tax_fx_rate,
    fxRateDate: fx.date,
    fxRateSource: fx.source,
    dateIssued: req.date_issued,
    dateTaxable: req.date_taxable ?? null,
    dateDue: req.date_due ?? null,
    description: req.description ?? null,
    rateFormat: req.rate_format ?? null,
    taxNexus: (req.tax_nexus as Record<string, unknown>) ?? null,
    paymentReference: req.payment_reference ?? null,
    bankAccountNumber: req.bank_account_number ?? null,
    contactId: req.contact_id ?? null,
    vendorCheck,
    rsn: req.rsn ?? null,
    items,
    taxes,
    subtotalAmount: computed.subtotal_amount,
    taxAmount: computed.tax_amount,
    roundingAmount: computed.rounding_amount,
    totalAmount: computed.total_amount,
    prepaidAmount: toDb(req.prepaid_amount ?? 0, computed.precision),
    amountPaid: deduction ? toDb(paid) : computed.amount_paid,
    amountDue: deduction ? toDb(dec(computed.total_amount).minus(paid)) : computed.amount_due,
    paymentStatus: deduction ? paymentStatus(computed.total_amount, paid) : computed.payment_status,
    advanceBillId: deduction?.own.advanceBillId ?? null,
    advanceBillNo: deduction?.own.advanceBillNo ?? null,
    advances: deduction?.own.advances ?? null,
    taxDocuments: kind.kind === 'advance' ? [] : null,
    settledById: null,
    settledByNo: null,
    paymentOrderId: null,
    paymentOrderOpen: false,
    isLocked: false,
    input: omit(req as Record<string, unknown>, NOT_INPUT),
    createdAt: now,
    editedAt: now,
  };
  const pattern = numberPattern(kind.mask, req.date_issued);
  const { no: _no, ...row } = doc;
  // the view is built and serialised once, for the event and the answer alike
  const view = purchaseView(doc, kind.kind);
  const viewJson = JSON.stringify(view);
  doc.no = await insertNumberedDocument(numbered.em, {
    schema: PurchaseDocumentSchema,
    row,
    numberProperty: 'no',
    uniqueKey: '(org_id, kind, no)',
    event: kind.subject ? ctx.prepareEvent({ subject: kind.subject, resource: String(id), data: view }, viewJson) : null,
    number: given ? { given } : { counter: { table: 'numbering_counters', key: { org_id: orgId, series: kind.kind, period: pattern.period } }, pattern },
    duplicate: (no) => duplicateDocumentNumber(kind.label, no),
  });
  await deduction?.written({ id, no: doc.no, vendorDocNo: doc.vendorDocNo ?? null, totalAmount: doc.totalAmount });
  await opts.alongside?.(numbered.em, id);
  view.no = doc.no;
  return { view, json: new JsonText(given ? viewJson : withDocumentNumber(viewJson, doc.no)) };
}
