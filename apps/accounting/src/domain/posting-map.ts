/**
 * The posting map of architecture §6 as data: for each kind of source document, which figure goes to
 * which account on which side. `postingRows` (posting.ts) interprets it; there is no per-document
 * code branch. A figure that comes out negative is posted on the opposite side.
 */

export const SOURCE_TYPES = [
  'sales_invoice',
  'sales_credit_note',
  'sales_advance_tax_document',
  'purchase_bill',
  'purchase_vendor_credit',
  'purchase_advance_tax_document',
  'bank_transaction',
  'payout',
] as const;
/** A kind of document the posting map posts. */
export type DocumentSourceType = (typeof SOURCE_TYPES)[number];
/** What the ledger posts: documents by the map, and manual journal entries line by line (decision 165). */
export type SourceType = DocumentSourceType | 'journal_entry';

export type Side = 'debit' | 'credit';

/**
 * Figures a document yields, in the legal currency:
 * - `total`, `tax`: the document's total and Σ of its tax recap;
 * - `net`: the subtotal, split by account (an item's gl_account overrides the default account);
 * - `tax_deductible` / `tax_non_deductible`: input tax × / × (1 −) the deduction ratio;
 * - `rc_tax_out` / `rc_tax_claim` / `rc_tax_non_deductible`: self-assessed reverse-charge tax;
 * - `amount`: a bank transaction's signed amount (positive: money in), at the payment's rate;
 * - `settlement`: the same payment at the legal value it clears the paid document with (the
 *   document's rate); `amount` when nothing is matched;
 * - `lines`: each payout line at the legal value it clears its counter account with;
 * - `fx_gain` / `fx_loss`: the realised exchange difference of a payment, amount − settlement
 *   (positive: gain, negative: loss), each never negative;
 * - `rounding_gain` / `rounding_loss`: a document's rounding of its total (BT-114) as it falls
 *   for the organisation — more asked of a customer or less owed to a vendor is a gain — each never
 *   negative;
 * - `advance_total` / `advance_net` / `advance_tax`: what a final invoice deducts of the advances
 *   paid on proformas (decision 236), with VAT, without it, and the VAT its advance tax documents
 *   declared; on a final bill, what it deducts of advance bills (decision 237), the VAT being
 *   what their tax documents claimed.
 */
export type Figure =
  | 'total'
  | 'net'
  | 'tax'
  | 'tax_deductible'
  | 'tax_non_deductible'
  | 'rc_tax_out'
  | 'rc_tax_claim'
  | 'rc_tax_non_deductible'
  | 'amount'
  | 'settlement'
  | 'lines'
  | 'fx_gain'
  | 'fx_loss'
  | 'rounding_gain'
  | 'rounding_loss'
  | 'advance_total'
  | 'advance_net'
  | 'advance_tax';

export type AccountSource =
  /** Always this account. */
  | { kind: 'fixed'; number: string }
  /** This account unless an item names its own gl_account; `services` for what items supplying services are worth. */
  | { kind: 'item_or'; number: string; services?: string }
  /** The counter account of a payment: by the paid document's type, else its gl_account, else suspense. */
  | { kind: 'counter' };

export interface PostingRule {
  /** What the row is, in the language of accounting (shown as act_rows[].type). */
  role: string;
  side: Side;
  account: AccountSource;
  figure: Figure;
}

const fixed = (number: string): AccountSource => ({ kind: 'fixed', number });
const itemOr = (number: string, services?: string): AccountSource => ({ kind: 'item_or', number, services });
const counter: AccountSource = { kind: 'counter' };

export const ACCOUNTS = {
  cash: '211',
  bank: '221',
  cashInTransit: '261',
  advancesReceived: '324',
  advancesPaid: '314',
  customers: '311',
  vendors: '321',
  vat: '343',
  suspense: '395',
  goodsSold: '504',
  servicesPurchased: '518',
  fees: '568',
  revenueServices: '602',
  revenueGoods: '604',
  fxLosses: '563',
  fxGains: '663',
  roundingLosses: '548',
  roundingGains: '648',
} as const;

const rounding: readonly PostingRule[] = [
  { role: 'rounding', side: 'credit', account: fixed(ACCOUNTS.roundingGains), figure: 'rounding_gain' },
  { role: 'rounding', side: 'debit', account: fixed(ACCOUNTS.roundingLosses), figure: 'rounding_loss' },
];

export const POSTING_MAP: Readonly<Record<DocumentSourceType, readonly PostingRule[]>> = {
  sales_invoice: [
    { role: 'receivable', side: 'debit', account: fixed(ACCOUNTS.customers), figure: 'total' },
    { role: 'revenue', side: 'credit', account: itemOr(ACCOUNTS.revenueGoods, ACCOUNTS.revenueServices), figure: 'net' },
    { role: 'tax', side: 'credit', account: fixed(ACCOUNTS.vat), figure: 'tax' },
    ...rounding,
    // a final invoice clears the advances it deducts: 324 without VAT, 343 the advance's VAT, 311 the whole
    { role: 'advance_deduction', side: 'debit', account: fixed(ACCOUNTS.advancesReceived), figure: 'advance_net' },
    { role: 'advance_tax', side: 'debit', account: fixed(ACCOUNTS.vat), figure: 'advance_tax' },
    { role: 'advance_deduction', side: 'credit', account: fixed(ACCOUNTS.customers), figure: 'advance_total' },
  ],
  // the VAT of a payment received on a proforma (§28 ZDPH) falls due with the payment: Dr 324 / Cr 343
  sales_advance_tax_document: [
    { role: 'advance_tax', side: 'debit', account: fixed(ACCOUNTS.advancesReceived), figure: 'tax' },
    { role: 'tax', side: 'credit', account: fixed(ACCOUNTS.vat), figure: 'tax' },
  ],
  sales_credit_note: [
    { role: 'revenue', side: 'debit', account: itemOr(ACCOUNTS.revenueGoods, ACCOUNTS.revenueServices), figure: 'net' },
    { role: 'tax', side: 'debit', account: fixed(ACCOUNTS.vat), figure: 'tax' },
    { role: 'receivable', side: 'credit', account: fixed(ACCOUNTS.customers), figure: 'total' },
    ...rounding,
  ],
  purchase_bill: [
    { role: 'expense', side: 'debit', account: itemOr(ACCOUNTS.goodsSold, ACCOUNTS.servicesPurchased), figure: 'net' },
    { role: 'tax', side: 'debit', account: fixed(ACCOUNTS.vat), figure: 'tax_deductible' },
    { role: 'tax_non_deductible', side: 'debit', account: fixed(ACCOUNTS.goodsSold), figure: 'tax_non_deductible' },
    { role: 'tax_rc_claim', side: 'debit', account: fixed(ACCOUNTS.vat), figure: 'rc_tax_claim' },
    { role: 'tax_rc_non_deductible', side: 'debit', account: fixed(ACCOUNTS.goodsSold), figure: 'rc_tax_non_deductible' },
    { role: 'tax_rc_out', side: 'credit', account: fixed(ACCOUNTS.vat), figure: 'rc_tax_out' },
    { role: 'payable', side: 'credit', account: fixed(ACCOUNTS.vendors), figure: 'total' },
    ...rounding,
    // a final bill clears the advances it deducts: 321 the whole, 314 without VAT, 343 the VAT their tax documents claimed
    { role: 'advance_deduction', side: 'debit', account: fixed(ACCOUNTS.vendors), figure: 'advance_total' },
    { role: 'advance_deduction', side: 'credit', account: fixed(ACCOUNTS.advancesPaid), figure: 'advance_net' },
    { role: 'advance_tax', side: 'credit', account: fixed(ACCOUNTS.vat), figure: 'advance_tax' },
  ],
  // the input VAT of an advance paid, claimed on the vendor's tax document (decision 237): Dr 343 / Cr 314
  purchase_advance_tax_document: [
    { role: 'tax', side: 'debit', account: fixed(ACCOUNTS.vat), figure: 'tax_deductible' },
    { role: 'advance_tax', side: 'credit', account: fixed(ACCOUNTS.advancesPaid), figure: 'tax_deductible' },
  ],
  purchase_vendor_credit: [
    { role: 'payable', side: 'debit', account: fixed(ACCOUNTS.vendors), figure: 'total' },
    { role: 'tax_rc_out', side: 'debit', account: fixed(ACCOUNTS.vat), figure: 'rc_tax_out' },
    { role: 'expense', side: 'credit', account: itemOr(ACCOUNTS.goodsSold, ACCOUNTS.servicesPurchased), figure: 'net' },
    { role: 'tax', side: 'credit', account: fixed(ACCOUNTS.vat), figure: 'tax_deductible' },
    { role: 'tax_non_deductible', side: 'credit', account: fixed(ACCOUNTS.goodsSold), figure: 'tax_non_deductible' },
    { role: 'tax_rc_claim', side: 'credit', account: fixed(ACCOUNTS.vat), figure: 'rc_tax_claim' },
    { role: 'tax_rc_non_deductible', side: 'credit', account: fixed(ACCOUNTS.goodsSold), figure: 'rc_tax_non_deductible' },
    ...rounding,
  ],
  bank_transaction: [
    { role: 'bank', side: 'debit', account: fixed(ACCOUNTS.bank), figure: 'amount' },
    { role: 'settlement', side: 'credit', account: counter, figure: 'settlement' },
    { role: 'fx_gain', side: 'credit', account: fixed(ACCOUNTS.fxGains), figure: 'fx_gain' },
    { role: 'fx_loss', side: 'debit', account: fixed(ACCOUNTS.fxLosses), figure: 'fx_loss' },
  ],
  payout: [
    { role: 'bank', side: 'debit', account: fixed(ACCOUNTS.bank), figure: 'total' },
    { role: 'settlement', side: 'credit', account: counter, figure: 'lines' },
    { role: 'fx_gain', side: 'credit', account: fixed(ACCOUNTS.fxGains), figure: 'fx_gain' },
    { role: 'fx_loss', side: 'debit', account: fixed(ACCOUNTS.fxLosses), figure: 'fx_loss' },
  ],
};

/** Counter account of a payment by the type of the document it pays (architecture §6). */
export const COUNTER_ACCOUNT_BY_PAID_RECORD: Readonly<Record<string, string>> = {
  sales_invoice: ACCOUNTS.customers,
  sales_credit_note: ACCOUNTS.customers,
  // a proforma's payment is an advance received, not a receivable cleared (decision 236)
  sales_proforma: ACCOUNTS.advancesReceived,
  purchase_bill: ACCOUNTS.vendors,
  purchase_vendor_credit: ACCOUNTS.vendors,
  // an advance bill's payment is an advance paid, not a payable cleared (decision 237)
  purchase_advance: ACCOUNTS.advancesPaid,
};

/** Accounts holding tax rows (the ledger tax rows hang on these postings). */
export const TAX_ROLES: ReadonlySet<string> = new Set(['tax', 'tax_rc_claim', 'tax_rc_out']);
