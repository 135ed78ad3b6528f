import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { JournalEntryKind } from '@ledgerline/contracts';

/*
 * Read models of the ledger. Writes go through `domain/ledger-store.ts` (plain SQL inserts, so a
 * duplicate source key is a no-op instead of an aborted transaction); every table is
 * tenant-filtered through `orgId`.
 */

export const GlAccountSchema = defineEntity({
  name: 'GlAccount',
  tableName: 'gl_accounts',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    number: p.string(),
    nameCs: p.string().fieldName('name_cs'),
    nameEn: p.string().fieldName('name_en'),
    description: p.string().nullable(),
  },
});
export type GlAccount = InferEntity<typeof GlAccountSchema>;

export const BookSchema = defineEntity({
  name: 'Book',
  tableName: 'books',
  properties: {
    orgId: p.integer().fieldName('org_id').primary(),
    id: p.integer().primary(),
    name: p.string(),
  },
});
export type Book = InferEntity<typeof BookSchema>;

export const AccountingTransactionSchema = defineEntity({
  name: 'AccountingTransaction',
  tableName: 'accounting_transactions',
  properties: {
    id: p.integer().primary().autoincrement(),
    uid: p.uuid(),
    orgId: p.integer().fieldName('org_id'),
    bookId: p.integer().fieldName('book_id'),
    type: p.string(),
    sourceType: p.string().fieldName('source_type'),
    sourceId: p.integer().fieldName('source_id'),
    sourceVersion: p.integer().fieldName('source_version'),
    entryKind: p.string().$type<'posting' | 'reversal'>().fieldName('entry_kind'),
    sourceEventId: p.string().fieldName('source_event_id').nullable(),
    reversesId: p.integer().fieldName('reverses_id').nullable(),
    accountingStatus: p.string().$type<'posted' | 'reversed'>().fieldName('accounting_status'),
    no: p.string().nullable(),
    vendorDocNo: p.string().fieldName('vendor_doc_no').nullable(),
    creditedDocNo: p.string().fieldName('credited_doc_no').nullable(),
    paymentReference: p.string().fieldName('payment_reference').nullable(),
    description: p.string().nullable(),
    dateIssued: p.string().columnType('date').fieldName('date_issued').nullable(),
    dateDue: p.string().columnType('date').fieldName('date_due').nullable(),
    datePosting: p.string().columnType('date').fieldName('date_posting'),
    dateTaxable: p.string().columnType('date').fieldName('date_taxable').nullable(),
    dateTaxApplied: p.string().columnType('date').fieldName('date_tax_applied').nullable(),
    currency: p.string(),
    legalCurrency: p.string().fieldName('legal_currency'),
    precision: p.integer(),
    transactionType: p.json<Record<string, unknown>>().fieldName('transaction_type').nullable(),
    contact: p.json<Record<string, unknown>>().nullable(),
    bankAccount: p.json<Record<string, unknown>>().fieldName('bank_account').nullable(),
    taxNexus: p.json<Record<string, unknown>>().fieldName('tax_nexus').nullable(),
    paidRecord: p.json<Record<string, unknown>>().fieldName('paid_record').nullable(),
    fxRates: p.json<Array<Record<string, unknown>>>().fieldName('fx_rates'),
    taxDeductionRatio: p.decimal().fieldName('tax_deduction_ratio').nullable(),
    netDeductionRatio: p.decimal().fieldName('net_deduction_ratio').nullable(),
    amountPaid: p.decimal().fieldName('amount_paid').nullable(),
    amountDue: p.decimal().fieldName('amount_due').nullable(),
    total: p.decimal(),
    createdAt: p.datetime().fieldName('created_at'),
    editedAt: p.datetime().fieldName('edited_at').nullable(),
  },
});
export type AccountingTransactionRecord = InferEntity<typeof AccountingTransactionSchema>;

export const LedgerRowSchema = defineEntity({
  name: 'LedgerRow',
  tableName: 'ledger_rows',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    transactionId: p.integer().fieldName('transaction_id'),
    bookId: p.integer().fieldName('book_id'),
    ord: p.integer(),
    role: p.string(),
    datePosting: p.string().columnType('date').fieldName('date_posting'),
    glAccountNumber: p.string().fieldName('gl_account_number'),
    debit: p.decimal(),
    credit: p.decimal(),
    description: p.string().nullable(),
    currency: p.string().nullable(),
    paymentAmount: p.decimal().fieldName('payment_amount').nullable(),
    paymentReference: p.string().fieldName('payment_reference').nullable(),
    contact: p.json<Record<string, unknown>>().nullable(),
    paidRecord: p.json<Record<string, unknown>>().fieldName('paid_record').nullable(),
    fxRates: p.json<Array<Record<string, unknown>>>().fieldName('fx_rates').nullable(),
    taxDeductionRatio: p.decimal().fieldName('tax_deduction_ratio').nullable(),
    netDeductionRatio: p.decimal().fieldName('net_deduction_ratio').nullable(),
  },
});
export type LedgerRowRecord = InferEntity<typeof LedgerRowSchema>;

export const LedgerTaxRowSchema = defineEntity({
  name: 'LedgerTaxRow',
  tableName: 'ledger_tax_rows',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    transactionId: p.integer().fieldName('transaction_id'),
    rowId: p.integer().fieldName('row_id'),
    ord: p.integer(),
    glAccountNumber: p.string().fieldName('gl_account_number'),
    debit: p.decimal(),
    credit: p.decimal(),
    description: p.string().nullable(),
    currency: p.string().nullable(),
    taxRate: p.decimal().fieldName('tax_rate').nullable(),
    taxRateRc: p.decimal().fieldName('tax_rate_rc').nullable(),
    isReverseCharge: p.boolean().fieldName('is_reverse_charge'),
    taxIndex: p.integer().fieldName('tax_index').nullable(),
    taxCode: p.string().fieldName('tax_code').nullable(),
    taxName: p.string().fieldName('tax_name').nullable(),
    taxBaseIn: p.decimal().fieldName('tax_base_in').nullable(),
    taxBaseInLeg: p.decimal().fieldName('tax_base_in_leg').nullable(),
    taxBaseOut: p.decimal().fieldName('tax_base_out').nullable(),
    taxBaseOutLeg: p.decimal().fieldName('tax_base_out_leg').nullable(),
    taxAmountIn: p.decimal().fieldName('tax_amount_in').nullable(),
    taxAmountInLeg: p.decimal().fieldName('tax_amount_in_leg').nullable(),
    taxAmountClaim: p.decimal().fieldName('tax_amount_claim').nullable(),
    taxAmountClaimLeg: p.decimal().fieldName('tax_amount_claim_leg').nullable(),
    taxAmountOut: p.decimal().fieldName('tax_amount_out').nullable(),
    taxAmountOutLeg: p.decimal().fieldName('tax_amount_out_leg').nullable(),
    taxReturnBaseIn: p.string().fieldName('tax_return_base_in').nullable(),
    taxReturnBaseOut: p.string().fieldName('tax_return_base_out').nullable(),
    taxReturnAmountClaim: p.string().fieldName('tax_return_amount_claim').nullable(),
    taxReturnAmountOut: p.string().fieldName('tax_return_amount_out').nullable(),
    taxControlStatement: p.string().fieldName('tax_control_statement').nullable(),
    taxEuSalesReport: p.string().fieldName('tax_eu_sales_report').nullable(),
    taxDeductionRatio: p.decimal().fieldName('tax_deduction_ratio').nullable(),
    netDeductionRatio: p.decimal().fieldName('tax_deduction_ratio'.replace('tax', 'net')).nullable(),
  },
});
export type LedgerTaxRowRecord = InferEntity<typeof LedgerTaxRowSchema>;

/** One line of a journal entry as stored (amounts as decimal text at two places). */
export interface StoredJournalLine {
  order: number;
  account_number: string;
  debit: string;
  credit: string;
  description: string | null;
}

/** A manual journal entry (decision 165); its posting is the ledger entry of source_type journal_entry. */
export const JournalEntrySchema = defineEntity({
  name: 'JournalEntry',
  tableName: 'journal_entries',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    no: p.string(),
    kind: p.string().$type<JournalEntryKind>(),
    datePosting: p.string().columnType('date').fieldName('date_posting'),
    description: p.string(),
    reference: p.string().nullable(),
    currency: p.string(),
    total: p.decimal(),
    lines: p.json<StoredJournalLine[]>(),
    reversesId: p.integer().fieldName('reverses_id').nullable(),
    reversedById: p.integer().fieldName('reversed_by_id').nullable(),
    createdAt: p.datetime().fieldName('created_at'),
    createdBy: p.string().fieldName('created_by'),
  },
});
export type JournalEntryRecord = InferEntity<typeof JournalEntrySchema>;

export const entities = [GlAccountSchema, BookSchema, AccountingTransactionSchema, LedgerRowSchema, LedgerTaxRowSchema, JournalEntrySchema];
