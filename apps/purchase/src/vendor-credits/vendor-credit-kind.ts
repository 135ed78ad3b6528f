import { SUBJECTS, type VendorCreditAllocation } from '@ledgerline/contracts';
import { vendorCreditRequestSchema, vendorCreditSchema } from '@ledgerline/contracts/purchase';
import { BusinessRuleError } from '@ledgerline/service-kit';
import { type AllocationRule, type CreditRule } from '@ledgerline/posted-documents';
import type { PurchaseDocumentKind } from '../purchase-documents/kind.js';

/** Whether two vendor contacts are the same party: by id, else VAT number, else registration number, else name. */
export function sameVendor(a: Record<string, unknown> | null | undefined, b: Record<string, unknown> | null | undefined): boolean {
  if (!a || !b) return false;
  const norm = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v ?? null);
  for (const key of ['id', 'vat_no', 'reg_no', 'business_name']) {
    const x = norm(a[key]);
    const y = norm(b[key]);
    if (x !== null && y !== null && x !== '' && y !== '') return x === y;
  }
  return false;
}

const invalidCredited = (message: string) =>
  new BusinessRuleError(message, 'invalid_credited_document', [{ path: 'credited_doc_id', message, code: 'invalid_credited_document' }]);

/** A vendor credit credits a bill of the same organisation, vendor and currency, up to its total. */
export const CREDITED_BILL: CreditRule = {
  table: 'purchase_documents',
  kindColumn: 'kind',
  credited: 'bill',
  credit: 'vendor_credit',
  party: 'd.vendor',
  sameParty: sameVendor,
  words: { credit: 'vendor credit', credited: 'bill', creditsPlural: 'Vendor credits' },
  notFound: (id) => invalidCredited(`Vendor bill ${id} does not exist`),
  otherParty: () => invalidCredited('The credited bill belongs to another vendor'),
  exceedsCode: 'credit_exceeds_document',
  // a vendor's credit note names the vendor's own invoice number, which the bill recorded (decision 254)
  numberedBy: { column: 'vendor_doc_no', perParty: true },
};

export const VENDOR_CREDITS: PurchaseDocumentKind<'vendor_credit', typeof vendorCreditRequestSchema> = {
  kind: 'vendor_credit',
  documentType: 'purchase_vendor_credit',
  subject: SUBJECTS.purchaseVendorCreditPosted,
  label: 'vendor credit',
  requestSchema: vendorCreditRequestSchema,
  responseSchema: vendorCreditSchema,
  mask: 'VC{YYYY}{#####}',
  credits: { rule: CREDITED_BILL, creditedId: (req) => req.credited_doc_id, creditedNo: (req) => req.credited_doc_no },
};

/** A vendor credit is applied to an open bill of its vendor, in its currency (decision 148; at other rates, decision 207). */
export const VENDOR_CREDIT_ALLOCATIONS: AllocationRule<VendorCreditAllocation> = {
  table: 'purchase_documents',
  kindColumn: 'kind',
  credit: 'vendor_credit',
  target: 'bill',
  party: 'd.vendor',
  sameParty: sameVendor,
  rates: 'd.tax_fx_rate::text',
  // the legal total as the ledger posts it (purchaseTotalLeg): the recap's legal figures and any untaxed rest at the rate
  totalLeg: `(select coalesce(sum((t->>'tax_base_leg')::numeric + (t->>'tax_amount_leg')::numeric), 0) from json_array_elements(d.taxes) t)
    + round((d.subtotal_amount - (select coalesce(sum((t->>'tax_base')::numeric), 0) from json_array_elements(d.taxes) t)) * d.tax_fx_rate, 2)`,
  side: 'payable',
  allocations: 'purchase_credit_allocations',
  touchColumn: 'updated_at',
  words: { credit: 'vendor_credit', target: 'bill', creditLabel: 'vendor credit', targetLabel: 'bill', party: 'vendor' },
  creditNotFound: 'vendor_credit_not_found',
  targetNotFound: 'bill_not_found',
  subject: SUBJECTS.purchaseCreditAllocationRecorded,
};
