import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { BusinessRuleError, ValidationError } from '@ledgerline/service-kit';
import { Dec } from '@ledgerline/core/money';
import type { VendorBillRequest, VendorCreditRequest } from '@ledgerline/contracts';

/*
 * A received e-invoice (UBL 2.1 Invoice or CreditNote, as Peppol BIS Billing 3.0 carries it) read
 * into a vendor bill or vendor credit request (issue 16). The XML is checked before anything is
 * read: well-formed, no DOCTYPE (so no entity can expand or reach outside), a UBL root. What the
 * document says about its totals is kept beside the request, so the import can compare them
 * with the figures our posting computes.
 */

const UBL_INVOICE_NS = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';
const UBL_CREDIT_NOTE_NS = 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2';

type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ImportedTotals {
  taxExclusive: string;
  taxAmount: string;
  taxInclusive: string;
  payable: string;
  prepaid: string;
}

export interface ReadEInvoice {
  kind: 'bill' | 'vendor_credit';
  request: VendorBillRequest & Partial<Pick<VendorCreditRequest, 'credited_doc_no'>>;
  totals: ImportedTotals;
  /** The vendor as the duplicate check knows it: its VAT id, else its Peppol address, else its name. */
  vendorKey: string;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false, // amounts stay text: they become decimals, never floats
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false,
  isArray: (name) => ['InvoiceLine', 'CreditNoteLine', 'AllowanceCharge', 'TaxSubtotal', 'TaxTotal', 'PaymentMeans', 'Note', 'BillingReference'].includes(name),
});

const bad = (message: string, path: string, code = 'invalid_einvoice') => new ValidationError(message, [{ path, message, code }], code);

/** The text of a leaf (an element with attributes keeps its text in `#text`). */
function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'object') return text((v as Node)['#text']);
  const s = String(v).trim();
  return s === '' ? null : s;
}

function amount(v: unknown, path: string, required = true): string | null {
  const t = text(v);
  if (t === null) {
    if (required) throw bad(`${path} is missing`, path);
    return null;
  }
  if (!/^-?\d{1,15}(\.\d{1,6})?$/.test(t)) throw bad(`${path} is not an amount: ${t.slice(0, 40)}`, path);
  // the request our posting takes carries JSON numbers: more than 15 significant digits would not arrive as written
  if (t.replace(/^-?0*|\./g, '').replace(/0+$/, '').length > 15) throw bad(`${path} has more than 15 significant digits: ${t}`, path);
  return t;
}

function required(v: unknown, path: string): string {
  const t = text(v);
  if (t === null) throw bad(`${path} is missing`, path);
  return t;
}

function date(v: unknown, path: string, isRequired = true): string | null {
  const t = text(v);
  if (t === null) {
    if (isRequired) throw bad(`${path} is missing`, path);
    return null;
  }
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(t) ? new Date(`${t}T00:00:00Z`) : null;
  // a day the calendar lacks (2026-02-30) rolls over in Date: compare it back
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== t) throw bad(`${path} is not a date (YYYY-MM-DD): ${t.slice(0, 40)}`, path);
  return t;
}

/** The namespace of the root element, read from its start tag (the parser drops namespace declarations). */
function rootNamespace(xml: string): string | null {
  const start = /<(?![?!])(?:([A-Za-z_][\w.-]*):)?[A-Za-z_][\w.-]*((?:\s+[^\s=>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(xml);
  if (!start) return null;
  const attr = start[1] ? `xmlns:${start[1]}` : 'xmlns';
  const found = new RegExp(`\\s${attr.replace('.', '\\.')}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(start[2] ?? '');
  return found ? (found[1] ?? found[2]) : null;
}

/** Parses and checks the XML; answers its root element and whether it is an invoice or a credit note. */
export function parseUbl(xml: string): { root: Node; kind: 'bill' | 'vendor_credit' } {
  // UBL never needs a document type declaration; refusing it shuts out entity expansion and external entities
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw bad('The document declares a DOCTYPE or entities, which e-invoices never need', 'body', 'xml_doctype_forbidden');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw bad(`The body is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`, `body:${valid.err.line}:${valid.err.col}`, 'malformed_xml');
  const doc = parser.parse(xml) as Node;
  const name = Object.keys(doc).find((k) => k !== '?xml');
  const root = (name ? doc[name] : undefined) as Node;
  const ns = rootNamespace(xml);
  if (name === 'Invoice' && ns === UBL_INVOICE_NS) return { root, kind: 'bill' };
  if (name === 'CreditNote' && ns === UBL_CREDIT_NOTE_NS) return { root, kind: 'vendor_credit' };
  throw bad(`The root element is ${name ?? 'missing'}${ns ? ` in ${ns}` : ''}; expected a UBL 2.1 Invoice or CreditNote`, 'body', 'unsupported_einvoice');
}

function party(p: Node | undefined, path: string) {
  const party = (p?.Party ?? {}) as Node;
  const name = text(party.PartyLegalEntity?.RegistrationName) ?? text(party.PartyName?.Name);
  if (!name) throw bad(`${path} has no name`, `${path}/Party/PartyLegalEntity/RegistrationName`);
  const endpoint = party.EndpointID;
  const scheme = typeof endpoint === 'object' ? text(endpoint['@schemeID']) : null;
  const address = (party.PostalAddress ?? {}) as Node;
  const taxSchemes = ([] as Node[]).concat(party.PartyTaxScheme ?? []);
  const vat = taxSchemes.map((t) => text(t.CompanyID)).find(Boolean) ?? null;
  return {
    business_name: name.slice(0, 255),
    vat_no: vat,
    reg_no: text(party.PartyLegalEntity?.CompanyID),
    email: text(party.Contact?.ElectronicMail),
    peppol_id: scheme && text(endpoint) && /^[0-9]{4}$/.test(scheme) ? `${scheme}:${text(endpoint)}` : null,
    address: {
      address1: text(address.StreetName),
      address2: text(address.AdditionalStreetName),
      city: text(address.CityName),
      postal_code: text(address.PostalZone),
      country: text(address.Country?.IdentificationCode),
    },
  };
}

/** A tax category's rate and code (category O has no rate). */
function tax(category: Node | undefined, path: string) {
  const code = required(category?.ID, `${path}/ID`);
  const percent = code === 'O' ? '0' : (amount(category?.Percent, `${path}/Percent`, false) ?? '0');
  return { tax_code: code, tax_rate: Number(percent) };
}

/** The request our posting takes, and the totals the document states. */
export function readUbl(xml: string): ReadEInvoice {
  const { root, kind } = parseUbl(xml);
  const lineName = kind === 'bill' ? 'InvoiceLine' : 'CreditNoteLine';
  const qtyName = kind === 'bill' ? 'InvoicedQuantity' : 'CreditedQuantity';
  const currency = required(root.DocumentCurrencyCode, 'DocumentCurrencyCode');
  if (!/^[A-Z]{3}$/.test(currency)) throw bad(`DocumentCurrencyCode is not a currency: ${currency}`, 'DocumentCurrencyCode');
  const vendor = party(root.AccountingSupplierParty, 'AccountingSupplierParty');
  const lines = (root[lineName] ?? []) as Node[];
  if (lines.length === 0) throw bad(`The document has no ${lineName}`, lineName);
  if (lines.length > 10_000) throw bad(`The document has more than 10,000 lines`, lineName);

  const items = lines.map((l, i) => {
    const path = `${lineName}[${i + 1}]`;
    const qty = amount(l[qtyName], `${path}/${qtyName}`)!;
    amount(l.Price?.PriceAmount, `${path}/Price/PriceAmount`); // required by UBL; the rate comes from the line amount
    const net = amount(l.LineExtensionAmount, `${path}/LineExtensionAmount`)!;
    if (Dec(qty).isZero()) throw bad(`${path}/${qtyName} is zero`, `${path}/${qtyName}`);
    // the stated line amount is what the vendor charges: its unit rate is the line amount over the quantity
    // (price × quantity less line allowances), so our figures reproduce it
    const rate = Dec(net).div(qty).toDecimalPlaces(6);
    return {
      description: (text(l.Item?.Name) ?? text(l.Item?.Description) ?? `Line ${i + 1}`).slice(0, 10_000),
      qty: Number(qty),
      rate: Number(rate.toString()),
      taxes: [tax(l.Item?.ClassifiedTaxCategory, `${path}/Item/ClassifiedTaxCategory`)],
    };
  });
  // document-level allowances and charges become lines of their own category
  ((root.AllowanceCharge ?? []) as Node[]).forEach((a, i) => {
    const path = `AllowanceCharge[${i + 1}]`;
    const charge = text(a.ChargeIndicator) === 'true';
    const value = Dec(amount(a.Amount, `${path}/Amount`)!);
    items.push({
      description: (text(a.AllowanceChargeReason) ?? (charge ? 'Charge' : 'Allowance')).slice(0, 10_000),
      qty: 1,
      rate: Number((charge ? value : value.neg()).toString()),
      taxes: [tax(a.TaxCategory, `${path}/TaxCategory`)],
    });
  });

  const totals = (root.LegalMonetaryTotal ?? {}) as Node;
  const taxTotal = ((root.TaxTotal ?? []) as Node[]).find((t) => typeof t.TaxAmount !== 'object' || text(t.TaxAmount?.['@currencyID']) === currency) ?? (root.TaxTotal ?? [])[0];
  const means = ((root.PaymentMeans ?? []) as Node[])[0];
  const request: ReadEInvoice['request'] = {
    type: { id: 1, name: 'purchase' },
    vendor,
    currency,
    date_issued: date(root.IssueDate, 'IssueDate')!,
    date_due: date(root.DueDate ?? means?.PaymentDueDate, 'DueDate', false),
    vendor_doc_no: required(root.ID, 'ID').slice(0, 64),
    payment_reference: text(means?.PaymentID)?.slice(0, 140) ?? null,
    bank_account_number: text(means?.PayeeFinancialAccount?.ID)?.slice(0, 64) ?? null,
    description: ((root.Note ?? []) as unknown[]).map(text).filter(Boolean).join('\n').slice(0, 10_000) || null,
    items,
  };
  if (kind === 'vendor_credit') request.credited_doc_no = text((root.BillingReference ?? [])[0]?.InvoiceDocumentReference?.ID)?.slice(0, 64) ?? null;
  return {
    kind,
    request,
    totals: {
      taxExclusive: amount(totals.TaxExclusiveAmount, 'LegalMonetaryTotal/TaxExclusiveAmount')!,
      taxAmount: amount(taxTotal?.TaxAmount, 'TaxTotal/TaxAmount') ?? '0',
      taxInclusive: amount(totals.TaxInclusiveAmount, 'LegalMonetaryTotal/TaxInclusiveAmount')!,
      payable: amount(totals.PayableAmount, 'LegalMonetaryTotal/PayableAmount')!,
      prepaid: amount(totals.PrepaidAmount, 'LegalMonetaryTotal/PrepaidAmount', false) ?? '0',
    },
    vendorKey: (vendor.vat_no ?? vendor.peppol_id ?? vendor.business_name).toUpperCase().replace(/\s+/g, ''),
  };
}

/**
 * The document's totals against ours: each may differ by at most a cent per VAT rate (rounding
 * per line against rounding per rate, which EN 16931 leaves to the seller); more is 422 naming
 * each total.
 */
export function compareTotals(
  stated: ImportedTotals,
  ours: { subtotal_amount: string | number; tax_amount: string | number; total_amount: string | number },
  rates: number,
): void {
  const tolerance = Dec('0.01').times(Math.max(1, rates));
  const checks: Array<[string, string, string | number]> = [
    ['TaxExclusiveAmount', stated.taxExclusive, ours.subtotal_amount],
    ['TaxAmount', stated.taxAmount, ours.tax_amount],
    ['TaxInclusiveAmount', stated.taxInclusive, ours.total_amount],
    ['PayableAmount', Dec(stated.payable).plus(stated.prepaid).toString(), ours.total_amount],
  ];
  const off = checks.filter(([, a, b]) => Dec(a).minus(Dec(b)).abs().gt(tolerance));
  if (off.length) {
    throw new BusinessRuleError(
      `The document's totals differ from the figures of its lines: ${off.map(([n, a, b]) => `${n} ${a} ≠ ${Dec(b).toString()}`).join(', ')}`,
      'imported_totals_mismatch',
      off.map(([n, a, b]) => ({ path: n, message: `the document states ${a}, its lines give ${Dec(b).toString()}`, code: 'totals_mismatch' })),
    );
  }
}
