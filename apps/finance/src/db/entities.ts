import type { PaidRecordType } from '@ledgerline/contracts/common';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type MatchStatus = 'matched' | 'unmatched' | 'none';

/** What a payment settled: the document the owning service confirmed and the amount applied to it. */
export interface PaymentMatch {
  type: PaidRecordType;
  id: number;
  no: string | null;
  /** Applied to the document: positive pays it (decimal string). */
  amount: string;
  currency: string;
  contact: { id: number | null; business_name: string | null } | null;
}

export const BankTransactionSchema = defineEntity({
  name: 'BankTransaction',
  tableName: 'bank_transactions',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    accountNumber: p.string().nullable(),
    statementId: p.integer().nullable(),
    order: p.integer().fieldName('line_order').nullable(),
    description: p.string().nullable(),
    amount: p.decimal().columnType('numeric(18,2)'),
    amountOriginal: p.decimal().columnType('numeric(18,2)').nullable(),
    paymentAmount: p.decimal().columnType('numeric(18,2)').nullable(),
    dateTransaction: p.string().columnType('date'),
    dateAccounting: p.string().columnType('date').nullable(),
    currency: p.string(),
    paymentReference: p.string().nullable(),
    partnerAccountNumber: p.string().nullable(),
    partnerName: p.string().nullable(),
    rawMessage: p.string().nullable(),
    contact: p.json<Record<string, unknown>>().nullable(),
    paidRecord: p.json<Record<string, unknown>>().nullable(),
    glAccount: p.json<Record<string, unknown>>().nullable(),
    matchStatus: p.string().$type<MatchStatus>(),
    match: p.json<PaymentMatch>().nullable(),
    legalCurrency: p.string().nullable(),
    fxRate: p.decimal().columnType('numeric(20,10)').nullable(),
    currencyCoef: p.decimal().columnType('numeric(18,6)').nullable(),
    fxRateSource: p.string().nullable(),
    fxRateDate: p.string().columnType('date').nullable(),
    amountLeg: p.decimal().columnType('numeric(18,2)').nullable(),
    settlementAmountLeg: p.decimal().columnType('numeric(18,2)').nullable(),
    bankReference: p.string().nullable(),
    /** The n-th entry of one statement with this bank reference, amount and booking day (issue 52). */
    referenceOccurrence: p.integer().default(1),
    matchedBy: p.string().nullable(),
    version: p.integer().default(1),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Set by every change after the transaction was recorded (…/match, …/unmatch); the column's default on insert. */
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
});
export type BankTransaction = InferEntity<typeof BankTransactionSchema>;

/** What happened to one entry of an imported statement, as answered (the transaction is read live). */
export interface StoredStatementEntry {
  order: number;
  status: 'matched' | 'unmatched' | 'fee' | 'duplicate' | 'skipped';
  matched_by: string | null;
  amount: string;
  variable_symbol: string | null;
  bank_reference: string | null;
  transaction_id: number | null;
}

export const BankStatementSchema = defineEntity({
  name: 'BankStatement',
  tableName: 'bank_statements',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    format: p.string().$type<'camt053' | 'gpc' | 'mt940' | 'fio'>(),
    account: p.string(),
    statementNo: p.string(),
    currency: p.string(),
    openingBalance: p.decimal().columnType('numeric(18,2)'),
    closingBalance: p.decimal().columnType('numeric(18,2)'),
    dateFrom: p.string().columnType('date'),
    dateTo: p.string().columnType('date'),
    entries: p.json<StoredStatementEntry[]>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type BankStatement = InferEntity<typeof BankStatementSchema>;

export interface StoredPayoutLine {
  id: number;
  description: string | null;
  amount: string;
  amount_original: string | null;
  payment_amount: string | null;
  date_transaction: string | null;
  date_accounting: string | null;
  currency: string | null;
  order: number | null;
  paid_record: Record<string, unknown> | null;
  gl_account: Record<string, unknown> | null;
  match_status: MatchStatus;
  match: PaymentMatch | null;
  /** Legal-currency figures (absent on lines stored before they existed). Decimal strings. */
  amount_leg?: string | null;
  settlement_amount_leg?: string | null;
  fx_rate?: string | null;
  currency_coef?: string | null;
  fx_rate_source?: string | null;
  fx_rate_date?: string | null;
}

export const PayoutSchema = defineEntity({
  name: 'Payout',
  tableName: 'payouts',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    uid: p.uuid(),
    version: p.integer(),
    isLocked: p.boolean(),
    currency: p.string(),
    dateIssued: p.string().columnType('date').nullable(),
    description: p.string().nullable(),
    totalAmount: p.decimal().columnType('numeric(18,2)'),
    pspObjectId: p.string().nullable(),
    no: p.string().nullable(),
    copyFromId: p.integer().nullable(),
    transactionType: p.json<Record<string, unknown>>().nullable(),
    lines: p.json<StoredPayoutLine[]>(),
    legalCurrency: p.string().nullable(),
    fxRate: p.decimal().columnType('numeric(20,10)').nullable(),
    currencyCoef: p.decimal().columnType('numeric(18,6)').nullable(),
    totalAmountLeg: p.decimal().columnType('numeric(18,2)').nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    editedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type Payout = InferEntity<typeof PayoutSchema>;

export const entities = [BankTransactionSchema, PayoutSchema, BankStatementSchema];
