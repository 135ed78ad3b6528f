import { Dec } from '@ledgerline/core/money';
import { amount, bad, date, required, text, vendorKey, type Node, type ReadEInvoice } from './einvoice-reading.js';

/** ISDOC document types read as a bill (invoice, debit note, simplified tax document) or a vendor credit (credit note). */
const ISDOC_KINDS: Record<string, 'bill' | 'vendor_credit'> = { '1': 'bill', '2': 'vendor_credit', '3': 'bill', '7': 'bill' };

/**
 * An ISDOC 6.0.2 document as the request our posting takes. A document in a foreign currency is
 * read in that currency (the `…Curr` amounts) and states its rate to the local one. A credit note
 * written with negative amounts (some producers do) is read the same as one written positive:
 * the document type says which way it goes.
 */
export function readIsdoc(root: Node): ReadEInvoice {
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
  // a subtotal flagged as the local reverse charge (§ 92a) makes every line of its rate reverse charge
  const localReverseCharge = new Set(
    ([] as Node[])
      .concat(((root.TaxTotal ?? [])[0] as Node | undefined)?.TaxSubTotal ?? [])
      .filter((t: Node) => text(t.TaxCategory?.LocalReverseChargeFlag) === 'true' && text(t.TaxCategory?.Percent) !== null)
      .map((t: Node) => Dec(text(t.TaxCategory.Percent)!).toString()),
  );
  const items = lines.map((l, i) => {
    const path = `InvoiceLines/InvoiceLine[${i + 1}]`;
    const qty = signed(amount(l.InvoicedQuantity, `${path}/InvoicedQuantity`, false) ?? String(sign))!;
    const net = signed(money(l, 'LineExtensionAmount', path))!;
    if (Dec(qty).isZero()) throw bad(`${path}/InvoicedQuantity is zero`, `${path}/InvoicedQuantity`);
    const category = (l.ClassifiedTaxCategory ?? {}) as Node;
    const percent = amount(category.Percent, `${path}/ClassifiedTaxCategory/Percent`)!;
    const reverseCharge = category.LocalReverseCharge !== undefined || localReverseCharge.has(Dec(percent).toString());
    const code = reverseCharge ? ('AE' as const) : text(category.VATApplicable) === 'false' ? ('E' as const) : Dec(percent).gt(0) ? ('S' as const) : ('Z' as const);
    return {
      description: (text(l.Item?.Description) ?? text(l.Note) ?? `Line ${i + 1}`).slice(0, 10_000),
      qty: Number(qty),
      // the stated line amount is what the vendor charges: its unit rate is the line amount over the quantity
      rate: Number(Dec(net).div(qty).toDecimalPlaces(6).toString()),
      taxes: [{ tax_code: code, tax_rate: Number(percent), tax_category: code }],
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
  if (!deposits.isZero()) request.prepaid_amount = deposits.toNumber();
  if (!rounding.isZero()) request.rounding_amount = rounding.toNumber();
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
      prepaid: deposits.toString(),
      rounding: rounding.toString(),
    },
    vendorKey: vendorKey(vendor),
    buyer: {
      vat_no: ((root.AccountingCustomerParty?.Party?.PartyTaxScheme ?? []) as Node[]).filter((t) => (text(t.TaxScheme) ?? 'VAT') === 'VAT').map((t) => text(t.CompanyID)).find(Boolean) ?? null,
      peppol_id: null,
    },
    statedRate: foreign && rate && rate.gt(0) && foreign !== local ? { from: foreign, to: local, rate: rate.toDecimalPlaces(10).toString() } : null,
  };
}
