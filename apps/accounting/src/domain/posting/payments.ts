import { dec, postingDate } from '@ledgerline/service-kit';
import type { BankTransactionDocument, PayoutDocument } from '../source-documents.js';
import { conversion, fxDifference, fxRates, legal, paymentFxRates } from './conversions.js';
import { optDec, paymentEntryHeader } from './document-figures.js';
import { type DraftTaxRow, type Json, type LedgerEntryDraft, MissingLegalFiguresError, type PostingOptions } from './entry.js';
import { assertBalanced, counterAccount, paidDocument, postingRows, sums } from './interpreter.js';

/* Bank transactions and payouts → ledger entries; reversals. */

// --- payments ----------------------------------------------------------------------------------

/** Bank transaction → Dr 221 / Cr counter for money in; Dr counter / Cr 221 for money out. */
export function ledgerEntryForBankTransaction(doc: BankTransactionDocument, opts: PostingOptions): LedgerEntryDraft {
  const legalCurrency = doc.legal_currency ?? opts.legalCurrency;
  const conv = conversion(doc.currency, legalCurrency, doc.fx_rate, doc.currency_coef, `bank_transaction ${doc.id}`);
  const amount = legal(doc.amount, doc.amount_leg, conv);
  // the paid document is cleared at its own legal value; events without it clear at the bank's
  const settlement = optDec(doc.settlement_amount_leg) ?? amount;
  const { gain, loss } = fxDifference(amount, settlement);
  const contact = (doc.contact as Json | null | undefined) ?? null;
  const paidRecord = (paidDocument(doc) as Json | null) ?? null;
  const fxRow = (description: string) => ({ description, contact, paid_record: paidRecord, payment_reference: doc.payment_reference ?? null });
  const rows = postingRows(
    'bank_transaction',
    {
      amount: [{ amount }],
      fx_gain: [{ amount: gain, row: fxRow('Realised FX gain') }],
      fx_loss: [{ amount: loss, row: fxRow('Realised FX loss') }],
      settlement: [
        {
          account: counterAccount(paidRecord, doc.gl_account),
          amount: settlement,
          row: {
            description: doc.description ?? null,
            currency: doc.currency,
            payment_amount: optDec(doc.payment_amount),
            payment_reference: doc.payment_reference ?? null,
            contact,
            paid_record: paidRecord,
          },
        },
      ],
    },
    { currency: doc.currency, contact, paid_record: null, payment_reference: doc.payment_reference ?? null, description: doc.description ?? null },
  );
  const entry: LedgerEntryDraft = {
    ...paymentEntryHeader({
      type: 'bank_transaction',
      // a transaction matched later is its version 2: the ledger reverses the suspense posting of version 1
      source: { type: 'bank_transaction', id: doc.id, version: doc.version ?? 1, no: null },
      date_posting: postingDate.bankTransaction(doc).date,
      no: null,
      payment_reference: doc.payment_reference ?? null,
      description: doc.description ?? null,
      date_issued: doc.date_transaction,
      currency: doc.currency,
      legal_currency: legalCurrency,
      transaction_type: null,
      contact,
      bank_account: doc.account_number ? { account_number: doc.account_number } : null,
      paid_record: paidRecord,
      fx_rates: paymentFxRates(doc.currency, legalCurrency, [doc]),
    }),
    total: sums(rows).debit,
    rows,
  };
  assertBalanced(entry);
  return entry;
}

/** Payout → Dr 221 total; each line Cr 311 (pays a sales document) or its gl_account (fees, refunds: negative → debit). */
export function ledgerEntryForPayout(doc: PayoutDocument, opts: PostingOptions): LedgerEntryDraft {
  const legalCurrency = doc.legal_currency ?? opts.legalCurrency;
  const conv = conversion(doc.currency, legalCurrency, doc.fx_rate, doc.currency_coef, `payout ${doc.id}`);
  const lines = (doc.lines ?? []).map((l) => {
    const leg = legal(l.amount, l.amount_leg, conv);
    const settle = optDec(l.settlement_amount_leg) ?? leg;
    return { l, leg, settle, ...fxDifference(leg, settle) };
  });
  const totalLeg =
    optDec(doc.total_amount_leg) ?? lines.reduce((s, x) => s.plus(x.leg), dec(0));
  const fxRow = (l: (typeof lines)[number]['l'], description: string) => ({ description, paid_record: (paidDocument(l) as Json | null) ?? null });
  const rows = postingRows(
    'payout',
    {
      total: [{ amount: totalLeg }],
      fx_gain: lines.map(({ l, gain }) => ({ amount: gain, row: fxRow(l, 'Realised FX gain') })),
      fx_loss: lines.map(({ l, loss }) => ({ amount: loss, row: fxRow(l, 'Realised FX loss') })),
      lines: lines.map(({ l, settle }) => ({
        account: counterAccount(paidDocument(l), l.gl_account),
        amount: settle,
        row: {
          description: l.description ?? null,
          currency: l.currency ?? doc.currency,
          payment_amount: optDec(l.payment_amount),
          paid_record: (paidDocument(l) as Json | null) ?? null,
        },
      })),
    },
    { currency: doc.currency, contact: null, paid_record: null, payment_reference: null, description: doc.description ?? null },
  );
  const datePosting = postingDate.payout(doc, opts.fallbackDate)?.date;
  if (!datePosting) throw new MissingLegalFiguresError(`payout ${doc.id} has no date`);
  const entry: LedgerEntryDraft = {
    ...paymentEntryHeader({
      type: 'payout',
      source: { type: 'payout', id: doc.id, version: doc.version ?? 1, no: doc.no ?? null },
      date_posting: datePosting,
      no: doc.no ?? null,
      payment_reference: doc.psp_object_id ?? null,
      description: doc.description ?? null,
      date_issued: doc.date_issued ?? null,
      currency: doc.currency,
      legal_currency: legalCurrency,
      transaction_type: (doc.transaction_type as Json | null | undefined) ?? null,
      contact: null,
      bank_account: null,
      paid_record: null,
      fx_rates: paymentFxRates(doc.currency, legalCurrency, doc.fx_rate ? [doc] : (doc.lines ?? [])),
    }),
    total: sums(rows).debit,
    rows,
  };
  assertBalanced(entry);
  return entry;
}

/**
 * The reversing entry of a posted one: the same rows with debit and credit swapped, dated like
 * the original so the period it was reported in nets to zero.
 */
export function reversalOf(entry: LedgerEntryDraft): LedgerEntryDraft {
  const swapTax = (t: DraftTaxRow): DraftTaxRow => ({ ...t, debit: t.credit, credit: t.debit });
  return {
    ...entry,
    type: 'reversal',
    entry_kind: 'reversal',
    description: `Reversal of ${entry.type} ${entry.no ?? entry.source.id} (version ${entry.source.version})`,
    rows: entry.rows.map((r) => ({ ...r, debit: r.credit, credit: r.debit, taxes: r.taxes.map(swapTax) })),
  };
}
