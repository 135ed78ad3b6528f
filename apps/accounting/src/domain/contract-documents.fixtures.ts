import {
  financeBankTransactionRecordedEventSchema,
  financePayoutPostedEventSchema,
  purchaseBillPostedEventSchema,
  purchaseVendorCreditPostedEventSchema,
  salesCreditNotePostedEventSchema,
  salesInvoicePostedEventSchema,
} from '@ledgerline/contracts';
import type { BankTransactionDocument, PayoutDocument, PurchaseDocument, SalesDocument } from './source-documents.js';

/*
 * Documents for the posting rules' unit tests, parsed with the producers' contract schemas exactly
 * as a live event is: a test can only give the rules what a producer can send. The fields every
 * stored document has but posting does not read are filled in here.
 */

type Fields = Record<string, unknown>;

const stored = { uid: '00000000-0000-4000-8000-000000000001', created_at: '2025-03-01T00:00:00.000Z', is_locked: false, precision: 2, taxes_included: false, payment_status: 'unpaid' };

/** Items as posting reads them (amount, taxes, gl_account): quantity 1 at that amount unless given. */
function items(given: unknown): Fields[] {
  return ((given as Fields[] | undefined) ?? []).map((i) => ({ qty: 1, rate: i.amount, taxes: [], ...i }));
}

function documentFields(f: Fields): Fields {
  return { ...stored, amount_paid: 0, amount_due: f.total_amount, ...f, items: items(f.items), taxes: f.taxes ?? [] };
}

/** A sales invoice, or a credit note when it names a credited document. */
export function salesDocument(f: Fields): SalesDocument {
  const doc = { shipping_charges: [], discounts: [], ...documentFields(f) };
  return 'credited_doc_id' in f || 'credited_doc_no' in f ? salesCreditNotePostedEventSchema.parse(doc) : salesInvoicePostedEventSchema.parse(doc);
}

/** A vendor bill, or a vendor credit when it names a credited document. */
export function purchaseDocument(f: Fields): PurchaseDocument {
  const doc = { type: {}, ...documentFields(f) };
  return 'credited_doc_id' in f || 'credited_doc_no' in f ? purchaseVendorCreditPostedEventSchema.parse(doc) : purchaseBillPostedEventSchema.parse(doc);
}

export function bankTransactionDocument(f: Fields): BankTransactionDocument {
  return financeBankTransactionRecordedEventSchema.parse(f);
}

/** A payout; total_amount defaults to Σ lines (the producer checks it) and version to 1. */
export function payoutDocument(f: Fields): PayoutDocument {
  const lines = (f.lines as Fields[] | undefined) ?? [];
  const total = lines.reduce((s, l) => s + Number(l.amount), 0);
  return financePayoutPostedEventSchema.parse({ ...stored, version: 1, replaces_version: null, total_amount: total, ...f });
}
