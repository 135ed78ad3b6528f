import { z } from 'zod';
import { CONTENT_TEXT, bankCurrencyCode, contactSchema, currencyCode, glAccountSchema, id, ignoredInput, int64, isoDate, isoDateTime, longText, money, nullish, paidRecordSchema, paidRecordTypeSchema, positiveRate, centAmount, shortText, transactionTypeSchema, uuid, TABLE_RATE_SOURCES } from './common.js';
import { pagedEnvelope, pagingQuery, rangeQuery, repeatedParam, searchQuery, sortQuery, keysetPagedEnvelope, keysetPagingQuery } from './paging.js';

/*
 * Bank transactions and payouts. A bank transaction that names a
 * `paid_record` settles that document (finance.payment.matched).
 */

// --- match (extension) -----------------------------------------------------------------------

export const MATCH_STATUSES = ['matched', 'unmatched', 'none'] as const;
export const matchStatusSchema = z
  .enum(MATCH_STATUSES)
  .describe('matched: applied to the paid record; unmatched: the paid record was not found (posted to 395 suspense); none: no paid record');

/** What a payment was applied to, as confirmed by the document's owner */
export const matchedDocumentSchema = z
  .object({
    type: paidRecordTypeSchema,
    id: int64,
    no: nullish(z.string()),
    amount: money.describe('Applied to the document, in its currency: positive pays it'),
    currency: currencyCode,
  })
  .meta({ id: 'MatchedDocument', description: 'The document a payment was applied to' });

const matchFields = {
  match_status: matchStatusSchema.optional(),
  matched_document: nullish(matchedDocumentSchema),
};

// --- bank transactions -----------------------------------------------------------------------

const bankTransactionFields = {
  account_number: nullish(shortText(64)).describe('Our bank account the transaction is on'),
  statement_id: nullish(int64),
  order: nullish(z.int32()),
  description: nullish(longText()),
  amount_original: nullish(money).describe('Amount in the original currency of the payment'),
  payment_amount: nullish(money).describe('Amount applied to the paid record, in its currency'),
  date_accounting: nullish(isoDate),
  payment_reference: nullish(shortText(140)),
  partner_account_number: nullish(shortText(64)),
  partner_name: nullish(shortText()),
  raw_message: nullish(z.string().max(CONTENT_TEXT)),
  contact: nullish(contactSchema),
  paid_record: nullish(paidRecordSchema).describe('The document this payment settles (type and id)'),
  gl_account: nullish(glAccountSchema).describe('Counter account when no document is paid; 395 suspense when absent'),
  bank_reference: nullish(shortText(140)).describe("The bank's own reference of the entry. Banks reuse references, so an entry is the one recorded before only when the account, bank_reference, amount and booking day (date_accounting, else date_transaction) all agree: that is 409 `duplicate_bank_transaction`"),
  fx_rate: nullish(positiveRate).describe(
    "Legal currency per currency_coef units of currency; when absent in a foreign currency, the exchange-rate table's rate in force on the booking day, else the paid document's (422 fx_rate_required without either); 1 in the legal currency",
  ),
  currency_coef: nullish(positiveRate).describe('Units of currency the fx_rate is quoted for (extension, default 1)'),
};

/** Legal-currency figures finance stores with a payment (extension; derived, ignored on input). */
const paymentLegalFields = {
  legal_currency: nullish(currencyCode).describe('Legal currency of the organisation when the payment was recorded'),
  fx_rate_source: nullish(z.enum(['legal', 'payment', 'paid_document', 'payment_amount', ...TABLE_RATE_SOURCES])).describe(
    "Where fx_rate came from: legal currency (1), the request, the exchange-rate table's cnb, ecb or manual rate in force on the booking day (date_accounting, else date_transaction; a payout's day), the paid document (when the table has no rate), or payment_amount in the legal currency",
  ),
  fx_rate_date: nullish(isoDate).describe("The day of the exchange-rate table's rate the payment took; null when it took none"),
};

/** Bank transaction as stored. */
export const bankTransactionSchema = z
  .object({
    id: id,
    ...bankTransactionFields,
    amount: money.describe('Positive: money in; negative: money out'),
    currency: bankCurrencyCode,
    date_transaction: isoDate,
    ...matchFields,
    ...paymentLegalFields,
    amount_leg: nullish(money).describe('amount in the legal currency: amount × fx_rate / currency_coef, rounded half away from zero'),
    settlement_amount_leg: nullish(money).describe(
      'Legal-currency value at which the paid document is cleared (at its own rate), signed like amount; null when nothing is matched',
    ),
    version: nullish(z.int32()).describe('1 when recorded; +1 each time it is matched later (the ledger reverses the earlier posting)'),
  })
  .meta({ id: 'BankTransaction', description: 'Bank transaction' });
export type BankTransaction = z.infer<typeof bankTransactionSchema>;

/** Body of POST /finance/bank/transactions: amount, currency and date_transaction required. */
export const bankTransactionRequestSchema = z
  .object({
    id: ignoredInput(int64),
    ...bankTransactionFields,
    amount: centAmount.refine((a) => a !== 0, { message: 'amount must not be zero' }).describe('Positive: money in; negative: money out; at most two decimals'),
    currency: currencyCode,
    date_transaction: isoDate,
  })
  .meta({ id: 'BankTransactionRequest', description: 'Bank transaction to record: amount, currency, date_transaction required' });
export type BankTransactionRequest = z.infer<typeof bankTransactionRequestSchema>;

export const bankTransactionListQuerySchema = z.object({
  ...keysetPagingQuery(100),
  search: searchQuery.optional(),
  sort: sortQuery.optional(),
  date_transaction: rangeQuery('date').optional(),
  match_status: matchStatusSchema.optional().describe('Only transactions with this match status (unmatched: waiting in 395 suspense)'),
  statement_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('Only the transactions of this imported statement'),
  updated_since: isoDateTime.optional().describe('Only transactions recorded or changed (matched later, a match taken back) at or after this instant'),
});
export type BankTransactionListQuery = z.output<typeof bankTransactionListQuerySchema>;
export const bankTransactionPageSchema = keysetPagedEnvelope(bankTransactionSchema);

// --- payouts ---------------------------------------------------------------------------------

const payoutLineFields = {
  description: nullish(longText()),
  amount_original: nullish(money),
  payment_amount: nullish(money),
  date_transaction: nullish(isoDate),
  date_accounting: nullish(isoDate),
  currency: nullish(currencyCode),
  order: nullish(z.int32()),
  paid_record: nullish(paidRecordSchema).describe('The sales document this line settles'),
  gl_account: nullish(glAccountSchema).describe('Account of a fee or refund line'),
};

export const payoutLineSchema = z
  .object({
    id: nullish(int64),
    ...payoutLineFields,
    amount: money,
    ...matchFields,
    amount_leg: nullish(money).describe('amount in the legal currency'),
    settlement_amount_leg: nullish(money).describe('Legal-currency value at which the paid document is cleared; null when nothing is matched'),
    fx_rate: nullish(positiveRate).describe('Rate the line was converted at'),
    currency_coef: nullish(positiveRate).describe('Units the line fx_rate is quoted for'),
    fx_rate_source: paymentLegalFields.fx_rate_source,
    fx_rate_date: paymentLegalFields.fx_rate_date,
  })
  .meta({ id: 'PayoutLine', description: 'Payout line: a payment (positive) or a fee/refund (negative)' });
export type PayoutLine = z.infer<typeof payoutLineSchema>;

export const payoutLineRequestSchema = z
  .object({ id: nullish(int64), ...payoutLineFields, amount: centAmount.describe('Required, not nullable; at most two decimals') })
  .meta({ id: 'PayoutLineRequest' });
export type PayoutLineRequest = z.infer<typeof payoutLineRequestSchema>;

const payoutFields = {
  transaction_type: nullish(transactionTypeSchema),
  date_issued: nullish(isoDate),
  description: nullish(longText()),
  psp_object_id: nullish(shortText()).describe('Identifier in an external payment platform'),
  no: nullish(shortText(64)),
  copy_from_id: nullish(int64),
  fx_rate: nullish(positiveRate).describe(
    "Legal currency per currency_coef units of currency; when absent in a foreign currency, the exchange-rate table's rate in force on the payout's day, else each line's paid document's (422 fx_rate_required without either)",
  ),
  currency_coef: nullish(positiveRate).describe('Units of currency the fx_rate is quoted for (extension, default 1)'),
};

/** Payout as stored; `version` counts replacements (PUT /v1/finance/payouts/{id}). */
export const payoutSchema = z
  .object({
    ...payoutFields,
    id: id,
    uid: uuid,
    created_at: isoDateTime,
    edited_at: nullish(isoDateTime),
    is_locked: z.boolean().describe('true when the payout is final: stored locked, or posted on or before the organisation’s lock date; replacing it answers 409'),
    currency: currencyCode,
    total_amount: money,
    lines: z.array(payoutLineSchema),
    version: nullish(z.int().min(1)).describe('1 on creation, +1 on each replacement'),
    legal_currency: paymentLegalFields.legal_currency,
    total_amount_leg: nullish(money).describe('Σ of the lines amount_leg: what the bank receives in the legal currency'),
  })
  .meta({ id: 'Payout', description: 'Payout of a payment platform' });
export type Payout = z.infer<typeof payoutSchema>;

/** Body of POST /finance/payouts and PUT /finance/payouts/{id}: currency required, non-empty. */
export const payoutRequestSchema = z
  .object({
    ...payoutFields,
    id: ignoredInput(int64),
    uid: ignoredInput(z.string().max(64)),
    created_at: ignoredInput(z.string().max(64)),
    edited_at: ignoredInput(z.string().max(64)),
    is_locked: nullish(z.boolean()).describe('true stores the payout locked: it is final, and replacing it answers 409 document_locked (default false)'),
    total_amount: nullish(money).describe('When given, must equal the sum of the lines (422 otherwise)'),
    currency: currencyCode.describe('ISO 4217 currency (required, non-empty)'),
    lines: nullish(z.array(payoutLineRequestSchema).max(10_000)),
  })
  .meta({ id: 'PayoutRequest', description: 'Payout to create or replace: currency required' });
export type PayoutRequest = z.infer<typeof payoutRequestSchema>;

/** Query of GET /finance/payouts. */
export const payoutListQuerySchema = z.object({
  psp_object_id: repeatedParam(z.string().max(255)).optional().describe('Payment-platform ids to include; repeatable'),
  ...keysetPagingQuery(100),
  search: searchQuery.optional(),
  sort: sortQuery.optional(),
  updated_since: isoDateTime.optional().describe('Only payouts created or replaced at or after this instant'),
});
export type PayoutListQuery = z.output<typeof payoutListQuerySchema>;
export const payoutPageSchema = keysetPagedEnvelope(payoutSchema);

// --- bank statements (issue 17) ----------------------------------------------------------------

export const STATEMENT_FORMATS = ['auto', 'camt053', 'gpc', 'mt940'] as const;

/** Query of POST /finance/bank/statements: the file's format, recognised when `auto`. */
export const bankStatementImportQuerySchema = z.object({
  format: z
    .enum(STATEMENT_FORMATS)
    .default('auto')
    .describe('camt053 (ISO 20022 camt.053.001.02–08, UTF-8 XML), gpc (ABO: windows-1250 074/075 records), mt940 (SWIFT :20:…:62F:), or auto (default: recognised from the first bytes)'),
  currency: currencyCode.optional().describe('Currency of a GPC statement whose movements carry none; the legal currency when absent'),
});
export type BankStatementImportQuery = z.output<typeof bankStatementImportQuerySchema>;

export const statementEntryOutcomeSchema = z
  .object({
    order: z.int32().describe('Position of the entry in the statement (a batch entry counts each of its transactions)'),
    status: z
      .enum(['matched', 'unmatched', 'fee', 'duplicate', 'skipped'])
      .describe('matched: paid the document; unmatched: posted to 395 suspense; fee: posted to 568; duplicate: the same entry (account, bank reference, amount and booking day) was recorded from another statement, so it is not recorded again — entries within one statement are all kept; skipped: an entry of zero moves no money and is not recorded'),
    matched_by: nullish(z.enum(['variable_symbol', 'payment_reference', 'amount', 'payment_order', 'manual'])).describe('What the match rests on (payment_order: an item of an open payment order, by its end-to-end id, variable symbol or account and amount)'),
    amount: money,
    variable_symbol: nullish(z.string()),
    bank_reference: nullish(z.string()),
    transaction: nullish(bankTransactionSchema).describe('The recorded transaction; for a duplicate, the one recorded before'),
  })
  .meta({ id: 'StatementEntryOutcome', description: 'What happened to one entry of an imported statement' });

export const bankStatementSchema = z
  .object({
    id: id,
    format: z.enum(['camt053', 'gpc', 'mt940', 'fio']).describe('fio: fetched from Fio banka\'s API (POST /v1/settings/integrations/cz.fio)'),
    account: z.string().describe('Our account as the statement names it (IBAN or domestic number)'),
    statement_no: z.string(),
    currency: bankCurrencyCode,
    opening_balance: money,
    closing_balance: money,
    date_from: isoDate,
    date_to: isoDate,
    created_at: isoDateTime,
    entries: z.array(statementEntryOutcomeSchema),
  })
  .meta({ id: 'BankStatement', description: 'An imported bank statement and what happened to each of its entries' });
export type BankStatement = z.infer<typeof bankStatementSchema>;

export const bankStatementImportSchema = z
  .object({ statements: z.array(bankStatementSchema).describe('Every statement of the file (a camt.053 or MT940 file may hold several)') })
  .meta({ id: 'BankStatementImport', description: 'The statements of an imported file' });

export const bankStatementListQuerySchema = z.object({
  ...pagingQuery(100),
  account: z.string().max(64).optional().describe('Only statements of this account (spaces and invisible characters ignored)'),
  date_from: rangeQuery('date').optional().describe('Only statements whose period starts in this range (v, [v;], [;v] or [a;b]); a start after the latest date_to asked for is 400'),
  date_to: rangeQuery('date').optional().describe('Only statements whose period ends in this range (v, [v;], [;v] or [a;b])'),
});
export type BankStatementListQuery = z.output<typeof bankStatementListQuerySchema>;
export const bankStatementPageSchema = pagedEnvelope(bankStatementSchema.omit({ entries: true }).meta({ id: 'BankStatementSummary' }));

/** Body of POST /finance/bank/transactions/{id}/match: the document an unmatched transaction pays. */
export const bankTransactionMatchRequestSchema = z
  .object({ document: z.object({ type: paidRecordTypeSchema, id: int64 }).describe('The paid document (type and id)') })
  .meta({ id: 'BankTransactionMatchRequest', description: 'The document an unmatched bank transaction pays' });
export type BankTransactionMatchRequest = z.infer<typeof bankTransactionMatchRequestSchema>;

/** The statement file as the body: bytes of the format named by `format`. */
export const statementFileSchema = z.string().describe('The statement file (camt.053 XML, GPC or MT940 text)');

// --- payment orders (issue 76) ----------------------------------------------------------------

export const PAYMENT_ORDER_STATUSES = ['open', 'sent', 'completed', 'cancelled'] as const;
export const paymentOrderStatusSchema = z
  .enum(PAYMENT_ORDER_STATUSES)
  .describe('open: made, not yet sent to the bank (may be cancelled); sent: marked as sent, or a payment of it arrived; completed: every bill in it paid; cancelled');

/** An account of ours or a vendor's, as a payment order names it. */
export const paymentOrderAccountSchema = z
  .object({
    account_number: nullish(shortText(64)).describe('Czech domestic `[prefix-]number/bank code`'),
    iban: nullish(shortText(42)),
    bic: nullish(shortText(11)),
  })
  .meta({ id: 'PaymentOrderAccount', description: 'A bank account: a Czech domestic number, an IBAN, or both' });

export const paymentOrderItemSchema = z
  .object({
    bill_id: id,
    bill_no: z.string(),
    vendor_doc_no: z.string().nullable(),
    vendor_name: z.string(),
    amount: money.describe("What is paid: the bill's amount_due when the order was made, in the order's currency"),
    account: paymentOrderAccountSchema.describe("The vendor's account: the bill's bank_account_number, else the contact's first account"),
    variable_symbol: z.string().nullable().describe("The bill's payment reference when it is 1–10 digits"),
    constant_symbol: z.string().nullable(),
    specific_symbol: z.string().nullable(),
    message: z.string().nullable().describe('For the vendor (the remittance information): their document number'),
    end_to_end_id: z.string().describe('EndToEndId of the pain.001 transaction (`/VS…/SS…/KS…` for a Czech domestic payment), returned by the bank on the statement'),
    risk_accepted: z.boolean().describe("The bill's vendor check said risk (§109 of the VAT Act) and the order was made with accept_risk"),
    status: z.enum(['ordered', 'paid', 'cancelled']).describe('ordered: waiting for the bank; paid: a payment of at least the amount was matched to the bill; cancelled: with its order'),
    amount_paid: money.describe('Paid to the bill since the order was made'),
  })
  .meta({ id: 'PaymentOrderItem', description: 'One bill of a payment order' });

export const paymentOrderSchema = z
  .object({
    id: id,
    status: paymentOrderStatusSchema,
    version: z.int32().describe('1 when made, +1 with every change (the version of finance.payment_order.updated)'),
    currency: currencyCode,
    execution_date: isoDate.describe('The day the bank is to pay (ReqdExctnDt)'),
    total_amount: money.describe('Σ items[].amount (CtrlSum)'),
    from_account: paymentOrderAccountSchema.describe('Our account the bills are paid from'),
    message_id: z.string().describe('MsgId of the pain.001 message'),
    items: z.array(paymentOrderItemSchema),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    sent_at: isoDateTime.nullable(),
    completed_at: isoDateTime.nullable(),
    cancelled_at: isoDateTime.nullable(),
  })
  .meta({ id: 'PaymentOrder', description: 'Bills to pay, as one batch for the bank: JSON, ISO 20022 pain.001.001.03 (Accept: application/xml) or the Czech ABO file (?format=abo)' });
export type PaymentOrder = z.infer<typeof paymentOrderSchema>;

export const paymentOrderRequestSchema = z
  .object({
    bill_ids: z
      .array(id)
      .min(1)
      .max(500)
      .refine((ids) => new Set(ids).size === ids.length, { message: 'each bill once' })
      .describe('The bills to pay (1–500, each once), all in one currency: each is paid its amount_due'),
    execution_date: isoDate.describe('The day the bank is to pay'),
    from_account: nullish(paymentOrderAccountSchema).describe("Our account to pay from; the organisation's bank account when absent"),
    constant_symbol: nullish(z.string().regex(/^\d{1,4}$/, 'a constant symbol is 1–4 digits')).describe('Czech constant symbol for every payment (e.g. 0308 services); none when absent'),
    accept_risk: nullish(z.boolean()).describe("true: pay bills whose vendor check says risk (§109 of the VAT Act: an unreliable payer, an unpublished account above the limit); otherwise they are 422"),
  })
  .meta({ id: 'PaymentOrderRequest', description: 'Bills to put in one payment order' });
export type PaymentOrderRequest = z.infer<typeof paymentOrderRequestSchema>;

export const PAYMENT_ORDER_FORMATS = ['json', 'pain.001', 'abo'] as const;
export const paymentOrderGetQuerySchema = z.object({
  format: z
    .enum(PAYMENT_ORDER_FORMATS)
    .optional()
    .describe('json; pain.001 (ISO 20022 pain.001.001.03 XML, also chosen by Accept: application/xml); abo (the Czech domestic batch file, KPC: CZK from a Czech account)'),
});
export type PaymentOrderGetQuery = z.output<typeof paymentOrderGetQuerySchema>;

export const paymentOrderListQuerySchema = z.object({
  ...pagingQuery(100),
  status: repeatedParam(paymentOrderStatusSchema).optional().describe('Statuses to include; repeatable'),
  bill_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('Only orders holding this bill'),
});
export type PaymentOrderListQuery = z.output<typeof paymentOrderListQuerySchema>;
export const paymentOrderPageSchema = pagedEnvelope(paymentOrderSchema);

// --- statements fetched from the bank: Fio banka's API (issue 78) ------------------------------

const fioToken = z.string().regex(/^[A-Za-z0-9_-]{8,128}$/, "the API token Fio's internet banking issued (letters and digits)");
const fioFields = {
  name: nullish(shortText(255)),
  account: nullish(shortText(64)).describe('The account the token is for, as its statements name it (an IBAN or number/bank code); the fetched statements must be of it'),
  interval_minutes: z.int().min(1).max(1440).default(60).describe('How often the movements are fetched (the bank answers one call per token every 30 seconds)'),
  fetch_from: nullish(isoDate).describe('The first day the first fetch asks for; today when absent'),
};

export const fioIntegrationRequestSchema = z
  .object({ token: fioToken.describe('Stored encrypted, never answered'), ...fioFields })
  .meta({ id: 'FioIntegrationRequest', description: "Fio banka's API for one account: its token, and how often its movements are fetched" });
export type FioIntegrationRequest = z.infer<typeof fioIntegrationRequestSchema>;
export const fioIntegrationReplaceSchema = z
  .object({ token: nullish(fioToken).describe('A new token; absent keeps the stored one'), ...fioFields })
  .meta({ id: 'FioIntegrationReplace', description: 'A Fio integration replaced whole; the token only when given' });
export type FioIntegrationReplace = z.infer<typeof fioIntegrationReplaceSchema>;

export const fioIntegrationSchema = z
  .object({
    id: id,
    name: z.string().nullable(),
    account: z.string().nullable(),
    interval_minutes: z.int(),
    fetch_from: isoDate,
    token: z.string().describe('Masked: the last four characters'),
    next_fetch_at: isoDateTime,
    last_fetch_at: isoDateTime.nullable().describe('The last call to the bank'),
    last_success_at: isoDateTime.nullable(),
    last_result: z
      .object({ date_from: isoDate, date_to: isoDate, movements: z.int().describe('Movements the bank answered'), recorded: z.int().describe('New ones recorded (each movement once, by its id)'), statement_id: id.nullable() })
      .nullable(),
    last_error: z.object({ at: isoDateTime, code: z.string(), message: z.string() }).nullable().describe('Why the last fetch failed; null after a success'),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'FioIntegration', description: "A Fio banka account whose movements are fetched from the bank's API and imported as statements" });
export type FioIntegration = z.infer<typeof fioIntegrationSchema>;
export const fioIntegrationListSchema = z.object({ entities: z.array(fioIntegrationSchema) }).meta({ id: 'FioIntegrationList', description: "The organisation's Fio integrations" });
