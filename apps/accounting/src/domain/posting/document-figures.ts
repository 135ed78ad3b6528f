import { Dec, dec, postingDate, type DecimalInput } from '@ledgerline/service-kit';
import { TAX_ROLES, type SourceType } from '../posting-map.js';
import { creditedDocument, type DocumentItem, type PurchaseDocument, type SalesDocument, type TaxLine } from '../source-documents.js';
import { NO_VAT_REPORTING, type SupplyKind } from '../vat.js';
import { isReverseChargeCategory, isSupplyKind, isTaxCategory, statedTaxCategory, taxCategoryOf, type TaxCategory, type TaxParties } from '@ledgerline/core/tax-category';
import { type Conversion, fxRates, legal } from './conversions.js';
import type { DraftRow, DraftTaxRow, Json, LedgerEntryDraft, PostingOptions } from './entry.js';
import type { FigurePart } from './interpreter.js';

/* What sales and purchase documents have in common when posted: taxes, legal figures, entry headers. */

// --- tax helpers --------------------------------------------------------------------------------

/** What a sales tax line says of itself beyond rate and code (purchase lines carry nothing more). */
function taxDetails(t: TaxLine): Json | null {
  return 'tax_details' in t && t.tax_details ? (t.tax_details as Json) : null;
}

/** The item lines that add to a recap line: those of its code and rate. */
function linesOf(doc: SalesDocument | PurchaseDocument, t: TaxLine): Array<{ item: DocumentItem; tax: TaxLine }> {
  return doc.items.flatMap((item) => (item.taxes ?? []).filter((x) => sameTax(x, t)).map((tax) => ({ item, tax: tax as TaxLine })));
}

/**
 * The VAT category of a recap line: the one the document stored with it when it was posted, else
 * (a document posted before categories were stored) the one `taxCategoryOf` decides from it, from
 * what its item lines state (a line's `tax_details.reverse_charge` never reached the recap then)
 * and from the parties.
 */
export function lineCategory(doc: SalesDocument | PurchaseDocument, t: TaxLine, parties: TaxParties): TaxCategory {
  if (isTaxCategory(t.tax_category)) return t.tax_category;
  const stated = statedTaxCategory({ ...t, tax_details: taxDetails(t) }) ?? linesOf(doc, t).map(({ tax }) => statedTaxCategory({ ...tax, tax_details: taxDetails(tax) })).find((c) => c !== null);
  return taxCategoryOf({ tax_rate: t.tax_rate, tax_category: stated ?? null }, parties);
}

export function isReverseCharge(doc: SalesDocument | PurchaseDocument, t: TaxLine, parties: TaxParties): boolean {
  return isReverseChargeCategory(lineCategory(doc, t, parties));
}

/**
 * What a recap line supplies, for the reports that tell goods from services (rows 20/21, 3–6, the
 * EC Sales List): services when its tax details or rate type say so, or when every item carrying
 * it supplies services (`supply`, stored since issue 70); else goods.
 */
export function supplyKind(doc: SalesDocument | PurchaseDocument, t: TaxLine): SupplyKind {
  const d = taxDetails(t)?.supply;
  if (d === 'services' || /service/i.test(t.rate_type ?? '')) return 'services';
  const items = linesOf(doc, t).map(({ item }) => item);
  return items.length > 0 && items.every((i) => itemSupply(i) === 'services') ? 'services' : 'goods';
}

/** What an item supplies as the document stored it (goods before the field existed), or its tax details said. */
export function itemSupply(item: DocumentItem): SupplyKind {
  if (isSupplyKind(item.supply)) return item.supply;
  return (item.taxes ?? []).some((t) => taxDetails(t as TaxLine)?.supply === 'services') ? 'services' : 'goods';
}

/** The parties of a document as its category reads them: the organisation and the customer or vendor. */
export function documentTaxParties(doc: SalesDocument | PurchaseDocument, orgCountry: string): TaxParties {
  if ('customer' in doc) return { sellerCountry: orgCountry, buyerCountry: doc.billing_address?.country ?? doc.customer?.address?.country ?? null, buyerHasVatId: !!doc.customer?.vat_no?.trim() };
  // the organisation buys: a zero-rated line is never an intra-EU supply or an export of its own
  return { sellerCountry: orgCountry, buyerCountry: orgCountry, buyerHasVatId: true };
}

/** The same tax: equal rate, and equal code where both lines name one. */
export function sameTax(a: TaxLine, b: TaxLine): boolean {
  return dec(a.tax_rate).eq(b.tax_rate) && (!a.tax_code || !b.tax_code || a.tax_code === b.tax_code);
}

/** The organisation's country: documents do not carry it, the organisation replica does. */
export function organisationCountry(opts: PostingOptions): string {
  return (opts.orgCountry ?? 'CZ').toUpperCase();
}

/**
 * Net, rounding and total of a document in the legal currency, from its stored figures: the
 * subtotal is Σ of the recap's tax_base_leg (plus any untaxed remainder converted), the rounding
 * (BT-114) as stated or converted, the total net + tax + rounding, unless the document states its
 * own `_leg` totals (which must then agree, or it cannot balance).
 */
export function documentLegs(doc: SalesDocument | PurchaseDocument, taxConv: Conversion, taxLeg: Dec, conv: Conversion): { netLeg: Dec; roundingLeg: Dec; totalLeg: Dec } {
  // sales documents state their legal totals; purchase documents leave them to the tax recap
  const stated = 'total_amount_leg' in doc ? { net: optDec(doc.subtotal_amount_leg), total: optDec(doc.total_amount_leg) } : { net: null, total: null };
  let netLeg: Dec;
  if (stated.net) netLeg = stated.net;
  else {
    const baseDoc = doc.taxes.reduce((s, t) => s.plus(t.tax_base), dec(0));
    const baseLeg = doc.taxes.reduce((s, t) => s.plus(legal(t.tax_base, t.tax_base_leg, taxConv)), dec(0));
    const untaxed = dec(doc.subtotal_amount).minus(baseDoc);
    netLeg = baseLeg.plus(untaxed.isZero() ? dec(0) : legal(untaxed, null, conv));
  }
  const rounding = optDec(doc.rounding_amount);
  const roundingLeg = !rounding || rounding.isZero() ? dec(0) : legal(rounding, 'rounding_amount_leg' in doc ? doc.rounding_amount_leg : null, conv);
  const totalLeg = stated.total ?? netLeg.plus(taxLeg).plus(roundingLeg);
  return { netLeg, roundingLeg, totalLeg };
}

/**
 * A document's rounding as the `rounding_gain` / `rounding_loss` figures. `raisesWhatIsOwedToUs`:
 * the document's total is owed to the organisation (an invoice, a vendor credit), so rounding it up
 * is a gain; for a credit note or a bill rounding up is a loss.
 */
export function roundingFigures(roundingLeg: Dec, raisesWhatIsOwedToUs: boolean): { rounding_gain: FigurePart[]; rounding_loss: FigurePart[] } {
  const gain = raisesWhatIsOwedToUs ? roundingLeg : roundingLeg.negated();
  return { rounding_gain: [{ amount: Dec.max(gain, 0) }], rounding_loss: [{ amount: Dec.max(gain.negated(), 0) }] };
}

// --- sales documents ---------------------------------------------------------------------------

export function itemAccount(item: DocumentItem): string | undefined {
  return item.gl_account?.number?.trim() || undefined;
}

/**
 * Net (subtotal) by account: items that name a gl_account get their base; items supplying services
 * go to the map's services account (602, 518); the default account (604, 504) takes the rest,
 * shipping and any rounding of the conversion with it.
 */
export function netParts(doc: SalesDocument | PurchaseDocument, netLeg: Dec, conv: Conversion): FigurePart[] {
  const overrides = new Map<string, Dec>();
  let services = dec(0);
  for (const item of doc.items) {
    const account = itemAccount(item);
    const goods = itemSupply(item) === 'goods';
    if (!account && goods) continue;
    const taxed = item.taxes?.[0];
    const base = taxed ? legal(taxed.tax_base, taxed.tax_base_leg, conv) : legal(item.amount, null, conv);
    if (account) overrides.set(account, (overrides.get(account) ?? dec(0)).plus(base));
    else services = services.plus(base);
  }
  const overridden = [...overrides.values()].reduce((s, v) => s.plus(v), services);
  return [
    { amount: netLeg.minus(overridden) },
    ...(services.isZero() ? [] : [{ supply: 'services' as const, amount: services }]),
    ...[...overrides].map(([account, amount]) => ({ account, amount })),
  ];
}

/** A figure an event may leave out, as a decimal or null. */
export function optDec(v: DecimalInput | null | undefined): Dec | null {
  return v === null || v === undefined ? null : dec(v);
}

/**
 * The header of a payment's entry (bank transaction, payout): what payments have, with the
 * document-only fields (due and tax dates, deduction ratios, amounts paid and due) empty.
 */
export function paymentEntryHeader(
  h: Pick<
    LedgerEntryDraft,
    'type' | 'source' | 'date_posting' | 'no' | 'payment_reference' | 'description' | 'date_issued' | 'currency' | 'legal_currency' | 'transaction_type' | 'contact' | 'bank_account' | 'paid_record' | 'fx_rates'
  >,
): Omit<LedgerEntryDraft, 'rows' | 'total'> {
  // each field named, not `...h`: a spread copies by the argument's shape, and the profile of a
  // rebuild's drafting put a sixth of a bank transaction's posting here
  return {
    type: h.type,
    source: h.source,
    date_posting: h.date_posting,
    no: h.no,
    payment_reference: h.payment_reference,
    description: h.description,
    date_issued: h.date_issued,
    currency: h.currency,
    legal_currency: h.legal_currency,
    transaction_type: h.transaction_type,
    contact: h.contact,
    bank_account: h.bank_account,
    paid_record: h.paid_record,
    fx_rates: h.fx_rates,
    entry_kind: 'posting',
    vendor_doc_no: null,
    credited_doc_no: null,
    date_due: null,
    date_taxable: null,
    date_tax_applied: null,
    precision: 2,
    tax_nexus: null,
    tax_deduction_ratio: null,
    net_deduction_ratio: null,
    amount_paid: null,
    amount_due: null,
  };
}

export function baseEntry(doc: SalesDocument | PurchaseDocument, type: SourceType, legalCurrency: string, contact: Json | null): Omit<LedgerEntryDraft, 'rows' | 'total'> {
  return {
    type,
    // sales and purchase documents are immutable once posted: one version each
    source: { type, id: doc.id, version: 1, no: doc.no ?? null },
    entry_kind: 'posting',
    date_posting: postingDate.document(doc).date,
    no: doc.no ?? null,
    vendor_doc_no: ((doc as PurchaseDocument).vendor_doc_no as string | null | undefined) ?? null,
    credited_doc_no: creditedDocument(doc).no,
    payment_reference: doc.payment_reference ?? null,
    description: (((doc as PurchaseDocument).description ?? (doc as SalesDocument).notes) as string | null | undefined) ?? null,
    date_issued: doc.date_issued,
    date_due: doc.date_due ?? null,
    date_taxable: doc.date_taxable ?? null,
    date_tax_applied: doc.date_taxable ?? doc.date_issued,
    currency: doc.currency,
    legal_currency: legalCurrency,
    precision: doc.precision ?? 2,
    transaction_type: (doc.type as Json | null | undefined) ?? null,
    contact,
    bank_account: null,
    tax_nexus: (doc.tax_nexus as Json | null | undefined) ?? null,
    paid_record: null,
    fx_rates: fxRates(doc.currency, legalCurrency, 'fx_rate' in doc ? doc.fx_rate : null, doc.tax_fx_rate),
    tax_deduction_ratio: null,
    net_deduction_ratio: null,
    amount_paid: optDec(doc.amount_paid),
    amount_due: optDec(doc.amount_due),
  };
}

export function legalCurrencyOf(doc: SalesDocument | PurchaseDocument, opts: PostingOptions): string {
  // sales documents name the currency of their _leg figures; purchase ones are in the organisation's
  if ('currency_leg' in doc) return doc.currency_leg ?? doc.taxes.find((t) => t.currency_leg)?.currency_leg ?? opts.legalCurrency;
  return opts.legalCurrency;
}

export function emptyTaxRow(number: string, currency: string): DraftTaxRow {
  return {
    debit: dec(0),
    credit: dec(0),
    gl_account_number: number,
    description: null,
    currency,
    tax_rate: null,
    tax_rate_rc: null,
    is_reverse_charge: false,
    tax_index: null,
    tax_code: null,
    tax_name: null,
    tax_base_in: null,
    tax_base_in_leg: null,
    tax_base_out: null,
    tax_base_out_leg: null,
    tax_amount_in: null,
    tax_amount_in_leg: null,
    tax_amount_claim: null,
    tax_amount_claim_leg: null,
    tax_amount_out: null,
    tax_amount_out_leg: null,
    ...NO_VAT_REPORTING,
    tax_deduction_ratio: null,
    net_deduction_ratio: null,
  };
}

/** Hangs the ledger tax rows on the entry's VAT posting; a zero VAT row is kept only when no other exists. */
export function attachTaxRows(rows: DraftRow[], taxRows: DraftTaxRow[]): void {
  const isZero = (r: DraftRow) => r.debit.isZero() && r.credit.isZero();
  if (rows.some((r) => TAX_ROLES.has(r.role) && !isZero(r))) {
    for (let i = rows.length - 1; i >= 0; i--) if (TAX_ROLES.has(rows[i].role) && isZero(rows[i])) rows.splice(i, 1);
  }
  if (taxRows.length === 0) return;
  const holder = rows.find((r) => TAX_ROLES.has(r.role)) ?? rows[0];
  holder.taxes.push(...taxRows);
}
