import { dec } from '@ledgerline/service-kit';
import type { JournalDocument } from '../source-documents.js';
import type { DraftRow, LedgerEntryDraft } from './entry.js';
import { assertBalanced, sums } from './interpreter.js';

/*
 * A manual journal entry → its ledger entry (decision 165): no posting map, each line is a row
 * on the account it names, on its own side, in the legal currency the entry is written in. No
 * tax rows: a journal entry is not a tax document, so the VAT return, the control statement and
 * the EC Sales List never read it.
 */

/** The role of every row of a journal entry (act_rows[].type). */
export const JOURNAL_ROLE = 'journal';

export function ledgerEntryForJournal(doc: JournalDocument): LedgerEntryDraft {
  const rows: DraftRow[] = doc.lines.map((l) => ({
    role: JOURNAL_ROLE,
    gl_account_number: l.account_number,
    debit: dec(String(l.debit)),
    credit: dec(String(l.credit)),
    description: l.description ?? doc.description,
    currency: doc.currency,
    payment_amount: null,
    payment_reference: null,
    contact: null,
    paid_record: null,
    tax_deduction_ratio: null,
    net_deduction_ratio: null,
    taxes: [],
  }));
  const entry: LedgerEntryDraft = {
    type: 'journal_entry',
    source: { type: 'journal_entry', id: doc.id, version: 1, no: doc.no },
    entryKind: 'posting',
    datePosting: doc.date_posting,
    no: doc.no,
    vendorDocNo: null,
    creditedDocNo: null,
    paymentReference: null,
    description: doc.description,
    dateIssued: doc.date_posting,
    dateDue: null,
    dateTaxable: null,
    dateTaxApplied: null,
    currency: doc.currency,
    legalCurrency: doc.currency,
    precision: 2,
    transactionType: null,
    contact: null,
    bankAccount: null,
    taxNexus: null,
    paidRecord: null,
    fxRates: [],
    taxDeductionRatio: null,
    netDeductionRatio: null,
    amountPaid: null,
    amountDue: null,
    total: sums(rows).debit,
    rows,
  };
  assertBalanced(entry);
  return entry;
}
