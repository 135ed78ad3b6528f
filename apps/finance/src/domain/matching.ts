import type { PaidRecord, PaidRecordType } from '@ledgerline/contracts/common';
import { RPC_SUBJECTS, SUBJECTS, documentLookupAnswerSchema, type DocumentLookupAnswer } from '@ledgerline/contracts';
import { UpstreamError, ValidationError, dec, toDb, toWire, type TenantContext } from '@ledgerline/service-kit';
import type { MatchStatus, PaymentMatch } from '../db/entities.js';
import type { FinancePaymentMatchedEvent } from '@ledgerline/contracts';

import { PAID_BY_MONEY_IN } from './legal-currency.js';
import { settleOrderedBill } from './payment-orders/order-changes.js';

const LOOKUP_SUBJECTS: Record<PaidRecordType, string> = {
  sales_invoice: RPC_SUBJECTS.salesDocumentLookup,
  sales_credit_note: RPC_SUBJECTS.salesDocumentLookup,
  sales_proforma: RPC_SUBJECTS.salesDocumentLookup,
  purchase_bill: RPC_SUBJECTS.purchaseDocumentLookup,
  purchase_vendor_credit: RPC_SUBJECTS.purchaseDocumentLookup,
  purchase_advance: RPC_SUBJECTS.purchaseDocumentLookup,
};

/**
 * The amount a cash movement applies to a document: positive pays it, negative takes a payment back.
 * Money in pays a sales invoice and a vendor credit (the vendor refunds us); money out pays a vendor
 * bill and a sales credit note (we refund the customer).
 */
export function appliedAmount(type: PaidRecordType, cash: string): string {
  const d = dec(cash);
  return toDb(PAID_BY_MONEY_IN[type] ? d : d.negated());
}

export interface MatchResult {
  status: MatchStatus;
  match: PaymentMatch | null;
  /** The owner's answer about the matched document (its rate and legal total); null unless matched. */
  document?: DocumentLookupAnswer | null;
}

/**
 * The paid record's type as the owner answered it: a bill that is an advance bill is paid as one
 * (to 314, decision 237), an invoice found as a proforma likewise (decision 236); any other answer
 * leaves the type asked.
 */
export function refinedPaidType(asked: PaidRecordType, answered: string | null | undefined): PaidRecordType {
  if (asked === 'purchase_bill' && answered === 'purchase_advance') return 'purchase_advance';
  if (asked === 'sales_invoice' && answered === 'sales_proforma') return 'sales_proforma';
  return asked;
}

/**
 * Asks the owning service whether the paid record exists in the caller's organisation. Found: the
 * payment is matched to it. Not found (unknown, or another organisation's), or in another currency
 * than the document without a `payment_amount` in the document's currency: unmatched, recorded but
 * never applied. No answer: 503 to the client, nothing written (the caller's transaction rolls back).
 */
export async function resolvePaidRecord(
  ctx: TenantContext,
  paidRecord: PaidRecord | null | undefined,
  cash: { amount: number; payment_amount?: number | null; currency: string },
  path: string,
  /** The owner's answer about this document when the caller already has it (a statement's find). */
  known?: DocumentLookupAnswer,
): Promise<MatchResult> {
  if (!paidRecord) return { status: 'none', match: null };
  if (!paidRecord.type) {
    throw new ValidationError(`${path}.type is required to match a payment`, [
      { path: `${path}.type`, message: 'required: sales_invoice, sales_credit_note, sales_proforma, purchase_bill, purchase_advance or purchase_vendor_credit', code: 'required' },
    ]);
  }
  if (paidRecord.id == null && !paidRecord.no) {
    throw new ValidationError(`${path} needs an id or a no`, [{ path: `${path}.id`, message: 'give id or no of the paid document', code: 'required' }]);
  }
  const raw = known ?? (await ctx.ask<unknown>(LOOKUP_SUBJECTS[paidRecord.type], { type: paidRecord.type, id: paidRecord.id ?? undefined, no: paidRecord.no ?? undefined }));
  const parsed = documentLookupAnswerSchema.safeParse(raw);
  if (!parsed.success) throw new UpstreamError(502, paidRecord.type.split('_')[0], 'unreadable document lookup answer');
  const doc = parsed.data;
  if (!doc.found || doc.id == null) return { status: 'unmatched', match: null };
  // Without payment_amount the cash amount is applied as it is, which only works in the document's currency.
  if (cash.payment_amount == null && doc.currency && doc.currency !== cash.currency) return { status: 'unmatched', match: null };
  const cashAmount = cash.payment_amount ?? cash.amount;
  const type = refinedPaidType(paidRecord.type, doc.type);
  return {
    status: 'matched',
    document: doc,
    match: {
      type,
      id: doc.id,
      no: doc.no ?? paidRecord.no ?? null,
      amount: appliedAmount(type, String(cashAmount)),
      currency: (cash.payment_amount != null ? doc.currency : null) ?? cash.currency,
      contact: doc.contact ? { id: doc.contact.id ?? null, business_name: doc.contact.business_name ?? null } : null,
    },
  };
}

/** The paid record as stored and answered: the client's reference, completed from the confirmed document. */
export function completedPaidRecord(given: PaidRecord | null | undefined, match: PaymentMatch | null): Record<string, unknown> | null {
  if (!given) return null;
  if (!match) return { ...given };
  return { ...given, id: match.id, no: match.no, type: match.type, contact: match.contact ?? given.contact ?? null };
}

/** Records `finance.payment.matched` in the outbox; `sign` −1 emits the compensation of an earlier match. */
export async function emitPaymentMatched(
  ctx: TenantContext,
  p: { paymentId: number; source: 'bank_transaction' | 'payout_line'; match: PaymentMatch; date: string | null; payoutId?: number; payoutVersion?: number },
  sign: 1 | -1 = 1,
) {
  const amount = sign === 1 ? dec(p.match.amount) : dec(p.match.amount).negated();
  const data: FinancePaymentMatchedEvent = {
    payment_id: p.paymentId,
    source: p.source,
    payout_id: p.payoutId ?? null,
    payout_version: p.payoutVersion ?? null,
    document: { type: p.match.type, id: p.match.id, no: p.match.no },
    amount: toWire(amount)!,
    currency: p.match.currency,
    date: p.date ?? new Date().toISOString().slice(0, 10),
  };
  await ctx.emit({ subject: SUBJECTS.financePaymentMatched, orgId: ctx.orgId, resource: `${p.match.type}:${p.match.id}`, data });
  // a bill paid (or a payment taken back) moves its payment order's item (issue 76)
  if ((p.match.type === 'purchase_bill' || p.match.type === 'purchase_advance') && dec(p.match.amount).gt(0)) {
    await settleOrderedBill(ctx, { billId: p.match.id, paymentId: p.paymentId, amount: p.match.amount, sign });
  }
}
