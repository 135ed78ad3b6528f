import { Dec } from '@ledgerline/core/money';
import { Xml } from './xml.js';

/*
 * ISDOC 6.0.2 documents (the Czech national e-invoice, read by every Czech accounting product)
 * from a stored invoice or credit note (issue 16). Like the UBL writer it only writes: the sales
 * service gathers the stored figures and refuses what cannot be written.
 *
 * Two conventions of ISDOC shape the writer:
 * - Amounts are in the local (accounting) currency; a document in another currency names it as
 *   ForeignCurrencyCode and carries every amount in it too, in the `…Curr` twin of each element
 *   (the format's business rules demand all of them once ForeignCurrencyCode is present).
 * - A credit note is DocumentType 2 with the original document's reference; its amounts are
 *   written as stored (positive), the document type says they are a correction downwards.
 */

export const ISDOC_NAMESPACE = 'http://isdoc.cz/namespace/2013';
export const ISDOC_VERSION = '6.0.2';

/** An amount in the document's currency and in the local currency (equal when they are one). */
export interface IsdocAmount {
  document: string | number;
  local: string | number;
}

export interface IsdocParty {
  name: string;
  /** The company registration number (IČO); written empty when the party has none (a consumer). */
  registrationId?: string | null;
  vatId?: string | null;
  email?: string | null;
  address: { street?: string | null; buildingNumber?: string | null; city?: string | null; postalZone?: string | null; country: string; countryName: string };
}

export interface IsdocLine {
  description: string;
  quantity: string | number;
  unitCode?: string | null;
  net: IsdocAmount;
  tax: IsdocAmount;
  rate: string | number;
  sellersItemId?: string | null;
}

export interface IsdocTaxSubtotal {
  rate: string | number;
  taxable: IsdocAmount;
  tax: IsdocAmount;
  /** false: the subtotal is exempt from or outside VAT (VATApplicable); absent: not said. */
  vatApplicable?: boolean;
  /** The buyer accounts for the tax under the Czech local reverse charge, § 92a (LocalReverseChargeFlag). */
  localReverseCharge?: boolean;
  /** What advance tax documents already declared at this rate (a final invoice's deducted advances). */
  claimed?: { taxable: IsdocAmount; tax: IsdocAmount } | null;
}

/** A final invoice's advances: taxed ones (their tax documents declared the VAT) by rate, and untaxed ones. */
export interface IsdocDeposits {
  taxed: Array<{ id: string; variableSymbol: string; taxable: IsdocAmount; inclusive: IsdocAmount; rate: string | number }>;
  nonTaxed: Array<{ id: string; variableSymbol: string; amount: IsdocAmount }>;
}

export interface IsdocDocument {
  kind: 'invoice' | 'credit_note';
  number: string;
  /** The document's own UUID: the same on every export, so a receiver knows it again. */
  uuid: string;
  issueDate: string;
  taxPointDate?: string | null;
  dueDate?: string | null;
  vatApplicable: boolean;
  /** true when line rates were gross (VAT computed from the top). */
  taxesIncluded: boolean;
  note?: string | null;
  localCurrency: string;
  /** The document's currency when it is not the local one; the rate is local units per `coefficient` units. */
  foreign?: { code: string; rate: string | number; coefficient: string | number } | null;
  orderReference?: string | null;
  /** The credited invoice (required for a credit note). */
  original?: { number: string; issueDate?: string | null; uuid?: string | null } | null;
  seller: IsdocParty;
  buyer: IsdocParty;
  lines: IsdocLine[];
  taxSubtotals: IsdocTaxSubtotal[];
  deposits?: IsdocDeposits | null;
  /** taxInclusive is the total before rounding; rounding (whole crowns) is added to it in payable. */
  totals: { taxExclusive: IsdocAmount; taxAmount: IsdocAmount; taxInclusive: IsdocAmount; rounding?: IsdocAmount | null; paid: IsdocAmount; payable: IsdocAmount };
  payment?: { amount: string | number; dueDate?: string | null; accountNumber?: string | null; bankCode?: string | null; bankName?: string | null; iban: string; bic?: string | null; variableSymbol?: string | null } | null;
  precision: number;
}

const fixed = (v: string | number, p: number) => Dec(v).toFixed(p);
const percentText = (v: string | number) => Dec(v).toDecimalPlaces(2).toString();

/**
 * Writes an amount: the `…Curr` twin (document currency) only when the document is in a foreign
 * currency, before or after the local one as the element's parent orders them.
 */
function amount(x: Xml, name: string, a: IsdocAmount, doc: IsdocDocument, currFirst = true): void {
  const p = doc.precision;
  if (!doc.foreign) {
    x.leaf(name, fixed(a.local, p));
    return;
  }
  if (currFirst) x.leaf(`${name}Curr`, fixed(a.document, p)).leaf(name, fixed(a.local, p));
  else x.leaf(name, fixed(a.local, p)).leaf(`${name}Curr`, fixed(a.document, p));
}

const ZERO: IsdocAmount = { document: 0, local: 0 };
const sum = (a: IsdocAmount, b: IsdocAmount): IsdocAmount => ({ document: Dec(a.document).plus(b.document).toString(), local: Dec(a.local).plus(b.local).toString() });
const minus = (a: IsdocAmount, b: IsdocAmount): IsdocAmount => ({ document: Dec(a.document).minus(b.document).toString(), local: Dec(a.local).minus(b.local).toString() });

function party(x: Xml, role: string, p: IsdocParty): void {
  x.open(role).open('Party');
  x.open('PartyIdentification').required('ID', p.registrationId).close('PartyIdentification');
  x.open('PartyName').leaf('Name', p.name).close('PartyName');
  x.open('PostalAddress')
    .required('StreetName', p.address.street)
    .required('BuildingNumber', p.address.buildingNumber)
    .required('CityName', p.address.city)
    .required('PostalZone', p.address.postalZone)
    .open('Country')
    .leaf('IdentificationCode', p.address.country.toUpperCase())
    .required('Name', p.address.countryName)
    .close('Country')
    .close('PostalAddress');
  if (p.vatId) x.open('PartyTaxScheme').leaf('CompanyID', p.vatId).leaf('TaxScheme', 'VAT').close('PartyTaxScheme');
  if (p.email) x.open('Contact').leaf('ElectronicMail', p.email).close('Contact');
  x.close('Party').close(role);
}

/** The ISDOC 6.0.2 XML of an invoice (DocumentType 1) or credit note (DocumentType 2). */
export function isdocXml(doc: IsdocDocument): string {
  const x = new Xml();
  const unitPrice = (value: string | number, qty: Dec) => (qty.isZero() ? Dec(0) : Dec(value).div(qty)).toDecimalPlaces(6).toString();
  x.open('Invoice', { xmlns: ISDOC_NAMESPACE, version: ISDOC_VERSION });
  x.leaf('DocumentType', doc.kind === 'invoice' ? '1' : '2')
    .leaf('ID', doc.number)
    .leaf('UUID', doc.uuid.toUpperCase())
    .leaf('IssueDate', doc.issueDate)
    .leaf('TaxPointDate', doc.taxPointDate)
    .leaf('VATApplicable', String(doc.vatApplicable))
    // no prior agreement on electronic invoicing is referenced; the element is required and may be empty
    .required('ElectronicPossibilityAgreementReference', null)
    .leaf('Note', doc.note)
    .leaf('LocalCurrencyCode', doc.localCurrency)
    .leaf('ForeignCurrencyCode', doc.foreign?.code)
    .leaf('CurrRate', doc.foreign ? Dec(doc.foreign.rate).toString() : '1')
    .leaf('RefCurrRate', doc.foreign ? Dec(doc.foreign.coefficient).toString() : '1');
  party(x, 'AccountingSupplierParty', doc.seller);
  party(x, 'AccountingCustomerParty', doc.buyer);
  if (doc.orderReference) {
    x.open('OrderReferences').open('OrderReference', { id: 'order' }).leaf('SalesOrderID', doc.orderReference).close('OrderReference').close('OrderReferences');
  }
  if (doc.original) {
    x.open('OriginalDocumentReferences')
      .open('OriginalDocumentReference', { id: 'original' })
      .leaf('ID', doc.original.number)
      .leaf('IssueDate', doc.original.issueDate)
      .leaf('UUID', doc.original.uuid?.toUpperCase())
      .close('OriginalDocumentReference')
      .close('OriginalDocumentReferences');
  }

  x.open('InvoiceLines');
  doc.lines.forEach((l, i) => {
    const qty = Dec(l.quantity);
    const gross = sum(l.net, l.tax);
    x.open('InvoiceLine').leaf('ID', String(i + 1));
    x.leaf('InvoicedQuantity', qty.toString(), l.unitCode ? { unitCode: l.unitCode } : {});
    amount(x, 'LineExtensionAmount', l.net, doc);
    amount(x, 'LineExtensionAmountTaxInclusive', gross, doc);
    x.leaf('LineExtensionTaxAmount', fixed(l.tax.local, doc.precision))
      .leaf('UnitPrice', unitPrice(l.net.local, qty))
      .leaf('UnitPriceTaxInclusive', unitPrice(gross.local, qty))
      .open('ClassifiedTaxCategory')
      .leaf('Percent', percentText(l.rate))
      .leaf('VATCalculationMethod', doc.taxesIncluded ? '1' : '0')
      .close('ClassifiedTaxCategory')
      .open('Item')
      .leaf('Description', l.description);
    if (l.sellersItemId) x.open('SellersItemIdentification').leaf('ID', l.sellersItemId).close('SellersItemIdentification');
    x.close('Item').close('InvoiceLine');
  });
  x.close('InvoiceLines');

  // a final invoice's advances (zálohy): untaxed ones are paid deposits, taxed ones are claimed per rate
  if (doc.deposits?.nonTaxed.length) {
    x.open('NonTaxedDeposits');
    for (const d of doc.deposits.nonTaxed) {
      x.open('NonTaxedDeposit').leaf('ID', d.id).leaf('VariableSymbol', d.variableSymbol);
      amount(x, 'DepositAmount', d.amount, doc);
      x.close('NonTaxedDeposit');
    }
    x.close('NonTaxedDeposits');
  }
  if (doc.deposits?.taxed.length) {
    x.open('TaxedDeposits');
    for (const d of doc.deposits.taxed) {
      x.open('TaxedDeposit').leaf('ID', d.id).leaf('VariableSymbol', d.variableSymbol);
      amount(x, 'TaxableDepositAmount', d.taxable, doc);
      amount(x, 'TaxInclusiveDepositAmount', d.inclusive, doc);
      x.open('ClassifiedTaxCategory').leaf('Percent', percentText(d.rate)).leaf('VATCalculationMethod', doc.taxesIncluded ? '1' : '0').close('ClassifiedTaxCategory');
      x.close('TaxedDeposit');
    }
    x.close('TaxedDeposits');
  }

  x.open('TaxTotal');
  for (const t of doc.taxSubtotals) {
    x.open('TaxSubTotal');
    amount(x, 'TaxableAmount', t.taxable, doc);
    amount(x, 'TaxAmount', t.tax, doc);
    amount(x, 'TaxInclusiveAmount', sum(t.taxable, t.tax), doc);
    // what advance tax documents already declared at this rate, and the difference this document declares
    const claimed = t.claimed ?? { taxable: ZERO, tax: ZERO };
    amount(x, 'AlreadyClaimedTaxableAmount', claimed.taxable, doc);
    amount(x, 'AlreadyClaimedTaxAmount', claimed.tax, doc);
    amount(x, 'AlreadyClaimedTaxInclusiveAmount', sum(claimed.taxable, claimed.tax), doc);
    amount(x, 'DifferenceTaxableAmount', minus(t.taxable, claimed.taxable), doc);
    amount(x, 'DifferenceTaxAmount', minus(t.tax, claimed.tax), doc);
    amount(x, 'DifferenceTaxInclusiveAmount', minus(sum(t.taxable, t.tax), sum(claimed.taxable, claimed.tax)), doc);
    x.open('TaxCategory').leaf('Percent', percentText(t.rate));
    if (t.vatApplicable !== undefined) x.leaf('VATApplicable', String(t.vatApplicable));
    if (t.localReverseCharge) x.leaf('LocalReverseChargeFlag', 'true');
    x.close('TaxCategory').close('TaxSubTotal');
  }
  amount(x, 'TaxAmount', doc.totals.taxAmount, doc);
  x.close('TaxTotal');

  const t = doc.totals;
  x.open('LegalMonetaryTotal');
  amount(x, 'TaxExclusiveAmount', t.taxExclusive, doc, false);
  amount(x, 'TaxInclusiveAmount', t.taxInclusive, doc, false);
  const claimedNet = doc.taxSubtotals.reduce((a, s) => sum(a, s.claimed?.taxable ?? ZERO), ZERO);
  const claimedGross = doc.taxSubtotals.reduce((a, s) => sum(a, s.claimed ? sum(s.claimed.taxable, s.claimed.tax) : ZERO), ZERO);
  amount(x, 'AlreadyClaimedTaxExclusiveAmount', claimedNet, doc, false);
  amount(x, 'AlreadyClaimedTaxInclusiveAmount', claimedGross, doc, false);
  amount(x, 'DifferenceTaxExclusiveAmount', minus(t.taxExclusive, claimedNet), doc, false);
  amount(x, 'DifferenceTaxInclusiveAmount', minus(t.taxInclusive, claimedGross), doc, false);
  if (t.rounding && !(Dec(t.rounding.document).isZero() && Dec(t.rounding.local).isZero())) amount(x, 'PayableRoundingAmount', t.rounding, doc, false);
  amount(x, 'PaidDepositsAmount', t.paid, doc, false);
  amount(x, 'PayableAmount', t.payable, doc, false);
  x.close('LegalMonetaryTotal');

  if (doc.payment) {
    const pay = doc.payment;
    x.open('PaymentMeans').open('Payment').leaf('PaidAmount', fixed(pay.amount, doc.precision)).leaf('PaymentMeansCode', '42');
    x.open('Details')
      .required('PaymentDueDate', pay.dueDate ?? doc.issueDate)
      .required('ID', pay.accountNumber ?? pay.iban)
      .required('BankCode', pay.bankCode)
      .required('Name', pay.bankName)
      .leaf('IBAN', pay.iban)
      .required('BIC', pay.bic)
      .leaf('VariableSymbol', pay.variableSymbol)
      .close('Details');
    x.close('Payment').close('PaymentMeans');
  }
  x.close('Invoice');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${x.toString()}\n`;
}

/** A street line as ISDOC splits it: the trailing house number (`Dlouhá 12/3a`) apart from the street. */
export function splitStreet(line: string | null): { street: string | null; buildingNumber: string | null } {
  if (!line) return { street: null, buildingNumber: null };
  const m = /^(.*\S)\s+(\d+[\p{L}\d/-]*)$/u.exec(line);
  return m ? { street: m[1], buildingNumber: m[2] } : { street: line, buildingNumber: null };
}
