import { BusinessRuleError, readXmlDocument } from '@ledgerline/service-kit';
import { Dec } from '@ledgerline/core/money';
import { bad, type ImportedTotals, type Node, type ReadEInvoice } from './einvoice-reading.js';
import { readUbl } from './einvoice-ubl-read.js';
import { readIsdoc } from './einvoice-isdoc-read.js';

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

/** Elements that may repeat, read as arrays even when one is present (UBL, then ISDOC names). */
const ARRAYS = ['AdditionalDocumentReference', 'InvoiceLine', 'CreditNoteLine', 'AllowanceCharge', 'TaxSubtotal', 'TaxTotal', 'PaymentMeans', 'Note', 'BillingReference', 'TaxSubTotal', 'Payment', 'OriginalDocumentReference', 'PartyTaxScheme'];


type Parsed = { format: 'ubl'; root: Node; kind: 'bill' | 'vendor_credit' } | { format: 'isdoc'; root: Node };

/** Parses and checks the XML; answers its root element and which format it is in. */
export function parseEInvoice(xml: string): Parsed {
  const { name, namespace: ns, root } = readXmlDocument(xml, ARRAYS, 'e-invoice');
  if (name === 'Invoice' && ns === UBL_INVOICE_NS) return { format: 'ubl', root, kind: 'bill' };
  if (name === 'CreditNote' && ns === UBL_CREDIT_NOTE_NS) return { format: 'ubl', root, kind: 'vendor_credit' };
  if (name === 'Invoice' && ns === ISDOC_NS) return { format: 'isdoc', root };
  throw bad(`The root element is ${name ?? 'missing'}${ns ? ` in ${ns}` : ''}; expected a UBL 2.1 Invoice or CreditNote, or an ISDOC Invoice`, 'body', 'unsupported_einvoice');
}

/** The request our posting takes and the totals the document states, from UBL or ISDOC; a UBL document's embedded files. */
export function readEInvoice(xml: string): ReadEInvoice & { embedded: EmbeddedFile[] } {
  const parsed = parseEInvoice(xml);
  return parsed.format === 'ubl' ? { ...readUbl(parsed.root, parsed.kind), embedded: embeddedFiles(parsed.root) } : { ...readIsdoc(parsed.root), embedded: [] };
}

/** A file a UBL document carries in `AdditionalDocumentReference/Attachment/EmbeddedDocumentBinaryObject` (BT-125). */
export interface EmbeddedFile {
  fileName: string;
  bytes: Buffer;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The files a UBL document embeds (a PDF image of the invoice, a timesheet), decoded. What is
 * not base64 is left out; the XML keeps it anyway, and it is kept whole beside them. External
 * references (a URI) are not fetched.
 */
export function embeddedFiles(root: Node): EmbeddedFile[] {
  const out: EmbeddedFile[] = [];
  for (const [i, ref] of ((root.AdditionalDocumentReference ?? []) as Node[]).entries()) {
    const object = ref?.Attachment?.EmbeddedDocumentBinaryObject;
    const data = typeof object === 'object' ? object?.['#text'] : object;
    if (typeof data !== 'string') continue;
    const compact = data.replace(/\s+/g, '');
    if (!compact || !BASE64.test(compact)) continue;
    const name = (typeof object === 'object' && typeof object['@filename'] === 'string' && object['@filename'].trim()) || (typeof ref.ID === 'string' && ref.ID.trim()) || `attachment-${i + 1}`;
    out.push({ fileName: String(name).split(/[\\/]/).pop()!.slice(0, 255), bytes: Buffer.from(compact, 'base64') });
  }
  return out;
}

/**
 * The document's totals against ours: each may differ by at most a cent per VAT rate (rounding
 * per line against rounding per rate, which EN 16931 leaves to the seller); more is 422 naming
 * each total.
 */
export function compareTotals(
  stated: ImportedTotals,
  ours: { subtotal_amount: string | number; tax_amount: string | number; rounding_amount: string | number; total_amount: string | number },
  rates: number,
): void {
  const tolerance = Dec('0.01').times(Math.max(1, rates));
  const checks: Array<[string, string, string | number]> = [
    ['TaxExclusiveAmount', stated.taxExclusive, ours.subtotal_amount],
    ['TaxAmount', stated.taxAmount, ours.tax_amount],
    // our total is what is asked for, the rounding included; the document's total with VAT is before it
    ['TaxInclusiveAmount', stated.taxInclusive, Dec(ours.total_amount).minus(ours.rounding_amount).toString()],
    // BT-115 payable = total with VAT − prepaid (BT-113) + rounding (BT-114)
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
