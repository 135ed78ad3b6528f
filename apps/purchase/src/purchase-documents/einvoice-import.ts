import { BusinessRuleError, ValidationError, readXmlDocument, xmlLeaf, type XmlNode } from '@ledgerline/service-kit';
import { Dec } from '@ledgerline/core/money';
import type { VendorBillRequest, VendorCreditRequest } from '@ledgerline/contracts';

/*
 * A received e-invoice — UBL 2.1 Invoice or CreditNote (as Peppol BIS Billing 3.0 carries it) or
 * ISDOC 6.0.2 (the Czech format) — read into a vendor bill or vendor credit request (issue 16).
 * The XML is checked before anything is read: well-formed, no DOCTYPE (so no entity can expand
 * or reach outside), a UBL or ISDOC root. What the document says about its totals is kept beside
 * the request, so the import can compare them with the figures our posting computes.
 */

const UBL_INVOICE_NS = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';
const UBL_CREDIT_NOTE_NS = 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2';
const ISDOC_NS = 'http://isdoc.cz/namespace/2013';

type Node = XmlNode;

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
  /** The vendor as the duplicate check knows it: its VAT id, else its Peppol address or registration, else its name. */
  vendorKey: string;
  /** The rate the document itself states from its currency to another (ISDOC: CurrRate per RefCurrRate units of the foreign currency). */
  statedRate?: { from: string; to: string; rate: string } | null;
}

/** Elements that may repeat, read as arrays even when one is present (UBL, then ISDOC names). */
const ARRAYS = ['InvoiceLine', 'CreditNoteLine', 'AllowanceCharge', 'TaxSubtotal', 'TaxTotal', 'PaymentMeans', 'Note', 'BillingReference', 'TaxSubTotal', 'Payment', 'OriginalDocumentReference', 'PartyTaxScheme'];


const bad = (message: string, path: string, code = 'invalid_einvoice') => new ValidationError(message, [{ path, message, code }], code);

const text = xmlLeaf;

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


type Parsed = { format: 'ubl'; root: Node; kind: 'bill' | 'vendor_credit' } | { format: 'isdoc'; root: Node };

/** Parses and checks the XML; answers its root element and which format it is in. */
export function parseEInvoice(xml: string): Parsed {
  const { name, namespace: ns, root } = readXmlDocument(xml, ARRAYS, 'e-invoice');
  if (name === 'Invoice' && ns === UBL_INVOICE_NS) return { format: 'ubl', root, kind: 'bill' };
  if (name === 'CreditNote' && ns === UBL_CREDIT_NOTE_NS) return { format: 'ubl', root, kind: 'vendor_credit' };
  if (name === 'Invoice' && ns === ISDOC_NS) return { format: 'isdoc', root };
  throw bad(`The root element is ${name ?? 'missing'}${ns ? ` in ${ns}` : ''}; expected a UBL 2.1 Invoice or CreditNote, or an ISDOC Invoice`, 'body', 'unsupported_einvoice');
}

/** The request our posting takes and the totals the document states, from UBL or ISDOC. */
export function readEInvoice(xml: string): ReadEInvoice {
  const parsed = parseEInvoice(xml);
  return parsed.format === 'ubl' ? readUbl(parsed.root, parsed.kind) : readIsdoc(parsed.root);
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

/** A UBL Invoice or CreditNote as the request our posting takes, and the totals it states. */
function readUbl(root: Node, kind: 'bill' | 'vendor_credit'): ReadEInvoice {
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
    vendorKey: vendorKey(vendor),
  };
}

function vendorKey(vendor: { vat_no: string | null; peppol_id?: string | null; reg_no?: string | null; business_name: string }): string {
  return (vendor.vat_no ?? vendor.peppol_id ?? vendor.reg_no ?? vendor.business_name).toUpperCase().replace(/\s+/g, '');
}

/** ISDOC document types read as a bill (invoice, debit note, simplified tax document) or a vendor credit (credit note). */
const ISDOC_KINDS: Record<string, 'bill' | 'vendor_credit'> = { '1': 'bill', '2': 'vendor_credit', '3': 'bill', '7': 'bill' };

/**
 * An ISDOC 6.0.2 document as the request our posting takes. A document in a foreign currency is
 * read in that currency (the `…Curr` amounts) and states its rate to the local one. A credit note
 * written with negative amounts (some producers do) is read the same as one written positive:
 * the document type says which way it goes.
 */
function readIsdoc(root: Node): ReadEInvoice {
  const type = required(root.DocumentType, 'DocumentType');
  const kind = ISDOC_KINDS[type];
  if (!kind) throw bad(`ISDOC DocumentType ${type.slice(0, 10)} is not a bill or a credit note (1 invoice, 2 credit note, 3 debit note, 7 simplified tax document)`, 'DocumentType', 'unsupported_einvoice');
  const local = required(root.LocalCurrencyCode, 'LocalCurrencyCode');
  const foreign = text(root.ForeignCurrencyCode);
  const currency = foreign ?? local;
  for (const [c, path] of [[local, 'LocalCurrencyCode'], [currency, 'ForeignCurrencyCode']] as const) {
    if (!/^[A-Z]{3}$/.test(c)) throw bad(`${path} is not a currency: ${c.slice(0, 10)}`, path);
  }
  // the amounts in the document's currency: the …Curr twin when a foreign currency is named
  const money = (node: Node | undefined, name: string, path: string, isRequired = true) => amount(node?.[foreign ? `${name}Curr` : name], `${path}/${foreign ? `${name}Curr` : name}`, isRequired);
  const totals = (root.LegalMonetaryTotal ?? {}) as Node;
  const inclusive = money(totals, 'TaxInclusiveAmount', 'LegalMonetaryTotal')!;
  const sign = kind === 'vendor_credit' && Dec(inclusive).lt(0) ? -1 : 1;
  const signed = (v: string | null) => (v === null ? null : Dec(v).times(sign).toString());

  const supplier = (root.AccountingSupplierParty?.Party ?? {}) as Node;
  const name = text(supplier.PartyName?.Name);
  if (!name) throw bad('AccountingSupplierParty has no name', 'AccountingSupplierParty/Party/PartyName/Name');
  const address = (supplier.PostalAddress ?? {}) as Node;
  const taxSchemes = (supplier.PartyTaxScheme ?? []) as Node[];
  const vendor = {
    business_name: name.slice(0, 255),
    vat_no: taxSchemes.filter((t) => (text(t.TaxScheme) ?? 'VAT') === 'VAT').map((t) => text(t.CompanyID)).find(Boolean) ?? null,
    reg_no: text(supplier.PartyIdentification?.ID),
    email: text(supplier.Contact?.ElectronicMail),
    address: {
      address1: [text(address.StreetName), text(address.BuildingNumber)].filter(Boolean).join(' ') || null,
      city: text(address.CityName),
      postal_code: text(address.PostalZone),
      country: text(address.Country?.IdentificationCode),
    },
  };

  const lines = (root.InvoiceLines?.InvoiceLine ?? []) as Node[];
  if (lines.length === 0) throw bad('The document has no InvoiceLine', 'InvoiceLines');
  if (lines.length > 10_000) throw bad('The document has more than 10,000 lines', 'InvoiceLines');
  const items = lines.map((l, i) => {
    const path = `InvoiceLines/InvoiceLine[${i + 1}]`;
    const qty = signed(amount(l.InvoicedQuantity, `${path}/InvoicedQuantity`, false) ?? String(sign))!;
    const net = signed(money(l, 'LineExtensionAmount', path))!;
    if (Dec(qty).isZero()) throw bad(`${path}/InvoicedQuantity is zero`, `${path}/InvoicedQuantity`);
    const category = (l.ClassifiedTaxCategory ?? {}) as Node;
    const percent = amount(category.Percent, `${path}/ClassifiedTaxCategory/Percent`)!;
    const code = category.LocalReverseCharge !== undefined ? 'AE' : text(category.VATApplicable) === 'false' ? 'E' : Dec(percent).gt(0) ? 'S' : 'Z';
    return {
      description: (text(l.Item?.Description) ?? text(l.Note) ?? `Line ${i + 1}`).slice(0, 10_000),
      qty: Number(qty),
      // the stated line amount is what the vendor charges: its unit rate is the line amount over the quantity
      rate: Number(Dec(net).div(qty).toDecimalPlaces(6).toString()),
      taxes: [{ tax_code: code, tax_rate: Number(percent) }],
    };
  });

  const payment = ((([] as Node[]).concat(root.PaymentMeans ?? [])[0]?.Payment ?? []) as Node[])[0];
  const details = (payment?.Details ?? {}) as Node;
  const account = text(details.IBAN) ?? (text(details.ID) ? [text(details.ID), text(details.BankCode)].filter(Boolean).join('/') : null);
  const request: ReadEInvoice['request'] = {
    type: { id: 1, name: 'purchase' },
    vendor,
    currency,
    date_issued: date(root.IssueDate, 'IssueDate')!,
    date_due: date(details.PaymentDueDate, 'PaymentMeans/Payment/Details/PaymentDueDate', false),
    vendor_doc_no: required(root.ID, 'ID').slice(0, 64),
    payment_reference: text(details.VariableSymbol)?.slice(0, 140) ?? null,
    bank_account_number: account?.slice(0, 64) ?? null,
    description: text(root.Note)?.slice(0, 10_000) ?? null,
    items,
  };
  const originals = (root.OriginalDocumentReferences?.OriginalDocumentReference ?? []) as Node[];
  if (kind === 'vendor_credit') request.credited_doc_no = text(originals[0]?.ID)?.slice(0, 64) ?? null;
  const taxTotal = (root.TaxTotal ?? [])[0] as Node | undefined;
  const deposits = Dec(signed(money(totals, 'PaidDepositsAmount', 'LegalMonetaryTotal', false)) ?? 0);
  const rounding = Dec(signed(money(totals, 'PayableRoundingAmount', 'LegalMonetaryTotal', false)) ?? 0);
  const rate = foreign ? Dec(amount(root.CurrRate, 'CurrRate')!).div(amount(root.RefCurrRate, 'RefCurrRate') ?? '1') : null;
  return {
    kind,
    request,
    totals: {
      taxExclusive: signed(money(totals, 'TaxExclusiveAmount', 'LegalMonetaryTotal'))!,
      taxAmount: signed(money(taxTotal, 'TaxAmount', 'TaxTotal', false)) ?? '0',
      taxInclusive: signed(inclusive)!,
      payable: signed(money(totals, 'PayableAmount', 'LegalMonetaryTotal'))!,
      // the payable amount is the total less deposits, plus the rounding to whole crowns
      prepaid: deposits.minus(rounding).toString(),
    },
    vendorKey: vendorKey(vendor),
    statedRate: foreign && rate && rate.gt(0) && foreign !== local ? { from: foreign, to: local, rate: rate.toDecimalPlaces(10).toString() } : null,
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
