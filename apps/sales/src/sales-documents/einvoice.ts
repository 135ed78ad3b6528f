import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessRuleError, organisationReplica } from '@ledgerline/service-kit';
import { EU_COUNTRIES, PEPPOL_CHECKS, failedPeppolChecks, markedVatCategory, type ComplianceInvoice, type ComplianceOrganisation } from '@ledgerline/compliance';
import { Dec } from '@ledgerline/core/money';
import { VAT_CATEGORIES, ublXml, type UblDocument, type UblParty, type VatCategory } from '@ledgerline/documents/ubl';
import { SalesDocumentSchema, type SalesDocType } from '../db/entities.js';
import { organisationFacts } from '../compliance/evaluate.js';
import { getSalesDocument, type SalesDocumentKind } from './post.js';
import { documentView } from './view.js';

/*
 * A stored sales document as a Peppol BIS Billing 3.0 document (issue 16). The figures are the
 * stored ones; the parties come from the document's customer and the organisation profile
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

function addressOf(a: Json | null | undefined, fallbackCountry: string) {
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
  const org = organisationFacts(profile, view.org ?? null);
  const missing = missingForPeppol(view, org, profile, kind);
  if (missing.length) {
    throw new BusinessRuleError(
      `The ${kind.label} cannot be sent over Peppol yet: ${missing.map((m) => m.id).join(', ')}`,
      'einvoice_incomplete',
      missing.map((m) => ({ path: m.id, message: m.description, code: m.id })),
    );
  }

  const customer = (view.customer ?? {}) as Json;
  const issuer = (view.org ?? {}) as Json;
  const sellerCountry = org.country!.toUpperCase();
  const buyerAddress = (view.billing_address as Json | null) ?? (customer.address as Json | null);
  const buyerCountry = text(buyerAddress?.country)!.toUpperCase();
  const category = (line: Json) => vatCategoryOf(line, sellerCountry, buyerCountry, text(customer.vat_no) !== null);

  const seller: UblParty = {
    name: text(profile?.name) ?? text(issuer.name)!,
    peppolId: text(org.peppol_id)!,
    vatId: text(org.vat_no),
    registrationId: text(profile?.reg_no ?? issuer.reg_no),
    address: addressOf((profile?.address as Json | undefined) ?? issuer.address, sellerCountry),
  };
  const buyer: UblParty = {
    name: text(customer.business_name ?? customer.display_name)!,
    peppolId: text(customer.peppol_id)!,
    vatId: text(customer.vat_no),
    registrationId: text(customer.reg_no),
    email: text(customer.email),
    address: addressOf(buyerAddress, buyerCountry),
  };

  const items = (view.items ?? []) as Json[];
  const lines = items.map((it) => {
    const tax = ((it.taxes ?? []) as Json[])[0];
    const unit = text(it.unit?.code)?.toUpperCase();
    return {
      name: text(it.title) ?? text(it.description) ?? text(it.item?.name) ?? 'Item',
      description: text(it.title) ? text(it.description) : null,
      quantity: it.qty,
      unitCode: unit && /^[A-Z0-9]{2,3}$/.test(unit) ? unit : 'C62',
      netAmount: it.net_amount ?? it.amount,
      category: tax ? category(tax) : org.is_vat_payer === false ? ('O' as const) : ('Z' as const),
      rate: tax?.tax_rate ?? 0,
      sellersItemId: text(it.sku),
    };
  });
  // the stored recap, one subtotal per category and rate (two recap rows of one category and rate
  // add up); lines without any tax are in no recap row and join the subtotal of their category
  const subtotals = new Map<string, { category: VatCategory; rate: string; taxableAmount: Dec; taxAmount: Dec }>();
  const addToSubtotal = (cat: VatCategory, rate: unknown, base: unknown, tax: unknown) => {
    const r = Dec((rate as string | number | undefined) ?? 0).toString();
    const key = `${cat}|${cat === 'O' ? '' : r}`;
    const s = subtotals.get(key) ?? { category: cat, rate: r, taxableAmount: Dec(0), taxAmount: Dec(0) };
    s.taxableAmount = s.taxableAmount.plus(Dec((base as string | number | undefined) ?? 0));
    s.taxAmount = s.taxAmount.plus(Dec((tax as string | number | undefined) ?? 0));
    subtotals.set(key, s);
  };
  for (const t of (view.taxes ?? []) as Json[]) addToSubtotal(category(t), t.tax_rate, t.tax_base, t.tax_amount);
  items.forEach((it, i) => {
    if (((it.taxes ?? []) as Json[]).length === 0) addToSubtotal(lines[i].category, lines[i].rate, lines[i].netAmount, 0);
  });

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
    lines,
    taxSubtotals: [...subtotals.values()].map((s) => ({ category: s.category, rate: s.rate, taxableAmount: s.taxableAmount.toFixed(precision), taxAmount: s.taxAmount.toFixed(precision) })),
    totals: {
      lineExtension: lines.reduce((a, l) => a.plus(Dec(l.netAmount)), Dec(0)).toFixed(precision),
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

/** What the credited invoice lends a credit note: its issue date (BillingReference) and its buyer and order references. */
async function creditedInvoice(em: EntityManager, creditedId: number | null): Promise<{ issueDate: string; buyerReference: string | null; orderReference: string | null } | null> {
  if (creditedId == null) return null;
  const credited = await em.findOne(SalesDocumentSchema, { id: creditedId });
  if (!credited) return null;
  const body = credited.body as Json;
  return { issueDate: credited.dateIssued, buyerReference: text(body.buyer_reference), orderReference: text(body.order_reference) };
}
