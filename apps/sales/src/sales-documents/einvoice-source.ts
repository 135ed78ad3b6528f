import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessRuleError, organisationReplica, type TenantScope } from '@ledgerline/service-kit';
import type { ComplianceOrganisation } from '@ledgerline/compliance';
import { Dec } from '@ledgerline/core/money';
import { taxCategoryOf, ublTaxCategory, type CategorisedLine } from '@ledgerline/core/tax-category';
import type { VatCategory } from '@ledgerline/documents/ubl';
import { SalesDocumentSchema, type SalesDocType } from '../db/entities.js';
import { organisationFacts } from '../compliance/evaluate.js';
import { getSalesDocument, type SalesDocumentKind } from './post.js';
import { documentView } from './view.js';

/*
 * What a stored sales document's e-invoices (Peppol UBL in `einvoice-ubl.ts`, ISDOC in
 * `einvoice-isdoc.ts`, issue 16) are written from: the stored view, the organisation profile
 * replica (its Peppol id, VAT id and bank account), the credited invoice, and the document's
 * lines and recap with their EN 16931 VAT categories. The figures are the stored ones. What a
 * format requires and the document lacks is answered as 422 naming each rule.
 */

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type EInvoiceKind = Pick<SalesDocumentKind<SalesDocType, never>, 'docType' | 'label' | 'rendering'>;

export const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
/** Rules beyond the evaluator's that a document needs to be written at all. */
export const DOCUMENT_CHECKS: Array<{ id: string; description: string; passes: (view: Json, org: ComplianceOrganisation, profile: Json | null) => boolean }> = [
  { id: 'BR-06', description: 'The seller name (BT-27): the organisation needs a name', passes: (v, _o, p) => text(p?.name ?? v.org?.name) !== null },
  { id: 'BR-09', description: 'The seller country (BT-40): the organisation needs a country', passes: (_v, o) => text(o.country) !== null },
  { id: 'BR-07', description: 'The buyer name (BT-44): the customer needs a business name', passes: (v) => text(v.customer?.business_name ?? v.customer?.display_name) !== null },
  { id: 'BR-11', description: 'The buyer country (BT-55): the customer address needs a country', passes: (v) => text(v.billing_address?.country ?? v.customer?.address?.country) !== null },
];

/**
 * The EN 16931 category of a tax line as a Peppol document carries it: the category stored with
 * the line when the document was issued, else (a document issued before categories were stored)
 * the one `taxCategoryOf` decides from the line and the parties, as it did then; a lower rate (AA)
 * is S in Peppol BIS.
 */
export function vatCategoryOf(line: CategorisedLine, seller: string | null, buyer: string | null, buyerHasVatId: boolean): VatCategory {
  return ublTaxCategory(taxCategoryOf(line, { sellerCountry: seller, buyerCountry: buyer, buyerHasVatId }));
}

/** A stored document with what its e-invoices are written from: the parties, the organisation profile and the credited invoice. */
export interface EInvoiceSource {
  kind: EInvoiceKind;
  view: Json;
  credited: CreditedInvoice | null;
  profile: Json | null;
  org: ComplianceOrganisation;
  customer: Json;
  issuer: Json;
  buyerAddress: Json | null;
}

export async function einvoiceSource(scope: TenantScope, kind: EInvoiceKind, id: number): Promise<EInvoiceSource> {
  const { em, orgId } = scope;
  const doc = await getSalesDocument(em, kind, id);
  const credited = await creditedInvoice(em, doc.creditedDocId ?? null);
  // a credit note carries the references of the invoice it corrects unless it names its own (PEPPOL-EN16931-R003)
  const stored = documentView(doc) as Json;
  const view: Json = {
    ...stored,
    buyer_reference: text(stored.buyer_reference) ?? credited?.buyerReference ?? null,
    order_reference: text(stored.order_reference) ?? credited?.orderReference ?? null,
  };
  const replica = await organisationReplica(scope);
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

export function refuseIncomplete(kind: EInvoiceKind, format: string, missing: Array<{ id: string; description: string }>): void {
  if (missing.length === 0) return;
  throw new BusinessRuleError(
    `The ${kind.label} cannot be written as ${format} yet: ${missing.map((m) => m.id).join(', ')}`,
    'einvoice_incomplete',
    missing.map((m) => ({ path: m.id, message: m.description, code: m.id })),
  );
}

/** A document line with its category: the stored net amount and tax, in the document and the legal currency. */
export interface TaxedLine {
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

export interface Subtotal {
  category: VatCategory;
  rate: string;
  taxableAmount: Dec;
  taxAmount: Dec;
  taxableLegal: Dec | null;
  taxLegal: Dec | null;
}

export const decOrNull = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '') ? Dec(v) : null);
export const addOrNull = (a: Dec | null, b: Dec | null) => (a === null || b === null ? null : a.plus(b));

/**
 * The document's lines with their EN 16931 category, and the stored recap as one subtotal per
 * category and rate (two recap rows of one category and rate add up); lines without any tax are
 * in no recap row and join the subtotal of their category.
 */
export function taxedLines(src: EInvoiceSource): { lines: TaxedLine[]; subtotals: Subtotal[]; category: (line: Json) => VatCategory } {
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

/** What the credited invoice lends a credit note: its issue date and UUID (the reference to it) and its buyer and order references. */
export interface CreditedInvoice {
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
