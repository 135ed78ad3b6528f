import { EntitySchema } from '@mikro-orm/core';

/*
 * Read models of the ledger. Writes go through `domain/ledger-store.ts` (plain SQL inserts, so a
 * duplicate source key is a no-op instead of an aborted transaction); every table is
 * tenant-filtered through `orgId`.
 */

export interface GlAccount {
  id: number;
  orgId: number;
  number: string;
  nameCs: string;
  nameEn: string;
  description?: string | null;
}

export const GlAccountSchema = new EntitySchema<GlAccount>({
  name: 'GlAccount',
  tableName: 'gl_accounts',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    number: { type: 'string' },
    nameCs: { type: 'string', fieldName: 'name_cs' },
    nameEn: { type: 'string', fieldName: 'name_en' },
    description: { type: 'string', nullable: true },
  },
});

export interface Book {
  orgId: number;
  id: number;
  name: string;
}

export const BookSchema = new EntitySchema<Book>({
  name: 'Book',
  tableName: 'books',
  properties: {
    orgId: { type: 'number', fieldName: 'org_id', primary: true },
    id: { type: 'number', primary: true },
    name: { type: 'string' },
  },
});

export interface AccountingTransactionRecord {
  id: number;
  uid: string;
  orgId: number;
  bookId: number;
  type: string;
  sourceType: string;
  sourceId: number;
  sourceVersion: number;
  entryKind: 'posting' | 'reversal';
  sourceEventId?: string | null;
  reversesId?: number | null;
  accountingStatus: 'posted' | 'reversed';
  no?: string | null;
  vendorDocNo?: string | null;
  creditedDocNo?: string | null;
  paymentReference?: string | null;
  description?: string | null;
  dateIssued?: string | null;
  dateDue?: string | null;
  datePosting: string;
  dateTaxable?: string | null;
  dateTaxApplied?: string | null;
  currency: string;
  legalCurrency: string;
  precision: number;
  transactionType?: Record<string, unknown> | null;
  contact?: Record<string, unknown> | null;
  bankAccount?: Record<string, unknown> | null;
  taxNexus?: Record<string, unknown> | null;
  paidRecord?: Record<string, unknown> | null;
  fxRates: Array<Record<string, unknown>>;
  taxDeductionRatio?: string | null;
  netDeductionRatio?: string | null;
  amountPaid?: string | null;
  amountDue?: string | null;
  total: string;
  createdAt: Date;
  editedAt?: Date | null;
}

export const AccountingTransactionSchema = new EntitySchema<AccountingTransactionRecord>({
  name: 'AccountingTransaction',
  tableName: 'accounting_transactions',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    uid: { type: 'uuid' },
    orgId: { type: 'number', fieldName: 'org_id' },
    bookId: { type: 'number', fieldName: 'book_id' },
    type: { type: 'string' },
    sourceType: { type: 'string', fieldName: 'source_type' },
    sourceId: { type: 'number', fieldName: 'source_id' },
    sourceVersion: { type: 'number', fieldName: 'source_version' },
    entryKind: { type: 'string', fieldName: 'entry_kind' },
    sourceEventId: { type: 'string', fieldName: 'source_event_id', nullable: true },
    reversesId: { type: 'number', fieldName: 'reverses_id', nullable: true },
    accountingStatus: { type: 'string', fieldName: 'accounting_status' },
    no: { type: 'string', nullable: true },
    vendorDocNo: { type: 'string', fieldName: 'vendor_doc_no', nullable: true },
    creditedDocNo: { type: 'string', fieldName: 'credited_doc_no', nullable: true },
    paymentReference: { type: 'string', fieldName: 'payment_reference', nullable: true },
    description: { type: 'string', nullable: true },
    dateIssued: { type: 'string', columnType: 'date', fieldName: 'date_issued', nullable: true },
    dateDue: { type: 'string', columnType: 'date', fieldName: 'date_due', nullable: true },
    datePosting: { type: 'string', columnType: 'date', fieldName: 'date_posting' },
    dateTaxable: { type: 'string', columnType: 'date', fieldName: 'date_taxable', nullable: true },
    dateTaxApplied: { type: 'string', columnType: 'date', fieldName: 'date_tax_applied', nullable: true },
    currency: { type: 'string' },
    legalCurrency: { type: 'string', fieldName: 'legal_currency' },
    precision: { type: 'number' },
    transactionType: { type: 'json', fieldName: 'transaction_type', nullable: true },
    contact: { type: 'json', nullable: true },
    bankAccount: { type: 'json', fieldName: 'bank_account', nullable: true },
    taxNexus: { type: 'json', fieldName: 'tax_nexus', nullable: true },
    paidRecord: { type: 'json', fieldName: 'paid_record', nullable: true },
    fxRates: { type: 'json', fieldName: 'fx_rates' },
    taxDeductionRatio: { type: 'decimal', fieldName: 'tax_deduction_ratio', nullable: true },
    netDeductionRatio: { type: 'decimal', fieldName: 'net_deduction_ratio', nullable: true },
    amountPaid: { type: 'decimal', fieldName: 'amount_paid', nullable: true },
    amountDue: { type: 'decimal', fieldName: 'amount_due', nullable: true },
    total: { type: 'decimal' },
    createdAt: { type: 'Date', fieldName: 'created_at' },
    editedAt: { type: 'Date', fieldName: 'edited_at', nullable: true },
  },
});

export interface LedgerRowRecord {
  id: number;
  orgId: number;
  transactionId: number;
  bookId: number;
  ord: number;
  role: string;
  datePosting: string;
  glAccountNumber: string;
  debit: string;
  credit: string;
  description?: string | null;
  currency?: string | null;
  paymentAmount?: string | null;
  paymentReference?: string | null;
  contact?: Record<string, unknown> | null;
  paidRecord?: Record<string, unknown> | null;
  fxRates?: Array<Record<string, unknown>> | null;
  taxDeductionRatio?: string | null;
  netDeductionRatio?: string | null;
}

export const LedgerRowSchema = new EntitySchema<LedgerRowRecord>({
  name: 'LedgerRow',
  tableName: 'ledger_rows',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    transactionId: { type: 'number', fieldName: 'transaction_id' },
    bookId: { type: 'number', fieldName: 'book_id' },
    ord: { type: 'number' },
    role: { type: 'string' },
    datePosting: { type: 'string', columnType: 'date', fieldName: 'date_posting' },
    glAccountNumber: { type: 'string', fieldName: 'gl_account_number' },
    debit: { type: 'decimal' },
    credit: { type: 'decimal' },
    description: { type: 'string', nullable: true },
    currency: { type: 'string', nullable: true },
    paymentAmount: { type: 'decimal', fieldName: 'payment_amount', nullable: true },
    paymentReference: { type: 'string', fieldName: 'payment_reference', nullable: true },
    contact: { type: 'json', nullable: true },
    paidRecord: { type: 'json', fieldName: 'paid_record', nullable: true },
    fxRates: { type: 'json', fieldName: 'fx_rates', nullable: true },
    taxDeductionRatio: { type: 'decimal', fieldName: 'tax_deduction_ratio', nullable: true },
    netDeductionRatio: { type: 'decimal', fieldName: 'net_deduction_ratio', nullable: true },
  },
});

export interface LedgerTaxRowRecord {
  id: number;
  orgId: number;
  transactionId: number;
  rowId: number;
  ord: number;
  glAccountNumber: string;
  debit: string;
  credit: string;
  description?: string | null;
  currency?: string | null;
  taxRate?: string | null;
  taxRateRc?: string | null;
  isReverseCharge: boolean;
  taxIndex?: number | null;
  taxCode?: string | null;
  taxName?: string | null;
  taxBaseIn?: string | null;
  taxBaseInLeg?: string | null;
  taxBaseOut?: string | null;
  taxBaseOutLeg?: string | null;
  taxAmountIn?: string | null;
  taxAmountInLeg?: string | null;
  taxAmountClaim?: string | null;
  taxAmountClaimLeg?: string | null;
  taxAmountOut?: string | null;
  taxAmountOutLeg?: string | null;
  taxReturnBaseIn?: string | null;
  taxReturnBaseOut?: string | null;
  taxReturnAmountClaim?: string | null;
  taxReturnAmountOut?: string | null;
  taxControlStatement?: string | null;
  taxEuSalesReport?: string | null;
  taxDeductionRatio?: string | null;
  netDeductionRatio?: string | null;
}

const dec = (fieldName: string) => ({ type: 'decimal', fieldName, nullable: true }) as const;
const str = (fieldName: string) => ({ type: 'string', fieldName, nullable: true }) as const;

export const LedgerTaxRowSchema = new EntitySchema<LedgerTaxRowRecord>({
  name: 'LedgerTaxRow',
  tableName: 'ledger_tax_rows',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    transactionId: { type: 'number', fieldName: 'transaction_id' },
    rowId: { type: 'number', fieldName: 'row_id' },
    ord: { type: 'number' },
    glAccountNumber: { type: 'string', fieldName: 'gl_account_number' },
    debit: { type: 'decimal' },
    credit: { type: 'decimal' },
    description: { type: 'string', nullable: true },
    currency: { type: 'string', nullable: true },
    taxRate: dec('tax_rate'),
    taxRateRc: dec('tax_rate_rc'),
    isReverseCharge: { type: 'boolean', fieldName: 'is_reverse_charge' },
    taxIndex: { type: 'number', fieldName: 'tax_index', nullable: true },
    taxCode: str('tax_code'),
    taxName: str('tax_name'),
    taxBaseIn: dec('tax_base_in'),
    taxBaseInLeg: dec('tax_base_in_leg'),
    taxBaseOut: dec('tax_base_out'),
    taxBaseOutLeg: dec('tax_base_out_leg'),
    taxAmountIn: dec('tax_amount_in'),
    taxAmountInLeg: dec('tax_amount_in_leg'),
    taxAmountClaim: dec('tax_amount_claim'),
    taxAmountClaimLeg: dec('tax_amount_claim_leg'),
    taxAmountOut: dec('tax_amount_out'),
    taxAmountOutLeg: dec('tax_amount_out_leg'),
    taxReturnBaseIn: str('tax_return_base_in'),
    taxReturnBaseOut: str('tax_return_base_out'),
    taxReturnAmountClaim: str('tax_return_amount_claim'),
    taxReturnAmountOut: str('tax_return_amount_out'),
    taxControlStatement: str('tax_control_statement'),
    taxEuSalesReport: str('tax_eu_sales_report'),
    taxDeductionRatio: dec('tax_deduction_ratio'),
    netDeductionRatio: dec('tax_deduction_ratio'.replace('tax', 'net')),
  },
});

export const entities = [GlAccountSchema, BookSchema, AccountingTransactionSchema, LedgerRowSchema, LedgerTaxRowSchema];
