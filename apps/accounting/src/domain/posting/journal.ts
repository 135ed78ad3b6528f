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
    entry_kind: 'posting',
    date_posting: doc.date_posting,
    no: doc.no,
    vendor_doc_no: null,
    credited_doc_no: null,
    payment_reference: null,
    description: doc.description,
    date_issued: doc.date_posting,
    date_due: null,
    date_taxable: null,
    date_tax_applied: null,
    currency: doc.currency,
    legal_currency: doc.currency,
    precision: 2,
    transaction_type: null,
    contact: null,
    bank_account: null,
    tax_nexus: null,
    paid_record: null,
    fx_rates: [],
    tax_deduction_ratio: null,
    net_deduction_ratio: null,
    amount_paid: null,
    amount_due: null,
    total: sums(rows).debit,
    rows,
  };
  assertBalanced(entry);
  return entry;
}
