import { Dec } from '@ledgerline/core/money';
import { Xml } from './xml.js';

/*
 * Peppol BIS Billing 3.0 documents (UBL 2.1 Invoice and CreditNote) from a stored document
 * (issue 16). Every figure comes from what was stored — lines, tax breakdown, totals — and the
 * elements follow the UBL schema's order, since a validator at an access point refuses anything
 * else. What the document lacks is found before this runs (`missingForPeppol` in the sales
 * service), so this only writes.
 */

export const PEPPOL_CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
export const PEPPOL_PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/** UNCL5305 VAT category codes used by EN 16931. */
export type VatCategory = 'S' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O' | 'L' | 'M';
export const VAT_CATEGORIES: readonly VatCategory[] = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M'];

/** Why a category carries no VAT (VATEX codes; BR-AE-10, BR-IC-10, BR-G-10, BR-O-10, BR-E-10). */
const EXEMPTION: Partial<Record<VatCategory, { code?: string; text: string }>> = {
  AE: { code: 'VATEX-EU-AE', text: 'Reverse charge' },
  K: { code: 'VATEX-EU-IC', text: 'Intra-Community supply' },
  G: { code: 'VATEX-EU-G', text: 'Export outside the EU' },
  O: { code: 'VATEX-EU-O', text: 'Not subject to VAT' },
  E: { text: 'Exempt from VAT' },
};

export interface UblAddress {
  street?: string | null;
  additionalStreet?: string | null;
  city?: string | null;
  postalZone?: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

export interface UblParty {
  name: string;
  /** `scheme:value` (e.g. `0245:12345678`). */
  peppolId: string;
  vatId?: string | null;
  registrationId?: string | null;
  email?: string | null;
  address: UblAddress;
}

export interface UblLine {
  name: string;
  description?: string | null;
  quantity: string | number;
  /** UN/ECE Recommendation 20 unit code (C62 = one). */
  unitCode: string;
  /** The stored net line amount. */
  netAmount: string | number;
  category: VatCategory;
  /** Percent; ignored for category O. */
  rate: string | number;
  sellersItemId?: string | null;
}

export interface UblTaxSubtotal {
  category: VatCategory;
  rate: string | number;
  taxableAmount: string | number;
  taxAmount: string | number;
}

export interface UblDocument {
  kind: 'invoice' | 'credit_note';
  number: string;
  issueDate: string;
  dueDate?: string | null;
  currency: string;
  /** The accounting currency when it differs from `currency` (BR-53: the VAT total in it too). */
  taxCurrency?: { code: string; taxAmount: string | number } | null;
  note?: string | null;
  buyerReference?: string | null;
  orderReference?: string | null;
  /** The credited invoice (a credit note's BillingReference). */
  billingReference?: { number: string; issueDate?: string | null } | null;
  seller: UblParty;
  buyer: UblParty;
  /**
   * Where and when the supply was made (BG-13): the actual delivery date (BT-72) and the
   * deliver-to address (BG-15; BT-80 its country). EN 16931 requires both of an intra-Community
   * supply (BR-IC-11, BR-IC-12).
   */
  delivery?: { date?: string | null; address?: UblAddress | null } | null;
  payment?: { iban: string; bic?: string | null; reference?: string | null } | null;
  paymentTerms?: string | null;
  lines: UblLine[];
  taxSubtotals: UblTaxSubtotal[];
  totals: {
    /** Σ of the lines' net amounts as stored. */
    lineExtension: string | number;
    /** The stored subtotal (after document discounts and charges). */
    taxExclusive: string | number;
    taxAmount: string | number;
    /** The total with VAT before rounding (BT-112). */
    taxInclusive: string | number;
    /** Added to the total with VAT to make what is asked for (BT-114); absent or 0 without. */
    rounding?: string | number | null;
    prepaid: string | number;
    payable: string | number;
  };
  precision: number;
}

function money(value: string | number, precision: number): string {
  return Dec(value).toFixed(precision);
}

/** A percent as EN 16931 writes it (no trailing zeros beyond two decimals). */
function percent(value: string | number): string {
  return Dec(value).toDecimalPlaces(2).toString();
}

function splitPeppolId(id: string): { scheme: string; value: string } {
  const i = id.indexOf(':');
  return { scheme: id.slice(0, i), value: id.slice(i + 1) };
}

function taxCategory(x: Xml, element: string, category: VatCategory, rate: string | number, withExemption: boolean): void {
  x.open(element).leaf('cbc:ID', category);
  if (category !== 'O') x.leaf('cbc:Percent', percent(category === 'S' || category === 'L' || category === 'M' ? rate : 0));
  const exemption = withExemption ? EXEMPTION[category] : undefined;
  if (exemption) x.leaf('cbc:TaxExemptionReasonCode', exemption.code).leaf('cbc:TaxExemptionReason', exemption.code ? undefined : exemption.text);
  x.open('cac:TaxScheme').leaf('cbc:ID', 'VAT').close('cac:TaxScheme').close(element);
}

function party(x: Xml, role: 'cac:AccountingSupplierParty' | 'cac:AccountingCustomerParty', p: UblParty): void {
  const endpoint = splitPeppolId(p.peppolId);
  x.open(role).open('cac:Party');
  x.leaf('cbc:EndpointID', endpoint.value, { schemeID: endpoint.scheme });
  x.open('cac:PartyName').leaf('cbc:Name', p.name).close('cac:PartyName');
  x.open('cac:PostalAddress')
    .leaf('cbc:StreetName', p.address.street)
    .leaf('cbc:AdditionalStreetName', p.address.additionalStreet)
    .leaf('cbc:CityName', p.address.city)
    .leaf('cbc:PostalZone', p.address.postalZone)
    .open('cac:Country')
    .leaf('cbc:IdentificationCode', p.address.country.toUpperCase())
    .close('cac:Country')
    .close('cac:PostalAddress');
  if (p.vatId) x.open('cac:PartyTaxScheme').leaf('cbc:CompanyID', p.vatId).open('cac:TaxScheme').leaf('cbc:ID', 'VAT').close('cac:TaxScheme').close('cac:PartyTaxScheme');
  x.open('cac:PartyLegalEntity').leaf('cbc:RegistrationName', p.name).leaf('cbc:CompanyID', p.registrationId).close('cac:PartyLegalEntity');
  if (p.email) x.open('cac:Contact').leaf('cbc:ElectronicMail', p.email).close('cac:Contact');
  x.close('cac:Party').close(role);
}

/** Document-level allowances and charges: per category, the stored taxable amount less the lines' sum. */
function adjustments(doc: UblDocument): Array<{ charge: boolean; amount: string; category: VatCategory; rate: string | number }> {
  const out: Array<{ charge: boolean; amount: string; category: VatCategory; rate: string | number }> = [];
  for (const t of doc.taxSubtotals) {
    const lines = doc.lines.filter((l) => l.category === t.category && (t.category === 'O' || Dec(l.rate).eq(Dec(t.rate))));
    const sum = lines.reduce((a, l) => a.plus(Dec(l.netAmount)), Dec(0));
    const diff = Dec(t.taxableAmount).minus(sum);
    if (!diff.isZero()) out.push({ charge: diff.gt(0), amount: diff.abs().toFixed(doc.precision), category: t.category, rate: t.rate });
  }
  return out;
}

/** The UBL 2.1 XML of a Peppol BIS Billing 3.0 invoice or credit note. */
export function ublXml(doc: UblDocument): string {
  const p = doc.precision;
  const cur = { currencyID: doc.currency };
  const isInvoice = doc.kind === 'invoice';
  const root = isInvoice ? 'Invoice' : 'CreditNote';
  const x = new Xml();
  x.open(root, {
    xmlns: `urn:oasis:names:specification:ubl:schema:xsd:${root}-2`,
    'xmlns:cac': 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
    'xmlns:cbc': 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  });
  x.leaf('cbc:CustomizationID', PEPPOL_CUSTOMIZATION_ID).leaf('cbc:ProfileID', PEPPOL_PROFILE_ID).leaf('cbc:ID', doc.number).leaf('cbc:IssueDate', doc.issueDate);
  if (isInvoice) x.leaf('cbc:DueDate', doc.dueDate).leaf('cbc:InvoiceTypeCode', '380');
  else x.leaf('cbc:CreditNoteTypeCode', '381');
  x.leaf('cbc:Note', doc.note).leaf('cbc:DocumentCurrencyCode', doc.currency).leaf('cbc:TaxCurrencyCode', doc.taxCurrency?.code);
  x.leaf('cbc:BuyerReference', doc.buyerReference);
  if (doc.orderReference) x.open('cac:OrderReference').leaf('cbc:ID', doc.orderReference).close('cac:OrderReference');
  if (doc.billingReference) {
    x.open('cac:BillingReference')
      .open('cac:InvoiceDocumentReference')
      .leaf('cbc:ID', doc.billingReference.number)
      .leaf('cbc:IssueDate', doc.billingReference.issueDate)
      .close('cac:InvoiceDocumentReference')
      .close('cac:BillingReference');
  }
  party(x, 'cac:AccountingSupplierParty', doc.seller);
  party(x, 'cac:AccountingCustomerParty', doc.buyer);
  if (doc.delivery && (doc.delivery.date || doc.delivery.address)) {
    x.open('cac:Delivery').leaf('cbc:ActualDeliveryDate', doc.delivery.date);
    const a = doc.delivery.address;
    if (a) {
      x.open('cac:DeliveryLocation')
        .open('cac:Address')
        .leaf('cbc:StreetName', a.street)
        .leaf('cbc:AdditionalStreetName', a.additionalStreet)
        .leaf('cbc:CityName', a.city)
        .leaf('cbc:PostalZone', a.postalZone)
        .open('cac:Country')
        .leaf('cbc:IdentificationCode', a.country.toUpperCase())
        .close('cac:Country')
        .close('cac:Address')
        .close('cac:DeliveryLocation');
    }
    x.close('cac:Delivery');
  }
  if (doc.payment) {
    x.open('cac:PaymentMeans').leaf('cbc:PaymentMeansCode', '30', { name: 'Credit transfer' });
    // a credit note has no DueDate of its own: Peppol carries it here
    if (!isInvoice) x.leaf('cbc:PaymentDueDate', doc.dueDate);
    x.leaf('cbc:PaymentID', doc.payment.reference).open('cac:PayeeFinancialAccount').leaf('cbc:ID', doc.payment.iban);
    if (doc.payment.bic) x.open('cac:FinancialInstitutionBranch').leaf('cbc:ID', doc.payment.bic).close('cac:FinancialInstitutionBranch');
    x.close('cac:PayeeFinancialAccount').close('cac:PaymentMeans');
  }
  if (doc.paymentTerms) x.open('cac:PaymentTerms').leaf('cbc:Note', doc.paymentTerms).close('cac:PaymentTerms');

  const adj = adjustments(doc);
  for (const a of adj) {
    x.open('cac:AllowanceCharge')
      .leaf('cbc:ChargeIndicator', String(a.charge))
      .leaf('cbc:AllowanceChargeReason', a.charge ? 'Charge' : 'Discount')
      .leaf('cbc:Amount', a.amount, cur);
    taxCategory(x, 'cac:TaxCategory', a.category, a.rate, false);
    x.close('cac:AllowanceCharge');
  }

  x.open('cac:TaxTotal').leaf('cbc:TaxAmount', money(doc.totals.taxAmount, p), cur);
  for (const t of doc.taxSubtotals) {
    x.open('cac:TaxSubtotal').leaf('cbc:TaxableAmount', money(t.taxableAmount, p), cur).leaf('cbc:TaxAmount', money(t.taxAmount, p), cur);
    taxCategory(x, 'cac:TaxCategory', t.category, t.rate, true);
    x.close('cac:TaxSubtotal');
  }
  x.close('cac:TaxTotal');
  if (doc.taxCurrency) x.open('cac:TaxTotal').leaf('cbc:TaxAmount', money(doc.taxCurrency.taxAmount, p), { currencyID: doc.taxCurrency.code }).close('cac:TaxTotal');

  const allowances = adj.filter((a) => !a.charge).reduce((s, a) => s.plus(a.amount), Dec(0));
  const charges = adj.filter((a) => a.charge).reduce((s, a) => s.plus(a.amount), Dec(0));
  x.open('cac:LegalMonetaryTotal')
    .leaf('cbc:LineExtensionAmount', money(doc.totals.lineExtension, p), cur)
    .leaf('cbc:TaxExclusiveAmount', money(doc.totals.taxExclusive, p), cur)
    .leaf('cbc:TaxInclusiveAmount', money(doc.totals.taxInclusive, p), cur)
    .leaf('cbc:AllowanceTotalAmount', allowances.isZero() ? null : allowances.toFixed(p), cur)
    .leaf('cbc:ChargeTotalAmount', charges.isZero() ? null : charges.toFixed(p), cur)
    .leaf('cbc:PrepaidAmount', Dec(doc.totals.prepaid).isZero() ? null : money(doc.totals.prepaid, p), cur)
    .leaf('cbc:PayableRoundingAmount', Dec(doc.totals.rounding ?? 0).isZero() ? null : money(doc.totals.rounding!, p), cur)
    .leaf('cbc:PayableAmount', money(doc.totals.payable, p), cur)
    .close('cac:LegalMonetaryTotal');

  const lineElement = isInvoice ? 'cac:InvoiceLine' : 'cac:CreditNoteLine';
  doc.lines.forEach((l, i) => {
    // a negative line (a discount, a return) carries its sign in the quantity: the price is never
    // negative (BR-27), and quantity × price must give the line amount (PEPPOL-EN16931-R120)
    const stated = Dec(l.quantity);
    const qty = Dec(l.netAmount).lt(0) !== stated.lt(0) && !stated.isZero() && !Dec(l.netAmount).isZero() ? stated.neg() : stated;
    x.open(lineElement)
      .leaf('cbc:ID', String(i + 1))
      .leaf(isInvoice ? 'cbc:InvoicedQuantity' : 'cbc:CreditedQuantity', qty.toString(), { unitCode: l.unitCode })
      .leaf('cbc:LineExtensionAmount', money(l.netAmount, p), cur)
      .open('cac:Item')
      .leaf('cbc:Description', l.description)
      .leaf('cbc:Name', l.name);
    if (l.sellersItemId) x.open('cac:SellersItemIdentification').leaf('cbc:ID', l.sellersItemId).close('cac:SellersItemIdentification');
    taxCategory(x, 'cac:ClassifiedTaxCategory', l.category, l.rate, false);
    // the net unit price that gives the stored line amount (never negative: BR-27)
    const price = qty.isZero() ? Dec(0) : Dec(l.netAmount).div(qty).abs().toDecimalPlaces(6);
    x.close('cac:Item').open('cac:Price').leaf('cbc:PriceAmount', price.toString(), cur).close('cac:Price').close(lineElement);
  });
  x.close(root);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${x.toString()}\n`;
}
