import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessRuleError, organisationReplica } from '@ledgerline/service-kit';
import { EU_COUNTRIES, PEPPOL_CHECKS, failedPeppolChecks, markedVatCategory, type ComplianceInvoice, type ComplianceOrganisation } from '@ledgerline/compliance';
import { Dec } from '@ledgerline/core/money';
import { VAT_CATEGORIES, ublXml, type UblDocument, type UblParty, type VatCategory } from '@ledgerline/documents/ubl';
import { isdocXml, splitStreet, type IsdocAmount, type IsdocDocument, type IsdocLine, type IsdocParty } from '@ledgerline/documents/isdoc';
import { documentVariableSymbol, domesticAccountOf, normaliseIban } from '@ledgerline/documents';
import { SalesDocumentSchema, type SalesDocType } from '../db/entities.js';
import { organisationFacts } from '../compliance/evaluate.js';
import { getSalesDocument, type SalesDocumentKind } from './post.js';
import { documentView } from './view.js';

/*
 * A stored sales document as a Peppol BIS Billing 3.0 document or an ISDOC 6.0.2 document
 * (issue 16). The figures are the stored ones; the parties come from the document's customer and the organisation profile
 * replica (its Peppol id, VAT id and bank account). What Peppol requires and the document lacks is
 * answered as 422 naming each rule, with the ids the compliance evaluator uses.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type EInvoiceKind = Pick<SalesDocumentKind<SalesDocType, never>, 'docType' | 'label' | 'rendering'>;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const PEPPOL_ID = /^[0-9]{4}:\S+$/;

/** Rules beyond the evaluator's that a document needs to be written at all. */
const DOCUMENT_CHECKS: Array<{ id: string; description: string; passes: (view: Json, org: ComplianceOrganisation, profile: Json | null) => boolean }> = [
  { id: 'BR-06', description: 'The seller name (BT-27): the organisation needs a name', passes: (v, _o, p) => text(p?.name ?? v.org?.name) !== null },
  { id: 'BR-09', description: 'The seller country (BT-40): the organisation needs a country', passes: (_v, o) => text(o.country) !== null },
  { id: 'BR-07', description: 'The buyer name (BT-44): the customer needs a business name', passes: (v) => text(v.customer?.business_name ?? v.customer?.display_name) !== null },
  { id: 'BR-11', description: 'The buyer country (BT-55): the customer address needs a country', passes: (v) => text(v.billing_address?.country ?? v.customer?.address?.country) !== null },
];

/** The rules the document fails for Peppol, in the order a user fixes them. */
export function missingForPeppol(view: Json, org: ComplianceOrganisation, profile: Json | null, kind: EInvoiceKind): Array<{ id: string; description: string }> {
  const invoice = { ...(view as unknown as ComplianceInvoice), id: Number(view.id) };
  const failed = new Set(failedPeppolChecks(invoice, org));
  // a credit note names the invoice it corrects instead of a due date (BR-CO-25 is an invoice rule)
  if (kind.rendering === 'credit_note') failed.delete('BR-CO-25');
  const checks = PEPPOL_CHECKS.filter((c) => failed.has(c.id));
  const own = DOCUMENT_CHECKS.filter((c) => !c.passes(view, org, profile));
  return [...checks, ...own].map((c) => ({ id: c.id, description: c.description }));
}

/**
 * The EN 16931 category of a tax line: a UNCL5305 code used as the tax code is kept; a line the
 * compliance checks read as reverse charge or intra-EU (by its code or rate type) is AE or K;
 * otherwise a positive rate is standard (S), and a zero rate is an intra-EU supply (K) to a
 * VAT-registered buyer in another member state, an export (G) outside the EU, else zero-rated (Z).
 */
export function vatCategoryOf(
  line: { tax_code?: string | null; rate_type?: string | null; tax_rate?: unknown },
  seller: string | null,
  buyer: string | null,
  buyerHasVatId: boolean,
): VatCategory {
  const c = typeof line.tax_code === 'string' ? line.tax_code.trim().toUpperCase() : '';
  if ((VAT_CATEGORIES as readonly string[]).includes(c)) return c as VatCategory;
  const marked = markedVatCategory(line);
  if (marked) return marked;
  if (Dec((line.tax_rate as number | string | undefined) ?? 0).gt(0)) return 'S';
  if (seller && buyer && seller !== buyer) {
    if (EU_COUNTRIES.has(buyer) && EU_COUNTRIES.has(seller) && buyerHasVatId) return 'K';
    if (!EU_COUNTRIES.has(buyer)) return 'G';
  }
  return 'Z';
}

/** A stored document with what its e-invoices are written from: the parties, the organisation profile and the credited invoice. */
interface EInvoiceSource {
  kind: EInvoiceKind;
  view: Json;
  credited: CreditedInvoice | null;
  profile: Json | null;
  org: ComplianceOrganisation;
  customer: Json;
  issuer: Json;
  buyerAddress: Json | null;
}

async function einvoiceSource(em: EntityManager, orgId: number, kind: EInvoiceKind, id: number): Promise<EInvoiceSource> {
  const doc = await getSalesDocument(em, kind, id);
  const credited = await creditedInvoice(em, doc.creditedDocId ?? null);
  // a credit note carries the references of the invoice it corrects unless it names its own (PEPPOL-EN16931-R003)
  const stored = documentView(doc) as Json;
  const view: Json = {
    ...stored,
    buyer_reference: text(stored.buyer_reference) ?? credited?.buyerReference ?? null,
    order_reference: text(stored.order_reference) ?? credited?.orderReference ?? null,
  };
  const replica = await organisationReplica(em, orgId);
  const profile = (replica?.profile as Json | undefined) ?? null;
  const customer = (view.customer ?? {}) as Json;
  return {
    kind,
    view,
    credited,
    profile,
    org: organisationFacts(profile, view.org ?? null),
    customer,
    issuer: (view.org ?? {}) as Json,
    buyerAddress: (view.billing_address as Json | null) ?? (customer.address as Json | null),
  };
}

function refuseIncomplete(kind: EInvoiceKind, format: string, missing: Array<{ id: string; description: string }>): void {
  if (missing.length === 0) return;
  throw new BusinessRuleError(
    `The ${kind.label} cannot be written as ${format} yet: ${missing.map((m) => m.id).join(', ')}`,
    'einvoice_incomplete',
    missing.map((m) => ({ path: m.id, message: m.description, code: m.id })),
  );
}

/** A document line with its category: the stored net amount and tax, in the document and the legal currency. */
interface TaxedLine {
  name: string;
  description: string | null;
  quantity: string | number;
  unitCode: string;
  net: string | number;
  tax: Dec;
  netLegal: Dec | null;
  taxLegal: Dec | null;
  category: VatCategory;
  rate: string | number;
  sellersItemId: string | null;
}

interface Subtotal {
  category: VatCategory;
  rate: string;
  taxableAmount: Dec;
  taxAmount: Dec;
  taxableLegal: Dec | null;
  taxLegal: Dec | null;
}

const decOrNull = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '') ? Dec(v) : null);
const addOrNull = (a: Dec | null, b: Dec | null) => (a === null || b === null ? null : a.plus(b));

/**
 * The document's lines with their EN 16931 category, and the stored recap as one subtotal per
 * category and rate (two recap rows of one category and rate add up); lines without any tax are
 * in no recap row and join the subtotal of their category.
 */
function taxedLines(src: EInvoiceSource): { lines: TaxedLine[]; subtotals: Subtotal[]; category: (line: Json) => VatCategory } {
  const { view, org, customer } = src;
  const sellerCountry = org.country!.toUpperCase();
  const buyerCountry = text(src.buyerAddress?.country)!.toUpperCase();
  const category = (line: Json) => vatCategoryOf(line, sellerCountry, buyerCountry, text(customer.vat_no) !== null);
  const items = (view.items ?? []) as Json[];
  const lines: TaxedLine[] = items.map((it) => {
    const taxes = (it.taxes ?? []) as Json[];
    const tax = taxes[0];
    const unit = text(it.unit?.code)?.toUpperCase();
    const net = it.net_amount ?? it.amount;
    return {
      name: text(it.title) ?? text(it.description) ?? text(it.item?.name) ?? 'Item',
      description: text(it.title) ? text(it.description) : null,
      quantity: it.qty,
      unitCode: unit && /^[A-Z0-9]{2,3}$/.test(unit) ? unit : 'C62',
      net,
      tax: taxes.reduce<Dec>((a, t) => a.plus(Dec(t.tax_amount ?? 0)), Dec(0)),
      netLegal: tax ? decOrNull(tax.tax_base_leg) : null,
      taxLegal: taxes.length ? taxes.reduce<Dec | null>((a, t) => addOrNull(a, decOrNull(t.tax_amount_leg)), Dec(0)) : Dec(0),
      category: tax ? category(tax) : org.is_vat_payer === false ? ('O' as const) : ('Z' as const),
      rate: tax?.tax_rate ?? 0,
      sellersItemId: text(it.sku),
    };
  });
  const subtotals = new Map<string, Subtotal>();
  const addToSubtotal = (cat: VatCategory, rate: unknown, base: unknown, tax: unknown, baseLegal: Dec | null, taxLegal: Dec | null) => {
    const r = Dec((rate as string | number | undefined) ?? 0).toString();
    const key = `${cat}|${cat === 'O' ? '' : r}`;
    const s = subtotals.get(key) ?? { category: cat, rate: r, taxableAmount: Dec(0), taxAmount: Dec(0), taxableLegal: Dec(0), taxLegal: Dec(0) };
    s.taxableAmount = s.taxableAmount.plus(Dec((base as string | number | undefined) ?? 0));
    s.taxAmount = s.taxAmount.plus(Dec((tax as string | number | undefined) ?? 0));
    s.taxableLegal = addOrNull(s.taxableLegal, baseLegal);
    s.taxLegal = addOrNull(s.taxLegal, taxLegal);
    subtotals.set(key, s);
  };
  for (const t of (view.taxes ?? []) as Json[]) addToSubtotal(category(t), t.tax_rate, t.tax_base, t.tax_amount, decOrNull(t.tax_base_leg), decOrNull(t.tax_amount_leg));
  items.forEach((it, i) => {
    if (((it.taxes ?? []) as Json[]).length === 0) addToSubtotal(lines[i].category, lines[i].rate, lines[i].net, 0, null, Dec(0));
  });
  return { lines, subtotals: [...subtotals.values()], category };
}

function addressOfParty(a: Json | null | undefined, fallbackCountry: string) {
  return {
    street: text(a?.address1),
    additionalStreet: text(a?.address2),
    city: text(a?.city),
    postalZone: text(a?.postal_code),
    country: (text(a?.country) ?? fallbackCountry).toUpperCase(),
  };
}

/** The Peppol document of a stored invoice or credit note, or 422 naming what it lacks. */
export async function salesDocumentUbl(em: EntityManager, orgId: number, kind: EInvoiceKind, id: number): Promise<{ xml: string; no: string }> {
  const src = await einvoiceSource(em, orgId, kind, id);
  const { view, profile, org, customer, issuer, credited } = src;
  refuseIncomplete(kind, 'a Peppol document', missingForPeppol(view, org, profile, kind));

  const sellerCountry = org.country!.toUpperCase();
  const buyerCountry = text(src.buyerAddress?.country)!.toUpperCase();
  const seller: UblParty = {
    name: text(profile?.name) ?? text(issuer.name)!,
    peppolId: text(org.peppol_id)!,
    vatId: text(org.vat_no),
    registrationId: text(profile?.reg_no ?? issuer.reg_no),
    address: addressOfParty((profile?.address as Json | undefined) ?? issuer.address, sellerCountry),
  };
  const buyer: UblParty = {
    name: text(customer.business_name ?? customer.display_name)!,
    peppolId: text(customer.peppol_id)!,
    vatId: text(customer.vat_no),
    registrationId: text(customer.reg_no),
    email: text(customer.email),
    address: addressOfParty(src.buyerAddress, buyerCountry),
  };

  const { lines, subtotals } = taxedLines(src);
  const precision = Number(view.precision ?? 2);
  const bank = (profile?.bank_account as Json | undefined) ?? null;
  const iban = text(bank?.iban) ?? text(view.bank_account?.iban);
  const legal = text(view.currency_leg);
  const ubl: UblDocument = {
    kind: kind.rendering === 'credit_note' ? 'credit_note' : 'invoice',
    number: String(view.no),
    issueDate: String(view.date_issued),
    dueDate: text(view.date_due),
    currency: String(view.currency),
    taxCurrency: legal && legal !== view.currency ? { code: legal, taxAmount: view.tax_amount_leg ?? 0 } : null,
    note: text(view.notes),
    buyerReference: text(view.buyer_reference),
    orderReference: text(view.order_reference),
    billingReference: view.credited_doc_no ? { number: String(view.credited_doc_no), issueDate: credited?.issueDate ?? null } : null,
    seller,
    buyer,
    payment: iban && Dec(view.amount_due ?? 0).gt(0) ? { iban, bic: text(bank?.bic), reference: text(view.payment_reference) ?? String(view.no).replace(/\D/g, '').slice(-10) } : null,
    paymentTerms: text(view.payment_term?.name),
    lines: lines.map((l) => ({ name: l.name, description: l.description, quantity: l.quantity, unitCode: l.unitCode, netAmount: l.net, category: l.category, rate: l.rate, sellersItemId: l.sellersItemId })),
    taxSubtotals: subtotals.map((s) => ({ category: s.category, rate: s.rate, taxableAmount: s.taxableAmount.toFixed(precision), taxAmount: s.taxAmount.toFixed(precision) })),
    totals: {
      lineExtension: lines.reduce((a, l) => a.plus(Dec(l.net)), Dec(0)).toFixed(precision),
      taxExclusive: view.subtotal_amount,
      taxAmount: view.tax_amount,
      taxInclusive: view.total_amount,
      prepaid: view.amount_paid ?? 0,
      payable: view.amount_due ?? view.total_amount,
    },
    precision,
  };
  return { xml: ublXml(ubl), no: String(view.no) };
}

/** What ISDOC needs beyond the parties' names and countries: a credit note names the invoice it corrects. */
export function missingForIsdoc(view: Json, org: ComplianceOrganisation, profile: Json | null, kind: EInvoiceKind): Array<{ id: string; description: string }> {
  const own = DOCUMENT_CHECKS.filter((c) => !c.passes(view, org, profile));
  if (kind.rendering === 'credit_note' && !text(view.credited_doc_no)) {
    own.push({ id: 'ISDOC-ORIGINAL', description: 'A credit note (DocumentType 2) names the invoice it corrects: give the credit note credited_doc_id', passes: () => false });
  }
  return own.map((c) => ({ id: c.id, description: c.description }));
}

const COUNTRY_NAMES = new Intl.DisplayNames(['cs'], { type: 'region' });

function isdocParty(name: string, registrationId: string | null, vatId: string | null, email: string | null, address: Json | null | undefined, country: string): IsdocParty {
  const { street, buildingNumber } = splitStreet(text(address?.address1));
  const code = (text(address?.country) ?? country).toUpperCase();
  let countryName: string | null = null;
  try {
    countryName = COUNTRY_NAMES.of(code) ?? null;
  } catch {
    countryName = null; // not a region code Intl knows: the code alone identifies it
  }
  return {
    name,
    registrationId,
    vatId,
    email,
    address: { street, buildingNumber, city: text(address?.city), postalZone: text(address?.postal_code), country: code, countryName: countryName ?? code },
  };
}

/**
 * The ISDOC 6.0.2 document of a stored invoice or credit note. Amounts in the organisation's
 * legal currency, with the document's own currency beside them when it differs. Lines are the
 * document's items and shipping charges; what a document discount took off a rate's recap is a
 * line of its own, so the lines add up to the stored recap in both currencies.
 */
export async function salesDocumentIsdoc(em: EntityManager, orgId: number, kind: EInvoiceKind, id: number): Promise<{ xml: string; no: string }> {
  const src = await einvoiceSource(em, orgId, kind, id);
  const { view, profile, org, customer, issuer, credited } = src;
  refuseIncomplete(kind, 'ISDOC', missingForIsdoc(view, org, profile, kind));

  const precision = Number(view.precision ?? 2);
  const currency = String(view.currency);
  const legal = text(view.currency_leg) ?? currency;
  const foreign = legal !== currency ? { code: currency, rate: view.fx_rate ?? 1, coefficient: view.currency_coef ?? 1 } : null;
  const toLegal = (v: unknown) => (foreign ? Dec(v as string | number).times(foreign.rate).div(foreign.coefficient) : Dec(v as string | number)).toDecimalPlaces(precision);
  const pair = (documentValue: unknown, legalValue?: Dec | null): IsdocAmount => ({
    document: Dec(documentValue as string | number).toFixed(precision),
    local: (legalValue ?? toLegal(documentValue)).toFixed(precision),
  });

  const { lines: itemLines, subtotals, category } = taxedLines(src);
  const lines: Array<IsdocLine & { key: string }> = itemLines.map((l) => ({
    key: `${l.category}|${l.category === 'O' ? '' : Dec(l.rate).toString()}`,
    description: [l.name, l.description].filter(Boolean).join(' — '),
    quantity: l.quantity,
    unitCode: l.unitCode,
    net: pair(l.net, l.netLegal),
    tax: pair(l.tax, l.taxLegal),
    rate: l.rate,
    sellersItemId: l.sellersItemId,
  }));
  for (const charge of (view.shipping_charges ?? []) as Json[]) {
    const taxes = (charge.taxes ?? []) as Json[];
    const cat = taxes[0] ? category(taxes[0]) : 'Z';
    const rate = taxes[0]?.tax_rate ?? 0;
    lines.push({
      key: `${cat}|${cat === 'O' ? '' : Dec(rate).toString()}`,
      description: text(charge.title) ?? 'Doprava',
      quantity: 1,
      net: pair(charge.net_amount ?? charge.amount, taxes[0] ? decOrNull(taxes[0].tax_base_leg) : null),
      tax: pair(
        taxes.reduce<Dec>((a, t) => a.plus(Dec(t.tax_amount ?? 0)), Dec(0)),
        taxes.reduce<Dec | null>((a, t) => addOrNull(a, decOrNull(t.tax_amount_leg)), Dec(0)),
      ),
      rate,
    });
  }
  // what the recap holds beyond the lines (a document discount not allocated to them) is a line of its own
  for (const s of subtotals) {
    const key = `${s.category}|${s.category === 'O' ? '' : s.rate}`;
    const mine = lines.filter((l) => l.key === key);
    const total = (f: (l: IsdocLine) => string | number) => mine.reduce((a, l) => a.plus(Dec(f(l))), Dec(0));
    const taxable = pair(s.taxableAmount.minus(total((l) => l.net.document)), (s.taxableLegal ?? toLegal(s.taxableAmount)).minus(total((l) => l.net.local)));
    const tax = pair(s.taxAmount.minus(total((l) => l.tax.document)), (s.taxLegal ?? toLegal(s.taxAmount)).minus(total((l) => l.tax.local)));
    if ([taxable.document, taxable.local, tax.document, tax.local].every((v) => Dec(v).isZero())) continue;
    // named in Czech like the rest of an ISDOC: a discount, a surcharge, or only the conversion's rounding
    const description = Dec(taxable.document).lt(0) ? 'Sleva' : Dec(taxable.document).gt(0) ? 'Přirážka' : 'Zaokrouhlení přepočtu kurzem';
    lines.push({ key, description, quantity: 1, net: taxable, tax, rate: s.rate });
  }

  const taxInclusive = pair(view.total_amount, decOrNull(view.total_amount_leg));
  const paid = pair(view.amount_paid ?? 0);
  const totals: IsdocDocument['totals'] = {
    taxExclusive: pair(view.subtotal_amount, decOrNull(view.subtotal_amount_leg)),
    taxAmount: pair(view.tax_amount ?? 0, decOrNull(view.tax_amount_leg)),
    taxInclusive,
    paid,
    // what is left in the legal currency is the stored total less what was paid, not the converted balance
    payable: { document: Dec(view.amount_due ?? view.total_amount).toFixed(precision), local: Dec(taxInclusive.local).minus(paid.local).toFixed(precision) },
  };

  const sellerCountry = org.country!.toUpperCase();
  const buyerCountry = text(src.buyerAddress?.country)!.toUpperCase();
  const bank = (profile?.bank_account as Json | undefined) ?? null;
  const iban = normaliseIban(text(bank?.iban) ?? text(view.bank_account?.iban));
  const domestic = domesticAccountOf(iban);
  const isCredit = kind.rendering === 'credit_note';
  const isdoc: IsdocDocument = {
    kind: isCredit ? 'credit_note' : 'invoice',
    number: String(view.no),
    uuid: String(view.uid),
    issueDate: String(view.date_issued),
    taxPointDate: text(view.date_taxable) ?? String(view.date_issued),
    dueDate: text(view.date_due),
    vatApplicable: org.is_vat_payer !== false,
    taxesIncluded: view.taxes_included === true,
    note: text(view.notes),
    localCurrency: legal,
    foreign,
    orderReference: text(view.order_reference),
    original: isCredit ? { number: String(view.credited_doc_no), issueDate: credited?.issueDate ?? null, uuid: credited?.uid ?? null } : null,
    seller: isdocParty(text(profile?.name) ?? text(issuer.name)!, text(profile?.reg_no ?? issuer.reg_no), text(org.vat_no), text(profile?.email ?? issuer.email), (profile?.address as Json | undefined) ?? issuer.address, sellerCountry),
    buyer: isdocParty(text(customer.business_name ?? customer.display_name)!, text(customer.reg_no), text(customer.vat_no), text(customer.email), src.buyerAddress, buyerCountry),
    lines,
    taxSubtotals: subtotals.map((s) => ({ rate: s.category === 'O' ? 0 : s.rate, taxable: pair(s.taxableAmount, s.taxableLegal), tax: pair(s.taxAmount, s.taxLegal) })),
    totals,
    // a credit note asks for no payment; an invoice names the account and the variable symbol it is paid by
    payment:
      !isCredit && iban && Dec(view.amount_due ?? 0).gt(0)
        ? {
            amount: Dec(view.amount_due).toFixed(precision),
            dueDate: text(view.date_due),
            accountNumber: domestic?.accountNumber ?? null,
            bankCode: domestic?.bankCode ?? null,
            iban,
            bic: text(bank?.bic),
            variableSymbol: documentVariableSymbol(view.payment_reference, view.no),
          }
        : null,
    precision,
  };
  return { xml: isdocXml(isdoc), no: String(view.no) };
}

/** What the credited invoice lends a credit note: its issue date and UUID (the reference to it) and its buyer and order references. */
interface CreditedInvoice {
  issueDate: string;
  uid: string | null;
  buyerReference: string | null;
  orderReference: string | null;
}

async function creditedInvoice(em: EntityManager, creditedId: number | null): Promise<CreditedInvoice | null> {
  if (creditedId == null) return null;
  const credited = await em.findOne(SalesDocumentSchema, { id: creditedId });
  if (!credited) return null;
  const body = credited.body as Json;
  return { issueDate: credited.dateIssued, uid: text(body.uid), buyerReference: text(body.buyer_reference), orderReference: text(body.order_reference) };
}
