import type { VendorBill, VendorCredit } from '@ledgerline/contracts';
import { daysPast, dec, isoDay, toWire } from '@ledgerline/service-kit';
import type { PurchaseDocument, PurchaseKind, StoredTaxLine } from '../db/entities.js';

/** The view of a bill is a VendorBill, of a vendor credit a VendorCredit. */
export type PurchaseView<K extends PurchaseKind> = K extends 'bill' ? VendorBill : VendorCredit;

/** `documentView` of a document whose kind the caller knows (it adds the credit fields exactly for vendor credits). */
export function purchaseView<K extends PurchaseKind>(d: PurchaseDocument, kind: K): PurchaseView<K> {
  if (d.kind !== kind) throw new Error(`purchase document ${d.id} is a ${d.kind}, not a ${kind}`);
  return documentView(d) as PurchaseView<K>;
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
  const view: VendorBill = {
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
  return { ...view, vendor_check: d.vendorCheck ?? null };
}
