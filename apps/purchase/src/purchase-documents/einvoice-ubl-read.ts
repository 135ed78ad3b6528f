import { Dec } from '@ledgerline/core/money';
import { amount, bad, date, required, statedBeyondLines, text, vendorKey, type Node, type ReadEInvoice } from './einvoice-reading.js';

/* A received UBL 2.1 Invoice or CreditNote (Peppol BIS Billing 3.0) as a vendor bill or vendor credit request. */

/** The buyer's VAT id and Peppol address (BT-48, BT-49), without requiring anything of the party. */
function buyerOf(p: Node | undefined): ReadEInvoice['buyer'] {
  const party = (p?.Party ?? {}) as Node;
  const endpoint = party.EndpointID;
  const scheme = typeof endpoint === 'object' ? text(endpoint['@schemeID']) : null;
  const vat = ([] as Node[]).concat(party.PartyTaxScheme ?? []).map((t) => text(t.CompanyID)).find(Boolean) ?? null;
  return { vat_no: vat, peppol_id: scheme && text(endpoint) ? `${scheme}:${text(endpoint)}` : null };
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
export function readUbl(root: Node, kind: 'bill' | 'vendor_credit'): ReadEInvoice {
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
  statedBeyondLines(request, totals.PrepaidAmount, totals.PayableRoundingAmount);
  return {
    kind,
    request,
    totals: {
      taxExclusive: amount(totals.TaxExclusiveAmount, 'LegalMonetaryTotal/TaxExclusiveAmount')!,
      taxAmount: amount(taxTotal?.TaxAmount, 'TaxTotal/TaxAmount') ?? '0',
      taxInclusive: amount(totals.TaxInclusiveAmount, 'LegalMonetaryTotal/TaxInclusiveAmount')!,
      payable: amount(totals.PayableAmount, 'LegalMonetaryTotal/PayableAmount')!,
      prepaid: amount(totals.PrepaidAmount, 'LegalMonetaryTotal/PrepaidAmount', false) ?? '0',
      rounding: amount(totals.PayableRoundingAmount, 'LegalMonetaryTotal/PayableRoundingAmount', false) ?? '0',
    },
    vendorKey: vendorKey(vendor),
    buyer: buyerOf(root.AccountingCustomerParty),
  };
}
