import { EntitySchema } from '@mikro-orm/core';

export type MatchStatus = 'matched' | 'unmatched' | 'none';

/** What a payment settled: the document the owning service confirmed and the amount applied to it. */
export interface PaymentMatch {
  type: 'sales_invoice' | 'sales_credit_note' | 'purchase_bill' | 'purchase_vendor_credit';
  id: number;
  no: string | null;
  /** Applied to the document: positive pays it (decimal string). */
  amount: string;
  currency: string;
  contact: { id: number | null; business_name: string | null } | null;
}

export interface BankTransaction {
  id: number;
  orgId: number;
  accountNumber?: string | null;
  statementId?: number | null;
  order?: number | null;
  description?: string | null;
  amount: string;
  amountOriginal?: string | null;
  paymentAmount?: string | null;
  dateTransaction: string;
  dateAccounting?: string | null;
  currency: string;
  paymentReference?: string | null;
  partnerAccountNumber?: string | null;
  partnerName?: string | null;
  rawMessage?: string | null;
  contact?: Record<string, unknown> | null;
  paidRecord?: Record<string, unknown> | null;
  glAccount?: Record<string, unknown> | null;
  matchStatus: MatchStatus;
  match?: PaymentMatch | null;
  /** Legal-currency figures (null on transactions recorded before they existed). */
  legalCurrency?: string | null;
  fxRate?: string | null;
  currencyCoef?: string | null;
  fxRateSource?: string | null;
  amountLeg?: string | null;
  settlementAmountLeg?: string | null;
  createdAt: Date;
}

export const BankTransactionSchema = new EntitySchema<BankTransaction>({
  name: 'BankTransaction',
  tableName: 'bank_transactions',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    accountNumber: { type: 'string', nullable: true },
    statementId: { type: 'number', nullable: true },
    order: { type: 'number', fieldName: 'line_order', nullable: true },
    description: { type: 'string', nullable: true },
    amount: { type: 'decimal', columnType: 'numeric(18,2)' },
    amountOriginal: { type: 'decimal', columnType: 'numeric(18,2)', nullable: true },
    paymentAmount: { type: 'decimal', columnType: 'numeric(18,2)', nullable: true },
    dateTransaction: { type: 'string', columnType: 'date' },
    dateAccounting: { type: 'string', columnType: 'date', nullable: true },
    currency: { type: 'string' },
    paymentReference: { type: 'string', nullable: true },
    partnerAccountNumber: { type: 'string', nullable: true },
    partnerName: { type: 'string', nullable: true },
    rawMessage: { type: 'string', nullable: true },
    contact: { type: 'json', nullable: true },
    paidRecord: { type: 'json', nullable: true },
    glAccount: { type: 'json', nullable: true },
    matchStatus: { type: 'string' },
    match: { type: 'json', nullable: true },
    legalCurrency: { type: 'string', nullable: true },
    fxRate: { type: 'decimal', columnType: 'numeric(20,10)', nullable: true },
    currencyCoef: { type: 'decimal', columnType: 'numeric(18,6)', nullable: true },
    fxRateSource: { type: 'string', nullable: true },
    amountLeg: { type: 'decimal', columnType: 'numeric(18,2)', nullable: true },
    settlementAmountLeg: { type: 'decimal', columnType: 'numeric(18,2)', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date() },
  },
});

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
}

export interface Payout {
  id: number;
  orgId: number;
  uid: string;
  version: number;
  isLocked: boolean;
  currency: string;
  dateIssued?: string | null;
  description?: string | null;
  totalAmount: string;
  pspObjectId?: string | null;
  no?: string | null;
  copyFromId?: number | null;
  transactionType?: Record<string, unknown> | null;
  lines: StoredPayoutLine[];
  legalCurrency?: string | null;
  fxRate?: string | null;
  currencyCoef?: string | null;
  totalAmountLeg?: string | null;
  createdAt: Date;
  editedAt: Date;
}

export const PayoutSchema = new EntitySchema<Payout>({
  name: 'Payout',
  tableName: 'payouts',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    uid: { type: 'uuid' },
    version: { type: 'number' },
    isLocked: { type: 'boolean' },
    currency: { type: 'string' },
    dateIssued: { type: 'string', columnType: 'date', nullable: true },
    description: { type: 'string', nullable: true },
    totalAmount: { type: 'decimal', columnType: 'numeric(18,2)' },
    pspObjectId: { type: 'string', nullable: true },
    no: { type: 'string', nullable: true },
    copyFromId: { type: 'number', nullable: true },
    transactionType: { type: 'json', nullable: true },
    lines: { type: 'json' },
    legalCurrency: { type: 'string', nullable: true },
    fxRate: { type: 'decimal', columnType: 'numeric(20,10)', nullable: true },
    currencyCoef: { type: 'decimal', columnType: 'numeric(18,6)', nullable: true },
    totalAmountLeg: { type: 'decimal', columnType: 'numeric(18,2)', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date() },
    editedAt: { type: 'Date', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});

export const entities = [BankTransactionSchema, PayoutSchema];
