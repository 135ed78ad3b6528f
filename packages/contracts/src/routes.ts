import { z } from 'zod';
import { accountLedgerQuerySchema, accountLedgerSchema, balanceSheetQuerySchema, balanceSheetSchema, profitAndLossQuerySchema, profitAndLossSchema } from './financial-statements.js';
import { chartAccountListQuerySchema, chartAccountPageSchema, chartAccountPathSchema, chartAccountRequestSchema, chartAccountSchema } from './chart-accounts.js';
import {
  journalEntryListQuerySchema,
  journalEntryPageSchema,
  journalEntryRequestSchema,
  journalEntryReverseSchema,
  journalEntrySchema,
  yearEndClosingListQuerySchema,
  fxRevaluationRequestSchema,
  fxRevaluationSchema,
  yearEndClosingPageSchema,
  yearEndClosingPathSchema,
  yearEndClosingRequestSchema,
  yearEndClosingSchema,
} from './journal-entries.js';
import { accountingTransactionListQuerySchema, accountingTransactionPageSchema, trialBalanceExportBodySchema, trialBalanceExportPathSchema, trialBalanceExportQuerySchema, trialBalanceExportSchema, taxPeriodQuerySchema, taxFilingQuerySchema, taxFilingListQuerySchema, taxFilingPageSchema, taxFilingRequestSchema, taxFilingSchema, vatReturnSchema, controlStatementSchema, euSalesListSchema } from './accounting.js';
import { documentWriteQuerySchema, idPathParams, renderQuery } from './common.js';
import { creditNoteAllocation, vendorCreditAllocation } from './credit-allocations.js';
import { agedBalancesQuerySchema, agedPayables, agedReceivables, customerStatementQuerySchema, customerStatementSchema } from './aged-balances.js';
import {
  bankStatementImportQuerySchema,
  bankStatementImportSchema,
  bankStatementListQuerySchema,
  bankStatementPageSchema,
  bankStatementSchema,
  bankTransactionMatchRequestSchema,
  bankTransactionListQuerySchema,
  bankTransactionPageSchema,
  bankTransactionRequestSchema,
  bankTransactionSchema,
  payoutListQuerySchema,
  payoutPageSchema,
  payoutRequestSchema,
  payoutSchema,
  statementFileSchema,
} from './finance.js';
import {
  einvoiceImportQuerySchema,
  importedDocumentSchema,
  inventoryInExportPathSchema,
  inventoryInExportQuerySchema,
  inventoryInExportSchema,
  vendorBillListQuerySchema,
  vendorBillPageSchema,
  vendorBillRequestSchema,
  vendorBillSchema,
  vendorCreditListQuerySchema,
  vendorCreditPageSchema,
  vendorCreditRequestSchema,
  vendorCreditSchema,
} from './purchase.js';
import { creditNoteCheckNoQuerySchema, creditNoteCheckNoResultSchema, creditNoteListQuerySchema, creditNotePageSchema, creditNoteRequestSchema, creditNoteSchema, invoiceListQuerySchema, invoicePageSchema, invoiceRequestSchema, invoiceSchema } from './sales.js';
import { itemListQuerySchema, itemPageSchema, itemRequestSchema, itemSalesRateQuerySchema, itemSalesRateSchema, itemSchema, numberSeriesListQuerySchema, numberSeriesPageSchema, numberSeriesRequestSchema, numberSeriesSchema, priceListRequestSchema, priceListSchema } from './catalogue.js';
import { emailInvoiceQuerySchema, emailListQuerySchema, emailListSchema, emailRequestSchema, invoiceEmailResultSchema } from './emails.js';
import { taxFilingSettingsRequestSchema, taxFilingSettingsSchema } from './tax-filing.js';
import { reminderLinePageSchema, reminderListQuerySchema, reminderRunRequestSchema, reminderRunResultSchema, reminderSettingsRequestSchema, reminderSettingsSchema } from './reminders.js';
import { auditEventListQuerySchema, auditEventPageSchema, auditVerificationSchema } from './audit.js';
import { ATTACHMENT_MEDIA_TYPES, attachmentContentSchema, attachmentListQuerySchema, attachmentPageSchema, attachmentPathSchema, attachmentSchema, attachmentUploadSchema } from './attachments.js';
import { recurringInvoiceDeletedSchema, recurringInvoiceListQuerySchema, recurringInvoicePageSchema, recurringInvoiceRequestSchema, recurringInvoiceResumeQuerySchema, recurringInvoiceSchema } from './recurring-invoices.js';
import { repoRateFileSchema, repoRateHistorySchema, repoRateImportQuerySchema, repoRateImportSchema, repoRatePathSchema, repoRateRequestSchema } from './repo-rates.js';
import { exchangeRateFileSchema, exchangeRateImportSchema, exchangeRatePathSchema, exchangeRateQuerySchema, exchangeRateRequestSchema, exchangeRateSchema, exchangeRateTableSchema } from './exchange-rates.js';
import { complianceEvaluateBodySchema, complianceEvaluateResultSchema, complianceRecordSchema } from './compliance.js';
import {
  apiKeyCreatedSchema,
  apiKeyCreateSchema,
  apiKeyDeletedSchema,
  apiKeyListQuerySchema,
  apiKeyPageSchema,
  apiKeySchema,
  apiKeyUpdateSchema,
  bankIntegrationRequestSchema,
  bankIntegrationSchema,
  clientDeletedSchema,
  clientListQuerySchema,
  clientPageSchema,
  clientRecordSchema,
  clientRequestSchema,
  clientSchema,
  deliveryConditionListQuerySchema,
  deliveryConditionPageSchema,
  hostingIntegrationPathSchema,
  hostingIntegrationRequestSchema,
  hostingIntegrationSchema,
  organisationCreatedSchema,
  organisationCreateSchema,
  organisationSchema,
  organisationUpdateSchema,
  templateListQuerySchema,
  templateListSchema,
  templateRequestSchema,
  templateSchema,
  tokenRequestSchema,
  tokenResponseSchema,
} from './settings.js';
import {
  webhookCreateSchema,
  webhookDeletedSchema,
  webhookDeliveryListQuerySchema,
  webhookDeliveryPageSchema,
  webhookDeliveryPathSchema,
  webhookDeliverySchema,
  webhookListQuerySchema,
  webhookPageSchema,
  webhookSchema,
  webhookUpdateSchema,
  webhookWithSecretSchema,
} from './webhooks.js';

/** Body of an HTML rendering (text/html). */
export const htmlDocumentSchema = z.string().describe('HTML document');
/** An e-invoice (application/xml). */
export const xmlDocumentSchema = z.string().describe('XML document');
/** Body of a PDF rendering (application/pdf). */
export const pdfDocumentSchema = z.string().describe('PDF document (binary)');

export type ServiceName = 'sales' | 'purchase' | 'finance' | 'accounting' | 'settings';
export type ScopeArea = ServiceName;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One public operation. The gateway routes and authorises by this table; the OpenAPI document
 * is generated from it. `path` uses Hono syntax (`:id`) and is relative to `/v1`.
 */
export interface RouteSpec {
  method: HttpMethod;
  path: string;
  service: ServiceName;
  /** Scope area; GET needs `<area>:read`, other methods `<area>:write` (`admin` grants all). */
  scope: ScopeArea;
  operationId: string;
  summary: string;
  /** Spec endpoint number (1–26) or undefined for a architecture §1 extension. */
  specNo?: number;
  tag: string;
  successStatus?: number;
  /** Media types of the success response (JSON unless stated). */
  produces?: readonly string[];
  /** Path parameters (coerced from text). */
  pathParams?: z.ZodObject;
  /** Query parameters (coerced from text; repeatable ones accept one value or an array). */
  query?: z.ZodObject;
  /** Query parameters that may be given several times (`?sort=a&sort=-b`); the others keep their last value. */
  repeatable?: readonly string[];
  /** Request body (JSON). */
  body?: z.ZodType;
  /** Success response body (JSON, or the text/binary body of `produces`). */
  response?: z.ZodType;
  /** Open operations need no credential (only the token endpoint). */
  open?: boolean;
  /** Request body media types beyond the JSON family (the token endpoint also takes a form). */
  consumes?: readonly string[];
  /** Authorised only by the operator token (`OPERATOR_TOKEN`), not by API keys or access tokens. */
  operatorOnly?: boolean;
  /** A request without a body is 400 (otherwise it is read as `{}`). */
  bodyRequired?: boolean;
}

/** Static segments before parameters, so `/credit-notes/check-no` wins over `/credit-notes/:id`. */
export function routingOrder<R extends RouteSpec>(routes: readonly R[]): R[] {
  const params = (r: R) => (r.path.match(/:/g) ?? []).length;
  return [...routes].sort((a, b) => params(a) - params(b));
}

const DECLARED = [
  // settings: API keys, clients, templates, delivery conditions, integrations
  { method: 'GET', path: '/settings/security/api-keys', service: 'settings', scope: 'settings', operationId: 'listApiKeys', summary: 'List API keys', specNo: 1, tag: 'API keys', query: apiKeyListQuerySchema, response: apiKeyPageSchema },
  { method: 'POST', path: '/settings/security/api-keys', service: 'settings', scope: 'settings', operationId: 'createApiKey', summary: 'Create an API key (the secret is returned once)', specNo: 2, tag: 'API keys', body: apiKeyCreateSchema, response: apiKeyCreatedSchema },
  { method: 'GET', path: '/settings/security/api-keys/:id', service: 'settings', scope: 'settings', operationId: 'getApiKey', summary: 'Read an API key', specNo: 3, tag: 'API keys', pathParams: idPathParams, response: apiKeySchema },
  { method: 'PUT', path: '/settings/security/api-keys/:id', service: 'settings', scope: 'settings', operationId: 'updateApiKey', summary: 'Change name, scopes or expiry of an API key', specNo: 4, tag: 'API keys', pathParams: idPathParams, body: apiKeyUpdateSchema, response: apiKeySchema },
  { method: 'DELETE', path: '/settings/security/api-keys/:id', service: 'settings', scope: 'settings', operationId: 'deleteApiKey', summary: 'Delete an API key', specNo: 5, tag: 'API keys', pathParams: idPathParams, response: apiKeyDeletedSchema },
  { method: 'POST', path: '/settings/security/api-keys/:id/revoke', service: 'settings', scope: 'settings', operationId: 'revokeApiKey', summary: 'Revoke an API key', specNo: 6, tag: 'API keys', pathParams: idPathParams, response: apiKeySchema },
  { method: 'PUT', path: '/settings/integrations/cz/hosting/:id', service: 'settings', scope: 'settings', operationId: 'putHostingIntegration', summary: 'Configure the hosting-provider integration', specNo: 7, tag: 'Integrations', pathParams: hostingIntegrationPathSchema, body: hostingIntegrationRequestSchema, response: hostingIntegrationSchema },
  { method: 'POST', path: '/settings/templates', service: 'settings', scope: 'settings', operationId: 'saveTemplate', bodyRequired: true, summary: 'Save a document template', specNo: 8, tag: 'Templates', body: templateRequestSchema, response: templateSchema },
  { method: 'GET', path: '/lists/all/templates', service: 'settings', scope: 'settings', operationId: 'listTemplates', summary: 'List templates', specNo: 9, tag: 'Templates', query: templateListQuerySchema, response: templateListSchema },
  { method: 'GET', path: '/accounting/transactions', service: 'accounting', scope: 'accounting', operationId: 'listAccountingTransactions', repeatable: ['sort'], summary: 'List accounting transactions with their ledger rows', specNo: 10, tag: 'Ledger', query: accountingTransactionListQuerySchema, response: accountingTransactionPageSchema },
  { method: 'GET', path: '/CRM/emails', service: 'sales', scope: 'sales', operationId: 'listEmails', summary: 'List e-mail records', specNo: 11, tag: 'E-mail', query: emailListQuerySchema, response: emailListSchema },
  { method: 'GET', path: '/settings/delivery-conditions', service: 'settings', scope: 'settings', operationId: 'listDeliveryConditions', repeatable: ['sort'], summary: 'List delivery conditions (Incoterms 2020)', specNo: 12, tag: 'Delivery conditions', query: deliveryConditionListQuerySchema, response: deliveryConditionPageSchema },
  { method: 'POST', path: '/settings/security/clients', service: 'settings', scope: 'settings', operationId: 'createClient', bodyRequired: true, summary: 'Create an API client (the secret is returned once)', specNo: 13, tag: 'API clients', body: clientRequestSchema, response: clientSchema },
  { method: 'POST', path: '/sales/credit-notes', service: 'sales', scope: 'sales', operationId: 'createCreditNote', summary: 'Create a sales credit note', specNo: 14, tag: 'Credit notes', query: documentWriteQuerySchema, body: creditNoteRequestSchema, response: creditNoteSchema },
  { method: 'POST', path: '/purchase/vendor-credits', service: 'purchase', scope: 'purchase', operationId: 'createVendorCredit', summary: 'Create a vendor credit', specNo: 15, tag: 'Vendor credits', query: documentWriteQuerySchema, body: vendorCreditRequestSchema, response: vendorCreditSchema },
  { method: 'POST', path: '/finance/bank/transactions', service: 'finance', scope: 'finance', operationId: 'recordBankTransaction', summary: 'Record a bank transaction', specNo: 16, tag: 'Bank transactions', body: bankTransactionRequestSchema, response: bankTransactionSchema },
  { method: 'POST', path: '/sales/invoices/compliance/evaluate', service: 'sales', scope: 'sales', operationId: 'evaluateInvoiceCompliance', summary: 'Evaluate delivery and reporting compliance of invoices', specNo: 17, tag: 'Compliance', successStatus: 202, body: complianceEvaluateBodySchema, response: complianceEvaluateResultSchema },
  { method: 'POST', path: '/sales/invoices/:id/email', service: 'sales', scope: 'sales', operationId: 'emailInvoice', summary: 'Send an invoice by e-mail', specNo: 18, tag: 'E-mail', pathParams: idPathParams, query: emailInvoiceQuerySchema, body: emailRequestSchema, response: invoiceEmailResultSchema },
  { method: 'PUT', path: '/finance/payouts/:id', service: 'finance', scope: 'finance', operationId: 'replacePayout', summary: 'Replace a payout', specNo: 19, tag: 'Payouts', pathParams: idPathParams, body: payoutRequestSchema, response: payoutSchema },
  { method: 'GET', path: '/finance/payouts', service: 'finance', scope: 'finance', operationId: 'listPayouts', repeatable: ['psp_object_id', 'sort'], summary: 'List payouts', specNo: 20, tag: 'Payouts', query: payoutListQuerySchema, response: payoutPageSchema },
  { method: 'GET', path: '/lists/items/:id/rates/sales', service: 'sales', scope: 'sales', operationId: 'getItemSalesRate', summary: 'Look up the sales rate of an item', specNo: 21, tag: 'Items', pathParams: idPathParams, query: itemSalesRateQuerySchema, response: itemSalesRateSchema },
  { method: 'GET', path: '/inventory/in/export/:format', service: 'purchase', scope: 'purchase', operationId: 'exportInventoryIn', repeatable: ['payment_status', 'sort'], summary: 'Export received purchase documents', specNo: 22, tag: 'Inventory', produces: ['application/json', 'text/csv'], pathParams: inventoryInExportPathSchema, query: inventoryInExportQuerySchema, response: inventoryInExportSchema },
  { method: 'GET', path: '/sales/credit-notes/check-no', service: 'sales', scope: 'sales', operationId: 'checkCreditNoteNo', repeatable: ['exclude_id'], summary: 'Check whether a credit-note number exists', specNo: 23, tag: 'Credit notes', query: creditNoteCheckNoQuerySchema, response: creditNoteCheckNoResultSchema },
  { method: 'GET', path: '/sales/credit-notes/:id/html', service: 'sales', scope: 'sales', operationId: 'getCreditNoteHtml', summary: 'Render a credit note as HTML', specNo: 24, tag: 'Credit notes', produces: ['text/html'], pathParams: idPathParams, query: renderQuery, response: htmlDocumentSchema },
  { method: 'POST', path: '/reporting/financial/trial-balance/:book_id/export/:format', service: 'accounting', scope: 'accounting', operationId: 'exportTrialBalance', summary: 'Export the trial balance of a book', specNo: 25, tag: 'Reporting', produces: ['application/json', 'text/csv'], pathParams: trialBalanceExportPathSchema, query: trialBalanceExportQuerySchema, body: trialBalanceExportBodySchema, response: trialBalanceExportSchema },
  { method: 'GET', path: '/reporting/tax/vat-return', service: 'accounting', scope: 'accounting', operationId: 'getVatReturn', summary: "The VAT return of a period, from the ledger; with Accept: application/xml or format=epo, the tax office's EPO XML filing (DPHDP3)", tag: 'Reporting', produces: ['application/json', 'application/xml'], query: taxFilingQuerySchema, response: vatReturnSchema },
  { method: 'GET', path: '/reporting/tax/control-statement', service: 'accounting', scope: 'accounting', operationId: 'getControlStatement', summary: "The VAT control statement of a period, from the ledger; with Accept: application/xml or format=epo, the tax office's EPO XML filing (DPHKH1)", tag: 'Reporting', produces: ['application/json', 'application/xml'], query: taxFilingQuerySchema, response: controlStatementSchema },
  { method: 'GET', path: '/reporting/tax/eu-sales-list', service: 'accounting', scope: 'accounting', operationId: 'getEuSalesList', summary: "The EC Sales List of a period, from the ledger; with Accept: application/xml or format=epo, the tax office's EPO XML filing (DPHSHV)", tag: 'Reporting', produces: ['application/json', 'application/xml'], query: taxFilingQuerySchema, response: euSalesListSchema },
  { method: 'GET', path: '/reporting/tax/filings', service: 'accounting', scope: 'accounting', operationId: 'listTaxFilings', summary: 'The EPO XML filings kept as filed, newest first, each with its SHA-256', tag: 'Reporting', query: taxFilingListQuerySchema, response: taxFilingPageSchema },
  { method: 'POST', path: '/reporting/tax/filings', service: 'accounting', scope: 'accounting', operationId: 'fileTaxFiling', bodyRequired: true, summary: "File a form for an ended period: the EPO XML produced from the ledger and kept as filed (a follow-up's difference is against the filing before it); the reports' format=epo only previews", tag: 'Reporting', body: taxFilingRequestSchema, response: taxFilingSchema },
  // the financial statements and the ledger of an account (decisions 167, 168)
  { method: 'GET', path: '/reporting/financial/profit-and-loss', service: 'accounting', scope: 'accounting', operationId: 'getProfitAndLoss', summary: 'The profit and loss account of a period, from the ledger', tag: 'Reporting', query: profitAndLossQuerySchema, response: profitAndLossSchema },
  { method: 'GET', path: '/reporting/financial/balance-sheet', service: 'accounting', scope: 'accounting', operationId: 'getBalanceSheet', summary: 'The balance sheet at the end of a day, from the ledger', tag: 'Reporting', query: balanceSheetQuerySchema, response: balanceSheetSchema },
  { method: 'GET', path: '/reporting/financial/account-ledger', service: 'accounting', scope: 'accounting', operationId: 'getAccountLedger', summary: 'The postings of an account in a period with its running balance', tag: 'Reporting', query: accountLedgerQuerySchema, response: accountLedgerSchema },
  // the chart of accounts (decision 166)
  { method: 'GET', path: '/accounting/accounts', service: 'accounting', scope: 'accounting', operationId: 'listAccounts', summary: 'List the chart of accounts', tag: 'Ledger', query: chartAccountListQuerySchema, response: chartAccountPageSchema },
  { method: 'GET', path: '/accounting/accounts/:number', service: 'accounting', scope: 'accounting', operationId: 'getAccount', summary: 'Read an account of the chart', tag: 'Ledger', pathParams: chartAccountPathSchema, response: chartAccountSchema },
  { method: 'PUT', path: '/accounting/accounts/:number', service: 'accounting', scope: 'accounting', operationId: 'saveAccount', bodyRequired: true, summary: 'Add an account to the chart (an analytic account such as 221.001), or rename one', tag: 'Ledger', pathParams: chartAccountPathSchema, body: chartAccountRequestSchema, response: chartAccountSchema },
  // manual journal entries (decision 165): what no document posts, straight to the ledger
  { method: 'POST', path: '/accounting/journal-entries', service: 'accounting', scope: 'accounting', operationId: 'createJournalEntry', bodyRequired: true, summary: 'Post a manual journal entry (an opening balance, an accrual, depreciation, a correction) to the ledger', tag: 'Journal entries', body: journalEntryRequestSchema, response: journalEntrySchema },
  { method: 'GET', path: '/accounting/journal-entries', service: 'accounting', scope: 'accounting', operationId: 'listJournalEntries', repeatable: ['sort'], summary: 'List journal entries (kind=manual: those posted by hand)', tag: 'Journal entries', query: journalEntryListQuerySchema, response: journalEntryPageSchema },
  { method: 'GET', path: '/accounting/journal-entries/:id', service: 'accounting', scope: 'accounting', operationId: 'getJournalEntry', summary: 'Read a journal entry', tag: 'Journal entries', pathParams: idPathParams, response: journalEntrySchema },
  { method: 'POST', path: '/accounting/journal-entries/:id/reverse', service: 'accounting', scope: 'accounting', operationId: 'reverseJournalEntry', summary: 'Reverse a journal entry: a new entry with every line on the other side, on its day or a later one (409 when it is already reversed or is itself a reversal)', tag: 'Journal entries', pathParams: idPathParams, body: journalEntryReverseSchema, response: journalEntrySchema },
  // the closing of a year (decision 170): classes 5 and 6 to 710, the result to 431, as one journal entry
  { method: 'POST', path: '/accounting/year-end-closings', service: 'accounting', scope: 'accounting', operationId: 'closeYear', bodyRequired: true, summary: 'Close a year: every account of classes 5 and 6 closed to 710 on 31 December and the result carried to 431 (the year must be within the lock date)', tag: 'Journal entries', body: yearEndClosingRequestSchema, response: yearEndClosingSchema },
  { method: 'GET', path: '/accounting/year-end-closings', service: 'accounting', scope: 'accounting', operationId: 'listYearEndClosings', summary: 'List the closings of years, newest first, reopened ones included', tag: 'Journal entries', query: yearEndClosingListQuerySchema, response: yearEndClosingPageSchema },
  { method: 'POST', path: '/accounting/year-end-closings/:year/reopen', service: 'accounting', scope: 'accounting', operationId: 'reopenYear', summary: 'Reopen a closed year: its closing entry reversed on the same day, so the year can be corrected and closed again', tag: 'Journal entries', pathParams: yearEndClosingPathSchema, response: yearEndClosingSchema },
  { method: 'POST', path: '/accounting/fx-revaluations', service: 'accounting', scope: 'accounting', operationId: 'revalueForeignItems', bodyRequired: true, summary: 'Revalue the open foreign-currency receivables, payables and bank balances at the rates in force on a day (differences to 563 and 663), reversed on the next day; asking again for a day answers the revaluation made', tag: 'Journal entries', body: fxRevaluationRequestSchema, response: fxRevaluationSchema },
  { method: 'POST', path: '/settings/integrations/sk.bank_a', service: 'settings', scope: 'settings', operationId: 'createBankIntegration', summary: 'Configure the bank integration', specNo: 26, tag: 'Integrations', body: bankIntegrationRequestSchema, response: bankIntegrationSchema },

  // architecture §1 extensions
  { method: 'POST', path: '/sales/invoices', service: 'sales', scope: 'sales', operationId: 'createInvoice', summary: 'Create a sales invoice', tag: 'Invoices', query: documentWriteQuerySchema, body: invoiceRequestSchema, response: invoiceSchema },
  { method: 'GET', path: '/sales/invoices', service: 'sales', scope: 'sales', operationId: 'listInvoices', repeatable: ['sort', 'payment_status'], summary: 'List sales invoices', tag: 'Invoices', query: invoiceListQuerySchema, response: invoicePageSchema },
  { method: 'GET', path: '/sales/invoices/:id', service: 'sales', scope: 'sales', operationId: 'getInvoice', summary: 'Read a sales invoice', tag: 'Invoices', pathParams: idPathParams, response: invoiceSchema },
  { method: 'GET', path: '/sales/invoices/:id/html', service: 'sales', scope: 'sales', operationId: 'getInvoiceHtml', summary: 'Render an invoice as HTML', tag: 'Invoices', produces: ['text/html'], pathParams: idPathParams, query: renderQuery, response: htmlDocumentSchema },
  { method: 'GET', path: '/sales/invoices/:id/pdf', service: 'sales', scope: 'sales', operationId: 'getInvoicePdf', summary: 'Render an invoice as PDF', tag: 'Invoices', produces: ['application/pdf'], pathParams: idPathParams, query: renderQuery, response: pdfDocumentSchema },
  { method: 'GET', path: '/sales/invoices/:id/compliance', service: 'sales', scope: 'sales', operationId: 'getInvoiceCompliance', summary: 'Read the latest compliance evaluation of an invoice', tag: 'Compliance', pathParams: idPathParams, response: complianceRecordSchema },
  { method: 'GET', path: '/sales/credit-notes', service: 'sales', scope: 'sales', operationId: 'listCreditNotes', repeatable: ['sort', 'payment_status'], summary: 'List sales credit notes', tag: 'Credit notes', query: creditNoteListQuerySchema, response: creditNotePageSchema },
  { method: 'GET', path: '/sales/credit-notes/:id', service: 'sales', scope: 'sales', operationId: 'getCreditNote', summary: 'Read a sales credit note', tag: 'Credit notes', pathParams: idPathParams, response: creditNoteSchema },
  { method: 'GET', path: '/sales/invoices/:id/ubl', service: 'sales', scope: 'sales', operationId: 'getInvoiceUbl', summary: 'The invoice as a Peppol BIS Billing 3.0 document (UBL 2.1); 422 names each Peppol rule the invoice does not meet yet', tag: 'E-invoices', produces: ['application/xml'], pathParams: idPathParams, response: xmlDocumentSchema },
  { method: 'GET', path: '/sales/invoices/:id/isdoc', service: 'sales', scope: 'sales', operationId: 'getInvoiceIsdoc', summary: 'The invoice as an ISDOC 6.0.2 document (the Czech e-invoice, DocumentType 1); amounts in the legal currency, and in the invoice currency too when it differs', tag: 'E-invoices', produces: ['application/xml'], pathParams: idPathParams, response: xmlDocumentSchema },
  { method: 'GET', path: '/sales/credit-notes/:id/ubl', service: 'sales', scope: 'sales', operationId: 'getCreditNoteUbl', summary: 'The credit note as a Peppol BIS Billing 3.0 document (UBL 2.1 CreditNote referring to the credited invoice)', tag: 'E-invoices', produces: ['application/xml'], pathParams: idPathParams, response: xmlDocumentSchema },
  { method: 'GET', path: '/sales/credit-notes/:id/isdoc', service: 'sales', scope: 'sales', operationId: 'getCreditNoteIsdoc', summary: 'The credit note as an ISDOC 6.0.2 document (DocumentType 2 with the reference to the credited invoice); 422 when it credits no invoice', tag: 'E-invoices', produces: ['application/xml'], pathParams: idPathParams, response: xmlDocumentSchema },
  { method: 'GET', path: '/sales/credit-notes/:id/pdf', service: 'sales', scope: 'sales', operationId: 'getCreditNotePdf', summary: 'Render a credit note as PDF', tag: 'Credit notes', produces: ['application/pdf'], pathParams: idPathParams, query: renderQuery, response: pdfDocumentSchema },
  // credits applied to open documents of the same party (decision 148)
  { method: 'POST', path: '/sales/credit-notes/:id/allocations', service: 'sales', scope: 'sales', operationId: 'allocateCreditNote', summary: 'Apply a credit note to an open invoice of the same customer: both amounts due fall by the amount', tag: 'Credit notes', pathParams: idPathParams, body: creditNoteAllocation.request, bodyRequired: true, response: creditNoteAllocation.allocation },
  { method: 'GET', path: '/sales/credit-notes/:id/allocations', service: 'sales', scope: 'sales', operationId: 'listCreditNoteAllocations', summary: 'List the allocations of a credit note, removed ones included', tag: 'Credit notes', pathParams: idPathParams, query: creditNoteAllocation.listQuery, response: creditNoteAllocation.page },
  { method: 'GET', path: '/sales/invoices/:id/allocations', service: 'sales', scope: 'sales', operationId: 'listInvoiceAllocations', summary: 'List the credit notes applied to an invoice (their allocations, removed ones included)', tag: 'Invoices', pathParams: idPathParams, query: creditNoteAllocation.listQuery, response: creditNoteAllocation.page },
  { method: 'DELETE', path: '/sales/credit-notes/:id/allocations/:allocation_id', service: 'sales', scope: 'sales', operationId: 'removeCreditNoteAllocation', summary: 'Take an allocation back: both amounts due return to what they were without it', tag: 'Credit notes', pathParams: creditNoteAllocation.path, response: creditNoteAllocation.allocation },
  { method: 'POST', path: '/purchase/vendor-credits/:id/allocations', service: 'purchase', scope: 'purchase', operationId: 'allocateVendorCredit', summary: 'Apply a vendor credit to an open bill of the same vendor: both amounts due fall by the amount', tag: 'Vendor credits', pathParams: idPathParams, body: vendorCreditAllocation.request, bodyRequired: true, response: vendorCreditAllocation.allocation },
  { method: 'GET', path: '/purchase/vendor-credits/:id/allocations', service: 'purchase', scope: 'purchase', operationId: 'listVendorCreditAllocations', summary: 'List the allocations of a vendor credit, removed ones included', tag: 'Vendor credits', pathParams: idPathParams, query: vendorCreditAllocation.listQuery, response: vendorCreditAllocation.page },
  { method: 'GET', path: '/purchase/bills/:id/allocations', service: 'purchase', scope: 'purchase', operationId: 'listBillAllocations', summary: 'List the vendor credits applied to a bill (their allocations, removed ones included)', tag: 'Vendor bills', pathParams: idPathParams, query: vendorCreditAllocation.listQuery, response: vendorCreditAllocation.page },
  { method: 'DELETE', path: '/purchase/vendor-credits/:id/allocations/:allocation_id', service: 'purchase', scope: 'purchase', operationId: 'removeVendorCreditAllocation', summary: 'Take an allocation back: both amounts due return to what they were without it', tag: 'Vendor credits', pathParams: vendorCreditAllocation.path, response: vendorCreditAllocation.allocation },
  { method: 'POST', path: '/purchase/bills', service: 'purchase', scope: 'purchase', operationId: 'createBill', summary: 'Create a vendor bill', tag: 'Vendor bills', query: documentWriteQuerySchema, body: vendorBillRequestSchema, response: vendorBillSchema },
  { method: 'POST', path: '/purchase/bills/import', service: 'purchase', scope: 'purchase', operationId: 'importBill', bodyRequired: true, summary: 'Import a received e-invoice (UBL 2.1 Invoice or CreditNote, or ISDOC 6.0.2) as a vendor bill or vendor credit', tag: 'E-invoices', consumes: ['application/xml'], query: einvoiceImportQuerySchema, body: xmlDocumentSchema, response: importedDocumentSchema },
  { method: 'GET', path: '/purchase/bills', service: 'purchase', scope: 'purchase', operationId: 'listBills', repeatable: ['payment_status', 'sort'], summary: 'List vendor bills', tag: 'Vendor bills', query: vendorBillListQuerySchema, response: vendorBillPageSchema },
  { method: 'GET', path: '/purchase/vendor-credits', service: 'purchase', scope: 'purchase', operationId: 'listVendorCredits', repeatable: ['payment_status', 'sort'], summary: 'List vendor credits', tag: 'Vendor credits', query: vendorCreditListQuerySchema, response: vendorCreditPageSchema },
  { method: 'GET', path: '/sales/reports/aged-receivables', service: 'sales', scope: 'sales', operationId: 'getAgedReceivables', summary: 'What customers owe, by how long it is overdue', tag: 'Reporting', query: agedBalancesQuerySchema, response: agedReceivables.page },
  { method: 'GET', path: '/sales/reports/customer-statement', service: 'sales', scope: 'sales', operationId: 'getCustomerStatement', summary: "A customer's statement of account for a period", tag: 'Reporting', query: customerStatementQuerySchema, response: customerStatementSchema },
  { method: 'GET', path: '/purchase/reports/aged-payables', service: 'purchase', scope: 'purchase', operationId: 'getAgedPayables', summary: 'What is owed to vendors, by how long it is overdue', tag: 'Reporting', query: agedBalancesQuerySchema, response: agedPayables.page },
  { method: 'GET', path: '/purchase/bills/:id', service: 'purchase', scope: 'purchase', operationId: 'getBill', summary: 'Read a vendor bill', tag: 'Vendor bills', pathParams: idPathParams, response: vendorBillSchema },
  { method: 'GET', path: '/purchase/vendor-credits/:id', service: 'purchase', scope: 'purchase', operationId: 'getVendorCredit', summary: 'Read a vendor credit', tag: 'Vendor credits', pathParams: idPathParams, response: vendorCreditSchema },
  { method: 'GET', path: '/finance/bank/transactions', service: 'finance', scope: 'finance', operationId: 'listBankTransactions', repeatable: ['sort'], summary: 'List bank transactions', tag: 'Bank transactions', query: bankTransactionListQuerySchema, response: bankTransactionPageSchema },
  { method: 'POST', path: '/finance/bank/transactions/:id/match', service: 'finance', scope: 'finance', operationId: 'matchBankTransaction', summary: 'Match an unmatched bank transaction to the document it pays: the suspense posting is reversed and the payment applied (409 when it is already matched)', tag: 'Bank transactions', pathParams: idPathParams, body: bankTransactionMatchRequestSchema, response: bankTransactionSchema },
  { method: 'POST', path: '/finance/bank/transactions/:id/unmatch', service: 'finance', scope: 'finance', operationId: 'unmatchBankTransaction', summary: 'Take a matched bank transaction off the document it paid (a wrong match): the payment is taken back from the document and the money waits in 395 suspense until it is matched again', tag: 'Bank transactions', pathParams: idPathParams, response: bankTransactionSchema },
  { method: 'POST', path: '/finance/bank/statements', service: 'finance', scope: 'finance', operationId: 'importBankStatement', bodyRequired: true, summary: 'Import a bank statement file (camt.053, GPC or MT940): balances reconciled, each entry matched by variable symbol, payment reference or amount, fees to 568, the rest to 395 suspense; 409 when already imported', tag: 'Bank statements', consumes: ['application/xml', 'text/plain', 'application/octet-stream'], query: bankStatementImportQuerySchema, body: statementFileSchema, response: bankStatementImportSchema },
  { method: 'GET', path: '/finance/bank/statements', service: 'finance', scope: 'finance', operationId: 'listBankStatements', summary: 'List imported bank statements', tag: 'Bank statements', query: bankStatementListQuerySchema, response: bankStatementPageSchema },
  { method: 'GET', path: '/finance/bank/statements/:id', service: 'finance', scope: 'finance', operationId: 'getBankStatement', summary: 'Read an imported bank statement with what happened to each entry', tag: 'Bank statements', pathParams: idPathParams, response: bankStatementSchema },
  { method: 'POST', path: '/finance/payouts', service: 'finance', scope: 'finance', operationId: 'createPayout', summary: 'Create a payout', tag: 'Payouts', body: payoutRequestSchema, response: payoutSchema },
  { method: 'GET', path: '/finance/payouts/:id', service: 'finance', scope: 'finance', operationId: 'getPayout', summary: 'Read a payout', tag: 'Payouts', pathParams: idPathParams, response: payoutSchema },
  { method: 'POST', path: '/sales/invoices/:id/attachments', service: 'sales', scope: 'sales', operationId: 'uploadInvoiceAttachment', bodyRequired: true, summary: 'Keep a file with the invoice (multipart/form-data, one part named file): a PDF, PNG, JPEG or XML document, its type read from its bytes', tag: 'Invoices', consumes: ['multipart/form-data'], pathParams: idPathParams, body: attachmentUploadSchema, response: attachmentSchema },
  { method: 'GET', path: '/sales/invoices/:id/attachments', service: 'sales', scope: 'sales', operationId: 'listInvoiceAttachments', summary: 'List the files kept with the invoice, each with its size and SHA-256', tag: 'Invoices', pathParams: idPathParams, query: attachmentListQuerySchema, response: attachmentPageSchema },
  { method: 'GET', path: '/sales/invoices/:id/attachments/:attachment_id', service: 'sales', scope: 'sales', operationId: 'getInvoiceAttachment', summary: 'The bytes of a file kept with the invoice, as stored', tag: 'Invoices', produces: ATTACHMENT_MEDIA_TYPES, pathParams: attachmentPathSchema, response: attachmentContentSchema },
  { method: 'DELETE', path: '/sales/invoices/:id/attachments/:attachment_id', service: 'sales', scope: 'sales', operationId: 'deleteInvoiceAttachment', summary: 'Remove a file kept with the invoice while its period is open (the received e-invoice itself is kept)', tag: 'Invoices', pathParams: attachmentPathSchema, response: attachmentSchema },
  { method: 'POST', path: '/purchase/bills/:id/attachments', service: 'purchase', scope: 'purchase', operationId: 'uploadBillAttachment', bodyRequired: true, summary: 'Keep a file with the bill (multipart/form-data, one part named file): a PDF, PNG, JPEG or XML document, its type read from its bytes', tag: 'Vendor bills', consumes: ['multipart/form-data'], pathParams: idPathParams, body: attachmentUploadSchema, response: attachmentSchema },
  { method: 'GET', path: '/purchase/bills/:id/attachments', service: 'purchase', scope: 'purchase', operationId: 'listBillAttachments', summary: 'List the files kept with the bill, each with its size and SHA-256', tag: 'Vendor bills', pathParams: idPathParams, query: attachmentListQuerySchema, response: attachmentPageSchema },
  { method: 'GET', path: '/purchase/bills/:id/attachments/:attachment_id', service: 'purchase', scope: 'purchase', operationId: 'getBillAttachment', summary: 'The bytes of a file kept with the bill, as stored', tag: 'Vendor bills', produces: ATTACHMENT_MEDIA_TYPES, pathParams: attachmentPathSchema, response: attachmentContentSchema },
  { method: 'DELETE', path: '/purchase/bills/:id/attachments/:attachment_id', service: 'purchase', scope: 'purchase', operationId: 'deleteBillAttachment', summary: 'Remove a file kept with the bill while its period is open (the received e-invoice itself is kept)', tag: 'Vendor bills', pathParams: attachmentPathSchema, response: attachmentSchema },
  { method: 'PUT', path: '/settings/reminders', service: 'sales', scope: 'settings', operationId: 'putReminderSettings', bodyRequired: true, summary: 'Set the payment reminder levels: days after due, fee per currency, e-mail per language; replaced whole', tag: 'Payment reminders', body: reminderSettingsRequestSchema, response: reminderSettingsSchema },
  { method: 'GET', path: '/settings/reminders', service: 'sales', scope: 'settings', operationId: 'getReminderSettings', summary: 'Read the payment reminder levels', tag: 'Payment reminders', response: reminderSettingsSchema },
  { method: 'DELETE', path: '/settings/reminders', service: 'sales', scope: 'settings', operationId: 'deleteReminderSettings', summary: 'Remove the payment reminder levels: no reminders go out, as before any were set (the letters sent stay)', tag: 'Payment reminders', response: reminderSettingsSchema },
  { method: 'POST', path: '/sales/reminders/run', service: 'sales', scope: 'sales', operationId: 'runReminders', summary: "Send the reminders of a day now (the daily run does it by itself): each overdue invoice's next level once, one letter per customer with its PDF", tag: 'Payment reminders', body: reminderRunRequestSchema, response: reminderRunResultSchema },
  { method: 'GET', path: '/sales/reminders/:id/pdf', service: 'sales', scope: 'sales', operationId: 'getReminderPdf', summary: 'The reminder letter as the customer received it (PDF)', tag: 'Payment reminders', produces: ['application/pdf'], pathParams: idPathParams, response: pdfDocumentSchema },
  { method: 'GET', path: '/sales/invoices/:id/reminders', service: 'sales', scope: 'sales', operationId: 'listInvoiceReminders', summary: 'The reminders sent for an invoice, level by level', tag: 'Payment reminders', pathParams: idPathParams, query: reminderListQuerySchema, response: reminderLinePageSchema },
  { method: 'POST', path: '/sales/recurring-invoices', service: 'sales', scope: 'sales', operationId: 'createRecurringInvoice', bodyRequired: true, summary: 'Schedule an invoice issued every period (issued at once for every period already due)', tag: 'Recurring invoices', body: recurringInvoiceRequestSchema, response: recurringInvoiceSchema },
  { method: 'GET', path: '/sales/recurring-invoices', service: 'sales', scope: 'sales', operationId: 'listRecurringInvoices', summary: 'List recurring invoices', tag: 'Recurring invoices', query: recurringInvoiceListQuerySchema, response: recurringInvoicePageSchema },
  { method: 'GET', path: '/sales/recurring-invoices/:id', service: 'sales', scope: 'sales', operationId: 'getRecurringInvoice', summary: 'Read a recurring invoice with its next five issue dates', tag: 'Recurring invoices', pathParams: idPathParams, response: recurringInvoiceSchema },
  { method: 'PUT', path: '/sales/recurring-invoices/:id', service: 'sales', scope: 'sales', operationId: 'updateRecurringInvoice', bodyRequired: true, summary: 'Replace the template and schedule of a recurring invoice; what it issued stays, the next issue date follows the new schedule', tag: 'Recurring invoices', pathParams: idPathParams, body: recurringInvoiceRequestSchema, response: recurringInvoiceSchema },
  { method: 'DELETE', path: '/sales/recurring-invoices/:id', service: 'sales', scope: 'sales', operationId: 'deleteRecurringInvoice', summary: 'Delete a recurring invoice; the invoices it issued stay', tag: 'Recurring invoices', pathParams: idPathParams, response: recurringInvoiceDeletedSchema },
  { method: 'POST', path: '/sales/recurring-invoices/:id/pause', service: 'sales', scope: 'sales', operationId: 'pauseRecurringInvoice', summary: 'Pause a recurring invoice: nothing is issued until it is resumed', tag: 'Recurring invoices', pathParams: idPathParams, response: recurringInvoiceSchema },
  { method: 'POST', path: '/sales/recurring-invoices/:id/resume', service: 'sales', scope: 'sales', operationId: 'resumeRecurringInvoice', summary: 'Resume a paused recurring invoice: the periods missed meanwhile are issued at once unless skip_missed', tag: 'Recurring invoices', pathParams: idPathParams, query: recurringInvoiceResumeQuerySchema, response: recurringInvoiceSchema },
  { method: 'POST', path: '/sales/numbering-series', service: 'sales', scope: 'sales', operationId: 'createNumberingSeries', summary: 'Create a numbering series', tag: 'Numbering', body: numberSeriesRequestSchema, response: numberSeriesSchema },
  { method: 'GET', path: '/sales/numbering-series', service: 'sales', scope: 'sales', operationId: 'listNumberingSeries', summary: 'List numbering series', tag: 'Numbering', query: numberSeriesListQuerySchema, response: numberSeriesPageSchema },
  { method: 'POST', path: '/lists/items', service: 'sales', scope: 'sales', operationId: 'createItem', summary: 'Create an item', tag: 'Items', body: itemRequestSchema, response: itemSchema },
  { method: 'GET', path: '/lists/items', service: 'sales', scope: 'sales', operationId: 'listItems', repeatable: ['sort'], summary: 'List items', tag: 'Items', query: itemListQuerySchema, response: itemPageSchema },
  { method: 'POST', path: '/lists/price-lists', service: 'sales', scope: 'sales', operationId: 'createPriceList', summary: 'Create a price list', tag: 'Items', body: priceListRequestSchema, response: priceListSchema },
  // an API client's life after creation, as an API key's (decision 149)
  { method: 'GET', path: '/settings/security/clients', service: 'settings', scope: 'settings', operationId: 'listClients', summary: 'List API clients', tag: 'API clients', query: clientListQuerySchema, response: clientPageSchema },
  { method: 'GET', path: '/settings/security/clients/:id', service: 'settings', scope: 'settings', operationId: 'getClient', summary: 'Read an API client', tag: 'API clients', pathParams: idPathParams, response: clientRecordSchema },
  { method: 'POST', path: '/settings/security/clients/:id/revoke', service: 'settings', scope: 'settings', operationId: 'revokeClient', summary: 'Revoke an API client: the token endpoint refuses it and the access tokens it holds stop working at once', tag: 'API clients', pathParams: idPathParams, response: clientRecordSchema },
  { method: 'DELETE', path: '/settings/security/clients/:id', service: 'settings', scope: 'settings', operationId: 'deleteClient', summary: 'Delete an API client (its access tokens stop working at once)', tag: 'API clients', pathParams: idPathParams, response: clientDeletedSchema },
  { method: 'GET', path: '/audit-events', service: 'settings', scope: 'settings', operationId: 'listAuditEvents', summary: 'The writes made through the API in every service, newest first: who, what, and the resource before and after (secrets and personal data masked)', tag: 'Audit trail', query: auditEventListQuerySchema, response: auditEventPageSchema },
  { method: 'GET', path: '/audit-events/verify', service: 'settings', scope: 'settings', operationId: 'verifyAuditEvents', summary: "Walk the organisation's audit chains in every service and recompute each hash: a changed, deleted or cut-off record is named", tag: 'Audit trail', response: auditVerificationSchema },
  { method: 'GET', path: '/settings/organisation', service: 'settings', scope: 'settings', operationId: 'getOrganisation', summary: 'Read the organisation profile', tag: 'Organisation', response: organisationSchema },
  { method: 'PUT', path: '/settings/organisation', service: 'settings', scope: 'settings', operationId: 'updateOrganisation', summary: 'Update the organisation profile', tag: 'Organisation', body: organisationUpdateSchema, response: organisationSchema },
  { method: 'POST', path: '/oauth/token', service: 'settings', scope: 'settings', operationId: 'issueAccessToken', summary: 'Exchange client credentials for an access token', tag: 'API clients', open: true, body: tokenRequestSchema, response: tokenResponseSchema, consumes: ['application/json', 'application/x-www-form-urlencoded'] },
  // webhooks (issue 13): an organisation's endpoints for its events, signed per Standard Webhooks
  { method: 'GET', path: '/settings/webhooks', service: 'settings', scope: 'settings', operationId: 'listWebhooks', summary: 'List webhook endpoints', tag: 'Webhooks', query: webhookListQuerySchema, response: webhookPageSchema },
  { method: 'POST', path: '/settings/webhooks', service: 'settings', scope: 'settings', operationId: 'createWebhook', bodyRequired: true, summary: 'Create a webhook endpoint (the signing secret is returned once)', tag: 'Webhooks', body: webhookCreateSchema, response: webhookWithSecretSchema },
  { method: 'GET', path: '/settings/webhooks/:id', service: 'settings', scope: 'settings', operationId: 'getWebhook', summary: 'Read a webhook endpoint', tag: 'Webhooks', pathParams: idPathParams, response: webhookSchema },
  { method: 'PUT', path: '/settings/webhooks/:id', service: 'settings', scope: 'settings', operationId: 'updateWebhook', bodyRequired: true, summary: 'Change, disable or re-enable a webhook endpoint', tag: 'Webhooks', pathParams: idPathParams, body: webhookUpdateSchema, response: webhookSchema },
  { method: 'DELETE', path: '/settings/webhooks/:id', service: 'settings', scope: 'settings', operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its deliveries', tag: 'Webhooks', pathParams: idPathParams, response: webhookDeletedSchema },
  { method: 'POST', path: '/settings/webhooks/:id/rotate-secret', service: 'settings', scope: 'settings', operationId: 'rotateWebhookSecret', summary: 'Replace the signing secret; the old one keeps signing for an overlap', tag: 'Webhooks', pathParams: idPathParams, response: webhookWithSecretSchema },
  { method: 'GET', path: '/settings/webhooks/:id/deliveries', service: 'settings', scope: 'settings', operationId: 'listWebhookDeliveries', summary: 'List the deliveries of a webhook endpoint, newest first', tag: 'Webhooks', pathParams: idPathParams, query: webhookDeliveryListQuerySchema, response: webhookDeliveryPageSchema },
  { method: 'POST', path: '/settings/webhooks/:id/deliveries/:delivery_id/retry', service: 'settings', scope: 'settings', operationId: 'retryWebhookDelivery', summary: 'Send a delivery again now', tag: 'Webhooks', pathParams: webhookDeliveryPathSchema, response: webhookDeliverySchema },
  { method: 'GET', path: '/settings/exchange-rates', service: 'settings', scope: 'settings', operationId: 'listExchangeRates', summary: 'The exchange rates in force on a day (of one currency, or of each)', tag: 'Exchange rates', query: exchangeRateQuerySchema, response: exchangeRateTableSchema },
  { method: 'POST', path: '/settings/exchange-rates/import', service: 'settings', scope: 'settings', operationId: 'importExchangeRates', bodyRequired: true, summary: "Import a central bank's rate file (the CNB's daily fixing, the ECB's eurofxref XML); each day it holds replaces that day", tag: 'Exchange rates', consumes: ['text/plain', 'application/xml', 'application/octet-stream'], body: exchangeRateFileSchema, response: exchangeRateImportSchema },
  { method: 'PUT', path: '/settings/exchange-rates/:currency/:date', service: 'settings', scope: 'settings', operationId: 'putExchangeRate', summary: 'Set the rate of a currency on a day by hand', tag: 'Exchange rates', pathParams: exchangeRatePathSchema, body: exchangeRateRequestSchema, response: exchangeRateSchema },
  { method: 'GET', path: '/settings/repo-rates', service: 'settings', scope: 'settings', operationId: 'getRepoRates', summary: "The CNB two-week repo-rate history the organisation's statutory late-payment interest is computed from, and the day it is known through", tag: 'Repo rates', response: repoRateHistorySchema },
  { method: 'POST', path: '/settings/repo-rates/import', service: 'settings', scope: 'settings', operationId: 'importRepoRates', bodyRequired: true, summary: "Import the CNB's repo-rate history file (vyvoj_repo_historie.txt); the history is then known through the day it was published", tag: 'Repo rates', consumes: ['text/plain', 'application/octet-stream'], query: repoRateImportQuerySchema, body: repoRateFileSchema, response: repoRateImportSchema },
  { method: 'PUT', path: '/settings/repo-rates/:date', service: 'settings', scope: 'settings', operationId: 'putRepoRate', summary: 'Set a change of the repo rate by hand, in force from the day', tag: 'Repo rates', pathParams: repoRatePathSchema, body: repoRateRequestSchema, response: repoRateHistorySchema },
  { method: 'GET', path: '/settings/tax-filing', service: 'settings', scope: 'settings', operationId: 'getTaxFilingSettings', summary: "Read the filer's data for tax filings", tag: 'Organisation', response: taxFilingSettingsSchema },
  { method: 'PUT', path: '/settings/tax-filing', service: 'settings', scope: 'settings', operationId: 'putTaxFilingSettings', summary: "Set the filer's data the tax office's forms need (tax office, filer type, who signs, monthly or quarterly); replaced whole", tag: 'Organisation', body: taxFilingSettingsRequestSchema, response: taxFilingSettingsSchema },
  { method: 'POST', path: '/admin/organisations', service: 'settings', scope: 'settings', operationId: 'createOrganisation', summary: 'Create an organisation (operator token only)', tag: 'Organisation', body: organisationCreateSchema, response: organisationCreatedSchema, operatorOnly: true },
] as const satisfies readonly RouteSpec[];

/** Every public operation, for code that treats them alike (gateway routing, OpenAPI). */
export const ROUTES: readonly RouteSpec[] = DECLARED;

/** One declared operation, with the exact types of its schemas. */
export type Route = (typeof DECLARED)[number];
export type OperationId = Route['operationId'];
/** The declaration of one operation. */
export type RouteOf<Id extends OperationId> = Extract<Route, { operationId: Id }>;
/** The operations a service owns. */
export type ServiceRoute<S extends ServiceName> = Extract<Route, { service: S }>;

/** The declarations by operationId (`ROUTE.createCreditNote`). */
export const ROUTE = Object.fromEntries(DECLARED.map((r) => [r.operationId, r])) as { [R in Route as R['operationId']]: R };

