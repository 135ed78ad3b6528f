import { z } from 'zod';

/*
 * NATS request-reply between services (subjects under `rpc.`, outside every stream). Finance asks
 * the owner of a paid document whether it exists in the caller's organisation before it matches a
 * payment to it: `rpc.sales.document.lookup` (sales invoices and credit notes) and
 * `rpc.purchase.document.lookup` (vendor bills and vendor credits). The organisation is the
 * subject's last token (`rpc.sales.document.lookup.42`), never a header or the body: the server's
 * permissions decide who may publish which subject, so they decide who may ask for which organisation.
 */

export const RPC_SUBJECTS = {
  salesDocumentLookup: 'rpc.sales.document.lookup',
  purchaseDocumentLookup: 'rpc.purchase.document.lookup',
  salesDocumentFind: 'rpc.sales.document.find',
  purchaseDocumentFind: 'rpc.purchase.document.find',
  purchasePayableBills: 'rpc.purchase.bills.payable',
  settingsBankStatements: 'rpc.settings.bank.statements',
  settingsHostingIntegration: 'rpc.settings.hosting.integration',
  settingsExchangeRates: 'rpc.settings.exchange.rates',
  settingsTaxFiler: 'rpc.settings.tax_filing',
  settingsRepoRates: 'rpc.settings.repo_rates',
  salesOpenForeign: 'rpc.sales.documents.open_foreign',
  purchaseOpenForeign: 'rpc.purchase.documents.open_foreign',
  financeForeignBalances: 'rpc.finance.bank.foreign_balances',
  settingsContactResolve: 'rpc.settings.contacts.resolve',
  settingsContactMatch: 'rpc.settings.contacts.match',
  settingsVendorCheck: 'rpc.settings.registers.vendor_check',
  settingsVatNumberCheck: 'rpc.settings.registers.vat_check',
} as const;

/**
 * The audit trail each service keeps of its own writes, read by settings for `GET /v1/audit-events`
 * (`rpc.<service>.audit.events`, the query as asked with `limit` = from + take) and `/verify`
 * (`rpc.<service>.audit.verify`). Every service answers both; only settings asks.
 */
export const auditEventsSubject = (service: string) => `rpc.${service}.audit.events`;
export const auditVerifySubject = (service: string) => `rpc.${service}.audit.verify`;

export const SALES_LOOKUP_TYPES = ['sales_invoice', 'sales_credit_note', 'sales_proforma'] as const;
/** purchase_bill finds an advance bill too, answered as purchase_advance (its payments go to 314, decision 237). */
export const PURCHASE_LOOKUP_TYPES = ['purchase_bill', 'purchase_vendor_credit', 'purchase_advance'] as const;

/** As lenient as the paid record finance accepts: an id or number no document has is simply not found. */
const lookupKey = {
  id: z.int().nullish(),
  no: z.string().max(255).nullish(),
};
const giveIdOrNo = (v: { id?: number | null; no?: string | null }) => v.id != null || (v.no != null && v.no !== '');

/** Request of `rpc.sales.document.lookup`: the document type and its id or number. */
export const salesDocumentLookupRequestSchema = z
  .object({ type: z.enum(SALES_LOOKUP_TYPES), ...lookupKey })
  .refine(giveIdOrNo, { message: 'give id or no' });
export type SalesDocumentLookupRequest = z.infer<typeof salesDocumentLookupRequestSchema>;

/** Request of `rpc.purchase.document.lookup`: the document type and its id or number. */
export const purchaseDocumentLookupRequestSchema = z
  .object({ type: z.enum(PURCHASE_LOOKUP_TYPES), ...lookupKey })
  .refine(giveIdOrNo, { message: 'give id or no' });
export type PurchaseDocumentLookupRequest = z.infer<typeof purchaseDocumentLookupRequestSchema>;

/**
 * Answer of both lookups. `found: false` (unknown, or another organisation's document) carries the
 * asked type, id and no and nulls elsewhere. Amounts are in the document's currency.
 */
export const documentLookupAnswerSchema = z.object({
  found: z.boolean(),
  type: z.string().nullish(),
  id: z.int().nullish(),
  no: z.string().nullish(),
  total_amount: z.number().nullish(),
  amount_due: z.number().nullish(),
  currency: z.string().nullish(),
  contact: z.object({ id: z.int().nullish(), business_name: z.string().nullish() }).nullish(),
  // The document's rate to the legal currency (legal = value × fx_rate / currency_coef) and its total
  // in the legal currency: a payment without its own rate is converted at the document's rate, and
  // the receivable or payable is cleared at the document's legal value.
  fx_rate: z.number().nullish(),
  currency_coef: z.number().nullish(),
  total_amount_leg: z.number().nullish(),
  // A final document's advances (a sales invoice's proformas, a bill's advance bills) deducted from
  // its total, in its currency and the legal one: payments clear the rest, at the rest's legal value.
  advance_amount: z.number().nullish(),
  advance_amount_leg: z.number().nullish(),
});
export type DocumentLookupAnswer = z.infer<typeof documentLookupAnswerSchema>;

/** How a bank movement found the document it pays, in the order they are tried. */
export const MATCHED_BY = ['variable_symbol', 'payment_reference', 'amount'] as const;
export type MatchedBy = (typeof MATCHED_BY)[number];

/**
 * Request of `rpc.sales.document.find` and `rpc.purchase.document.find` (bank statements, issue
 * 17): the clues a movement carries (money in for sales' invoices, money out for purchase's bills;
 * `amount` is its size). The owner answers the one open document they point to, trying the
 * variable symbol, then the payment reference, then the amount (among the documents of
 * `contact_ids` when the counterparty account paid or was paid by them before, or of the
 * documents that name the counterparty account).
 */
export const documentFindRequestSchema = z.object({
  variable_symbol: z.string().regex(/^\d{1,10}$/).nullish(),
  payment_reference: z.string().min(1).max(140).nullish(),
  amount: z.string().regex(/^\d{1,13}(\.\d{1,2})?$/),
  currency: z.string().regex(/^[A-Z]{3}$/),
  contact_ids: z.array(z.int()).max(50).nullish(),
  counterparty_account: z.string().max(64).nullish(),
});
export type DocumentFindRequest = z.infer<typeof documentFindRequestSchema>;

/** One answer: a lookup answer and what the match rests on; `found: false` when no single document fits. */
export const documentFindAnswerSchema = documentLookupAnswerSchema.extend({ matched_by: z.enum(MATCHED_BY).nullish() });
export type DocumentFindAnswer = z.infer<typeof documentFindAnswerSchema>;

/** The movements of a statement are asked about together (one round trip per 500). */
export const DOCUMENT_FIND_BATCH = 500;
export const documentFindBatchRequestSchema = z.object({ movements: z.array(documentFindRequestSchema).min(1).max(DOCUMENT_FIND_BATCH) });
/** One answer per movement, in the order asked. */
export const documentFindBatchAnswerSchema = z.object({ answers: z.array(documentFindAnswerSchema) });

/** Request of `rpc.settings.bank.statements`: which format does a bank integration expect for this account's statements? */
export const bankStatementsExpectedRequestSchema = z.object({ account: z.string().min(1).max(64) });
/** Answer: the integration that names the account and its format, or `found: false`. */
export const bankStatementsExpectedAnswerSchema = z.object({
  found: z.boolean(),
  provider: z.string().nullish(),
  key: z.string().nullish(),
  format: z.enum(['camt053', 'gpc', 'mt940']).nullish(),
});
export type BankStatementsExpectedAnswer = z.infer<typeof bankStatementsExpectedAnswerSchema>;

/** Request of `rpc.settings.hosting.integration` (a hosting order): the integration's settings that decide its documents. */
export const hostingIntegrationAskSchema = z.object({ integration_id: z.string().min(1).max(100) });
/** Answer: whether the organisation has the integration, and when it invoices (`payment`: a proforma first, issue 75). */
export const hostingIntegrationAnswerSchema = z.object({
  found: z.boolean(),
  create_invoice_after: z.string().nullish(),
  taxes_included: z.boolean().nullish(),
});
export type HostingIntegrationAnswer = z.infer<typeof hostingIntegrationAnswerSchema>;

/**
 * Request of `rpc.settings.exchange.rates`: the rate in force of each currency on each day asked
 * (a document's tax point, a statement's booking days, a revaluation's day). Asked together, so a
 * statement of a foreign-currency account costs one round trip.
 */
export const EXCHANGE_RATE_ASKS = 1000;
export const exchangeRatesInForceRequestSchema = z.object({
  asks: z
    .array(z.object({ currency: z.string().regex(/^[A-Z]{3}$/), date: z.iso.date() }))
    .min(1)
    .max(EXCHANGE_RATE_ASKS),
});
export type ExchangeRatesInForceRequest = z.infer<typeof exchangeRatesInForceRequestSchema>;

/** One rate in force into the organisation's legal currency: `rate` of it buys `amount` units of `currency`. */
export const rateInForceSchema = z.object({
  currency: z.string(),
  amount: z.int(),
  /** Decimal text, as stored (up to ten decimals). */
  rate: z.string(),
  rate_date: z.string(),
  source: z.enum(['cnb', 'ecb', 'manual']),
});
export type RateInForce = z.infer<typeof rateInForceSchema>;

/** One answer per ask, in the order asked: null when the table holds no rate of the currency on or before the day. */
export const exchangeRatesInForceAnswerSchema = z.object({ legal_currency: z.string(), rates: z.array(rateInForceSchema.nullable()) });
export type ExchangeRatesInForceAnswer = z.infer<typeof exchangeRatesInForceAnswerSchema>;

/**
 * Request of `rpc.sales.documents.open_foreign`, `rpc.purchase.documents.open_foreign` and
 * `rpc.finance.bank.foreign_balances` (a year-end revaluation): what was open in a currency other
 * than the legal one at the end of `date`.
 */
export const openForeignRequestSchema = z.object({ date: z.iso.date() });
export type OpenForeignRequest = z.infer<typeof openForeignRequestSchema>;

/**
 * One open document: `open_amount` in its currency (a credit negative) and the legal value the
 * ledger still holds for it on its control account (311, 321): the legal total less what its
 * payments cleared, in proportion (`total_amount_leg − round(total_amount_leg × paid / total)`).
 */
export const openForeignDocumentSchema = z.object({
  type: z.enum([...SALES_LOOKUP_TYPES, ...PURCHASE_LOOKUP_TYPES]),
  id: z.int(),
  no: z.string(),
  currency: z.string(),
  open_amount: z.string(),
  open_amount_leg: z.string(),
});
export type OpenForeignDocument = z.infer<typeof openForeignDocumentSchema>;
export const openForeignDocumentsAnswerSchema = z.object({ documents: z.array(openForeignDocumentSchema) });
export type OpenForeignDocumentsAnswer = z.infer<typeof openForeignDocumentsAnswerSchema>;

/** One bank account's balance in a foreign currency at the end of the day, and its legal value as booked on 221. */
export const foreignBalanceSchema = z.object({ account_number: z.string().nullable(), currency: z.string(), balance: z.string(), balance_leg: z.string() });
export const foreignBalancesAnswerSchema = z.object({ balances: z.array(foreignBalanceSchema) });
export type ForeignBalancesAnswer = z.infer<typeof foreignBalancesAnswerSchema>;

/**
 * Request of `rpc.settings.contacts.resolve`: the contact a new document names (`contact_id`). The
 * contact is marked used (deleting it then archives it). Answered `found: false` for an id the
 * organisation has no contact under; an archived contact is found and says so.
 */
export const contactResolveRequestSchema = z.object({ id: z.int().min(1) });
export const contactResolveAnswerSchema = z.object({
  found: z.boolean(),
  contact: z.record(z.string(), z.unknown()).nullish().describe('The contact as GET /v1/contacts/{id} answers it'),
});
export type ContactResolveAnswer = z.infer<typeof contactResolveAnswerSchema>;

/**
 * Request of `rpc.settings.contacts.match` (the e-invoice import): the seller as the document names
 * it; the directory answers the contact with the same VAT number or Peppol id, or makes one of it.
 */
export const contactMatchRequestSchema = z.object({
  party: z.object({
    business_name: z.string().max(255).nullish(),
    reg_no: z.string().max(64).nullish(),
    vat_no: z.string().max(64).nullish(),
    peppol_id: z.string().max(255).nullish(),
    email: z.string().max(320).nullish(),
    address: z.record(z.string(), z.unknown()).nullish(),
  }),
  bank_account: z.string().max(64).nullish(),
});
export const contactMatchAnswerSchema = z.object({
  contact_id: z.int().nullable(),
  created: z.boolean(),
  matched_by: z.enum(['vat_no', 'peppol_id']).nullable(),
});
export type ContactMatchAnswer = z.infer<typeof contactMatchAnswerSchema>;

/**
 * Request of `rpc.settings.registers.vendor_check` (a new vendor bill, §109 of the VAT Act): the
 * vendor's VAT number, the account the bill is to be paid to and its total in the legal currency.
 * The answer is the bill's `vendor_check`.
 */
export const vendorCheckRequestSchema = z.object({
  vat_no: z.string().max(64),
  account: z.string().max(64).nullish(),
  total_leg: z.string().regex(/^-?\d{1,15}(\.\d{1,2})?$/),
});

/**
 * `rpc.settings.registers.vat_check` (an invoice with an intra-EU supply): VIES's answer for the
 * customer's VAT number, or the problem that kept it (`code` as the API would answer it).
 */
export const vatNumberCheckRequestSchema = z.object({ vat_no: z.string().max(64) });
export const vatNumberCheckAnswerSchema = z.object({
  check: z.object({ valid: z.boolean(), vat_no: z.string(), request_date: z.string(), consultation_number: z.string().nullable() }).nullable(),
  problem: z.object({ status: z.int(), code: z.string(), detail: z.string() }).nullable(),
});

/**
 * Request of `rpc.purchase.bills.payable` (a payment order, issue 76): the bills to pay. The answer
 * holds one entry per id asked, in order: what a payment order needs of each (unknown ids, and
 * other organisations' bills, are `found: false`).
 */
export const PAYABLE_BILLS_MAX = 500;
export const payableBillsRequestSchema = z.object({ ids: z.array(z.int().min(1)).min(1).max(PAYABLE_BILLS_MAX) });
export const payableBillSchema = z.object({
  id: z.int(),
  found: z.boolean(),
  /** bill, advance, advance_tax_document or vendor_credit (only bill and advance are paid by order). */
  kind: z.string().nullable(),
  no: z.string().nullable(),
  vendor_doc_no: z.string().nullable(),
  currency: z.string().nullable(),
  amount_due: z.string().nullable(),
  vendor: z.record(z.string(), z.unknown()).nullable(),
  contact_id: z.int().nullable(),
  bank_account_number: z.string().nullable(),
  payment_reference: z.string().nullable(),
  vendor_check_status: z.string().nullable(),
  vendor_check_reasons: z.array(z.string()),
});
export type PayableBill = z.infer<typeof payableBillSchema>;
export const payableBillsAnswerSchema = z.object({ bills: z.array(payableBillSchema) });
