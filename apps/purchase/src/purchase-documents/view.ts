import type { VendorBill, VendorCredit } from '@ledgerline/contracts';
import type { BillKind } from '@ledgerline/contracts/purchase';
import { daysPast, dec, isoDay, toWire } from '@ledgerline/service-kit';
import type { PurchaseDocument, PurchaseKind, StoredTaxLine } from '../db/entities.js';

/** The view of a bill of any kind is a VendorBill, of a vendor credit a VendorCredit. */
export type PurchaseView<K extends PurchaseKind> = K extends 'vendor_credit' ? VendorCredit : VendorBill;

/** `documentView` of a document whose kind the caller knows (it adds the credit fields exactly for vendor credits). */
export function purchaseView<K extends PurchaseKind>(d: PurchaseDocument, kind: K): PurchaseView<K> {
  if (d.kind !== kind) throw new Error(`purchase document ${d.id} is a ${d.kind}, not a ${kind}`);
  return documentView(d) as PurchaseView<K>;
}

/** A bill's `kind` as the interface names it (stored `bill` is a standard bill). */
export const BILL_KIND_OF: Record<Exclude<PurchaseKind, 'vendor_credit'>, BillKind> = { bill: 'standard', advance: 'advance', advance_tax_document: 'advance_tax_document' };

/** The fields a bill adds to the shared view, per its kind (decision 237). */
function billFields(d: PurchaseDocument, kind: Exclude<PurchaseKind, 'vendor_credit'>) {
  const advances = (d.advances ?? null) as VendorBill['advances'];
  return {
    vendor_check: d.vendorCheck ?? null,
    kind: BILL_KIND_OF[kind],
    payment_order_id: d.paymentOrderId ?? null,
    ...(kind === 'advance_tax_document' ? { advance_bill_id: d.advanceBillId ?? null, advance_bill_no: d.advanceBillNo ?? null } : {}),
    ...(kind === 'advance'
      ? { tax_documents: (d.taxDocuments ?? []) as VendorBill['tax_documents'], settled_by: d.settledById != null ? { id: d.settledById, no: d.settledByNo ?? '' } : null }
      : {}),
    ...(advances?.length ? { advances, advance_amount: toWire(advances.reduce((s, a) => s.plus(a.amount), dec(0)).toString()) } : {}),
  };
}

const wireTax = (t: StoredTaxLine) => ({
  id: null,
  tax_index: t.tax_index,
  tax_rate: toWire(t.tax_rate),
  tax_amount: toWire(t.tax_amount),
  tax_amount_leg: toWire(t.tax_amount_leg),
  tax_base: toWire(t.tax_base),
  tax_base_leg: toWire(t.tax_base_leg),
  tax_code: t.tax_code,
  tax_name: t.tax_name,
  rate_type: t.rate_type,
  tax_category: (t.tax_category ?? null) as VendorBill['taxes'][number]['tax_category'],
});

/** The stored document as the interface answers it (bills without credited_doc_*). */
export function documentView(d: PurchaseDocument): VendorBill | VendorCredit {
  const dateDue = isoDay(d.dateDue);
  const view: Omit<VendorBill, 'kind'> = {
    id: d.id,
    uid: d.uid,
    created_at: d.createdAt.toISOString(),
    edited_at: d.editedAt.toISOString(),
    is_locked: d.isLocked,
    total_amount: toWire(d.totalAmount),
    subtotal_amount: toWire(d.subtotalAmount),
    rounding_amount: toWire(d.roundingAmount),
    prepaid_amount: toWire(d.prepaidAmount),
    amount_paid: toWire(d.amountPaid),
    amount_due: toWire(d.amountDue),
    currency: d.currency.trim(),
    vendor: d.vendor,
    date_issued: isoDay(d.dateIssued),
    date_taxable: isoDay(d.dateTaxable),
    date_due: dateDue,
    no: d.no,
    description: d.description ?? null,
    precision: d.precision,
    rate_format: d.rateFormat ?? null,
    taxes_included: d.taxesIncluded,
    tax_fx_rate: toWire(d.taxFxRate),
    fx_rate_date: isoDay(d.fxRateDate ?? null),
    fx_rate_source: (d.fxRateSource as VendorBill['fx_rate_source']) ?? null,
    type: d.type,
    payment_status: d.paymentStatus,
    overdue_days: dec(d.amountDue).gt(0) ? daysPast(dateDue) : 0,
    tax_nexus: d.taxNexus ?? null,
    vendor_doc_no: d.vendorDocNo ?? null,
    payment_reference: d.paymentReference ?? null,
    bank_account_number: d.bankAccountNumber ?? null,
    contact_id: d.contactId ?? null,
    copy_from_id: d.copyFromId ?? null,
    items: d.items.map((it) => ({
      id: it.id,
      description: it.description,
      qty: toWire(it.qty),
      rate: toWire(it.rate),
      amount: toWire(it.amount),
      tax_deduction_ratio: toWire(it.tax_deduction_ratio),
      net_deduction_ratio: toWire(it.net_deduction_ratio),
      item: it.item,
      unit: it.unit,
      gl_account: it.gl_account ?? null,
      supply: (it.supply ?? null) as VendorBill['items'][number]['supply'],
      taxes: it.taxes.map(wireTax),
    })),
    taxes: d.taxes.map(wireTax),
    rsn: d.rsn ?? null,
  };
  if (d.kind === 'vendor_credit') return { ...view, credited_doc_id: d.creditedDocId ?? null, credited_doc_no: d.creditedDocNo ?? null } satisfies VendorCredit;
  return { ...view, ...billFields(d, d.kind) };
}
