import { accountingTransactionListQuerySchema, accountingTransactionPageSchema, controlStatementSchema, euSalesListSchema, taxFilingListQuerySchema, taxFilingPageSchema, taxFilingQuerySchema, taxFilingRequestSchema, taxFilingSchema, trialBalanceExportBodySchema, trialBalanceExportPathSchema, trialBalanceExportQuerySchema, trialBalanceExportSchema, vatReturnSchema } from '../accounting.js';
import { chartAccountListQuerySchema, chartAccountPageSchema, chartAccountPathSchema, chartAccountRequestSchema, chartAccountSchema } from '../chart-accounts.js';
import { idPathParams } from '../common.js';
import { accountLedgerQuerySchema, accountLedgerSchema, balanceSheetQuerySchema, balanceSheetSchema, profitAndLossQuerySchema, profitAndLossSchema } from '../financial-statements.js';
import { fxRevaluationRequestSchema, fxRevaluationSchema, journalEntryListQuerySchema, journalEntryPageSchema, journalEntryRequestSchema, journalEntryReverseSchema, journalEntrySchema, yearEndClosingListQuerySchema, yearEndClosingPageSchema, yearEndClosingPathSchema, yearEndClosingRequestSchema, yearEndClosingSchema } from '../journal-entries.js';
import { serviceRoutes } from './spec.js';

/**
 * Accounting: the ledger, journal entries, the chart of accounts, year-end and FX,
 * reporting and tax filings.
 * Every operation here is served by accounting, with the `accounting` scope unless its row names another;
 * grouped by resource (the OpenAPI tag).
 */
export const accountingRoutes = serviceRoutes('accounting', [
  // Ledger
  { method: 'GET', path: '/accounting/transactions', operationId: 'listAccountingTransactions', repeatable: ['sort'], summary: 'List accounting transactions with their ledger rows', specNo: 10, tag: 'Ledger', query: accountingTransactionListQuerySchema, response: accountingTransactionPageSchema },
  //   the chart of accounts (decision 166)
  { method: 'GET', path: '/accounting/accounts', operationId: 'listAccounts', summary: 'List the chart of accounts', tag: 'Ledger', query: chartAccountListQuerySchema, response: chartAccountPageSchema },
  { method: 'GET', path: '/accounting/accounts/:number', operationId: 'getAccount', summary: 'Read an account of the chart', tag: 'Ledger', pathParams: chartAccountPathSchema, response: chartAccountSchema },
  { method: 'PUT', path: '/accounting/accounts/:number', operationId: 'saveAccount', bodyRequired: true, summary: 'Add an account to the chart (an analytic account such as 221.001), or rename one', tag: 'Ledger', pathParams: chartAccountPathSchema, body: chartAccountRequestSchema, response: chartAccountSchema },
  // Reporting
  { method: 'POST', path: '/reporting/financial/trial-balance/:book_id/export/:format', operationId: 'exportTrialBalance', summary: 'Export the trial balance of a book', specNo: 25, tag: 'Reporting', produces: ['application/json', 'text/csv'], pathParams: trialBalanceExportPathSchema, query: trialBalanceExportQuerySchema, body: trialBalanceExportBodySchema, response: trialBalanceExportSchema },
  { method: 'GET', path: '/reporting/tax/vat-return', operationId: 'getVatReturn', summary: "The VAT return of a period, from the ledger; with Accept: application/xml or format=epo, the tax office's EPO XML filing (DPHDP3)", tag: 'Reporting', produces: ['application/json', 'application/xml'], query: taxFilingQuerySchema, response: vatReturnSchema },
  { method: 'GET', path: '/reporting/tax/control-statement', operationId: 'getControlStatement', summary: "The VAT control statement of a period, from the ledger; with Accept: application/xml or format=epo, the tax office's EPO XML filing (DPHKH1)", tag: 'Reporting', produces: ['application/json', 'application/xml'], query: taxFilingQuerySchema, response: controlStatementSchema },
  { method: 'GET', path: '/reporting/tax/eu-sales-list', operationId: 'getEuSalesList', summary: "The EC Sales List of a period, from the ledger; with Accept: application/xml or format=epo, the tax office's EPO XML filing (DPHSHV)", tag: 'Reporting', produces: ['application/json', 'application/xml'], query: taxFilingQuerySchema, response: euSalesListSchema },
  { method: 'GET', path: '/reporting/tax/filings', operationId: 'listTaxFilings', summary: 'The EPO XML filings kept as filed, newest first, each with its SHA-256', tag: 'Reporting', query: taxFilingListQuerySchema, response: taxFilingPageSchema },
  { method: 'POST', path: '/reporting/tax/filings', operationId: 'fileTaxFiling', bodyRequired: true, summary: "File a form for an ended period: the EPO XML produced from the ledger and kept as filed (a follow-up's difference is against the filing before it); the reports' format=epo only previews", tag: 'Reporting', body: taxFilingRequestSchema, response: taxFilingSchema },
  //   the financial statements and the ledger of an account (decisions 167, 168)
  { method: 'GET', path: '/reporting/financial/profit-and-loss', operationId: 'getProfitAndLoss', summary: 'The profit and loss account of a period, from the ledger', tag: 'Reporting', query: profitAndLossQuerySchema, response: profitAndLossSchema },
  { method: 'GET', path: '/reporting/financial/balance-sheet', operationId: 'getBalanceSheet', summary: 'The balance sheet at the end of a day, from the ledger', tag: 'Reporting', query: balanceSheetQuerySchema, response: balanceSheetSchema },
  { method: 'GET', path: '/reporting/financial/account-ledger', operationId: 'getAccountLedger', summary: 'The postings of an account in a period with its running balance', tag: 'Reporting', query: accountLedgerQuerySchema, response: accountLedgerSchema },
  // Journal entries
  //   manual journal entries (decision 165): what no document posts, straight to the ledger
  { method: 'POST', path: '/accounting/journal-entries', operationId: 'createJournalEntry', bodyRequired: true, summary: 'Post a manual journal entry (an opening balance, an accrual, depreciation, a correction) to the ledger', tag: 'Journal entries', body: journalEntryRequestSchema, response: journalEntrySchema },
  { method: 'GET', path: '/accounting/journal-entries', operationId: 'listJournalEntries', repeatable: ['sort'], summary: 'List journal entries (kind=manual: those posted by hand)', tag: 'Journal entries', query: journalEntryListQuerySchema, response: journalEntryPageSchema },
  { method: 'GET', path: '/accounting/journal-entries/:id', operationId: 'getJournalEntry', summary: 'Read a journal entry', tag: 'Journal entries', pathParams: idPathParams, response: journalEntrySchema },
  { method: 'POST', path: '/accounting/journal-entries/:id/reverse', operationId: 'reverseJournalEntry', summary: 'Reverse a journal entry: a new entry with every line on the other side, on its day or a later one (409 when it is already reversed or is itself a reversal)', tag: 'Journal entries', pathParams: idPathParams, body: journalEntryReverseSchema, response: journalEntrySchema },
  //   the closing of a year (decision 170): classes 5 and 6 to 710, the result to 431, as one journal entry
  { method: 'POST', path: '/accounting/year-end-closings', operationId: 'closeYear', bodyRequired: true, summary: 'Close a year: every account of classes 5 and 6 closed to 710 on 31 December and the result carried to 431 (the year must be within the lock date)', tag: 'Journal entries', body: yearEndClosingRequestSchema, response: yearEndClosingSchema },
  { method: 'GET', path: '/accounting/year-end-closings', operationId: 'listYearEndClosings', summary: 'List the closings of years, newest first, reopened ones included', tag: 'Journal entries', query: yearEndClosingListQuerySchema, response: yearEndClosingPageSchema },
  { method: 'POST', path: '/accounting/year-end-closings/:year/reopen', operationId: 'reopenYear', summary: 'Reopen a closed year: its closing entry reversed on the same day, so the year can be corrected and closed again', tag: 'Journal entries', pathParams: yearEndClosingPathSchema, response: yearEndClosingSchema },
  { method: 'POST', path: '/accounting/fx-revaluations', operationId: 'revalueForeignItems', bodyRequired: true, summary: 'Revalue the open foreign-currency receivables, payables and bank balances at the rates in force on a day (differences to 563 and 663), reversed on the next day; asking again for a day answers the revaluation made', tag: 'Journal entries', body: fxRevaluationRequestSchema, response: fxRevaluationSchema },
] as const);
