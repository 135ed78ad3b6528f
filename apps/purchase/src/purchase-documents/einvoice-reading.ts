import { ValidationError, xmlLeaf, type XmlNode } from '@ledgerline/service-kit';
import type { VendorBillRequest, VendorCreditRequest } from '@ledgerline/contracts';

/*
 * What reading a received e-invoice (UBL or ISDOC, issue 16) shares: the request and totals it
 * becomes, and strict readers of its leaves — amounts as text into decimals, days the calendar has,
 * required elements named by their path when missing.
 */

export type Node = XmlNode;

export interface ImportedTotals {
  taxExclusive: string;
  taxAmount: string;
  taxInclusive: string;
  payable: string;
  /** BT-113: what the document says was paid before it. */
  prepaid: string;
  /** BT-114: what it adds to its total with VAT to make the amount asked for. */
  rounding: string;
}

export interface ReadEInvoice {
  kind: 'bill' | 'vendor_credit';
  request: VendorBillRequest & Partial<Pick<VendorCreditRequest, 'credited_doc_no'>>;
  totals: ImportedTotals;
  /** The vendor as the duplicate check knows it: its VAT id, else its Peppol address or registration, else its name. */
  vendorKey: string;
  /** Who the document is addressed to, as far as it says: the buyer's VAT id and Peppol address. */
  buyer: { vat_no: string | null; peppol_id: string | null };
  /** The rate the document itself states from its currency to another (ISDOC: CurrRate per RefCurrRate units of the foreign currency). */
  statedRate?: { from: string; to: string; rate: string } | null;
}

export const bad = (message: string, path: string, code = 'invalid_einvoice') => new ValidationError(message, [{ path, message, code }], code);

export const text = xmlLeaf;

export function amount(v: unknown, path: string, required = true): string | null {
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

export function required(v: unknown, path: string): string {
  const t = text(v);
  if (t === null) throw bad(`${path} is missing`, path);
  return t;
}

export function date(v: unknown, path: string, isRequired = true): string | null {
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


/** A VAT id or Peppol address in one spelling, for comparing. */
export const identifierSpelling = (v: string | null | undefined) => (v ? v.replace(/\s+/g, '').toUpperCase() : null);

/** The vendor as the duplicate check knows it. */
export function vendorKey(vendor: { vat_no: string | null; peppol_id?: string | null; reg_no?: string | null; business_name: string }): string {
  return (vendor.vat_no ?? vendor.peppol_id ?? vendor.reg_no ?? vendor.business_name).toUpperCase().replace(/\s+/g, '');
}

/**
 * What a UBL document states beyond its lines, onto the request: the amount prepaid (BT-113) and
 * the rounding (BT-114), each only when it is not zero.
 */
export function statedBeyondLines(request: ReadEInvoice['request'], prepaid: unknown, rounding: unknown): void {
  const p = amount(prepaid, 'LegalMonetaryTotal/PrepaidAmount', false);
  const r = amount(rounding, 'LegalMonetaryTotal/PayableRoundingAmount', false);
  // JSON numbers, as every amount of the request: `amount` allows at most 15 significant digits
  if (p !== null && Number(p) !== 0) request.prepaid_amount = Number(p);
  if (r !== null && Number(r) !== 0) request.rounding_amount = Number(r);
}
