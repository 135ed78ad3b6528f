import { NotAcceptableError, ValidationError, keysetPage, negotiate, page, pagingOf, parseRange, parseSort, type EndpointHandlers, type ServiceDeps } from '@ledgerline/service-kit';
import { chartLocale } from '../domain/chart.js';
import { listTransactions, TRANSACTION_SORT_FIELDS } from '../domain/transactions.js';
import { projectRows, selectedColumns, trialBalance, trialBalanceCsv } from '../domain/trial-balance.js';
import { vatReturn } from '../domain/vat-return.js';
import { controlStatement } from '../domain/control-statement.js';
import { controlStatementFiling, euSalesListFiling, fileTaxFiling, listFilings, vatReturnFiling } from '../domain/epo/filings.js';
import { euSalesList } from '../domain/eu-sales-list.js';
import { balanceSheet, profitAndLoss } from '../domain/financial-statements.js';
import { accountLedger } from '../domain/account-ledger.js';
import { listChart, readChartAccount, saveChartAccount } from '../domain/chart-accounts.js';
import { createJournalEntry, listJournalEntries, readJournalEntry, reverseJournalEntry } from '../domain/journal-entries.js';
import { closeYear, listYearEndClosings, reopenYear } from '../domain/year-end-closing.js';
import { revalueForeignItems } from '../domain/fx-revaluation.js';

type AccountingDeps = ServiceDeps & { config: { LEGAL_CURRENCY?: string; ORG_COUNTRY?: string } };

/** GET /v1/accounting/transactions the ledger's transactions, POST /v1/reporting/financial/trial-balance/{book_id}/export/{format} the trial-balance export (json or csv), the profit and loss account and the balance sheet, the VAT reports (return, control statement, EC Sales List), the chart of accounts, manual journal entries and the closing of years. */
export function accountingEndpoints(deps: AccountingDeps): EndpointHandlers<'accounting'> {
  // the legal currency of an organisation whose profile has not reached the service
  const fallbackCurrency = deps.config.LEGAL_CURRENCY ?? 'CZK';
  // what the ledger posts a journal entry with (the consumers' options)
  const posting = { legalCurrency: fallbackCurrency, orgCountry: deps.config.ORG_COUNTRY ?? 'CZ' };
  return {
    listAccountingTransactions: async ({ ctx, input: { query: q } }) => {
      // ids are per kind of document: one alone names none
      if (q.source_id !== undefined && !q.source_type) {
        throw new ValidationError('source_id needs source_type', [{ path: 'source_type', message: 'required with source_id', code: 'required' }]);
      }
      const result = await listTransactions(ctx,
        {
          datePosting: parseRange('date_posting', q.date_posting, 'date'),
          source: q.source_type ? { type: q.source_type, id: q.source_id } : undefined,
          accounts: parseRange('account_number', q.account_number, 'string'),
          search: q.search,
          sort: parseSort(q.sort, TRANSACTION_SORT_FIELDS, [{ field: 'date_posting', direction: 'asc' }]),
          ...pagingOf(q),
        },
        chartLocale(ctx.c.req.header('accept-language')),
      );
      return keysetPage(result.entities, result, q);
    },
    exportTrialBalance: async ({ ctx, input }) => {
      const { params: path, query: q } = input;
      const dates = parseRange('date_posting', q.date_posting, 'date');
      const accounts = parseRange('account_number', q.account_number, 'string');
      const tb = await trialBalance(
        ctx,
        {
          bookId: path.book_id,
          dateFrom: dates?.from,
          dateTo: dates?.to,
          accountFrom: accounts?.from,
          accountTo: accounts?.to,
          today: new Date().toISOString().slice(0, 10),
        },
        chartLocale(ctx.c.req.header('accept-language')),
        fallbackCurrency,
      );
      const columns = selectedColumns(input.raw === undefined ? [] : input.body);
      if (path.format === 'csv') {
        return ctx.c.body(trialBalanceCsv(tb, columns), 200, {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': `attachment; filename="trial-balance-${path.book_id}.csv"`,
        });
      }
      return projectRows(tb, columns);
    },
    getVatReturn: async ({ ctx, input }) => {
      if (wantsFiling(ctx.c.req.header('accept'), input.query.format)) return xmlFiling(ctx, `vat-return-${input.query.date_from}.xml`, (await vatReturnFiling(ctx, input.query, fallbackCurrency)).xml);
      return vatReturn(ctx, input.query, fallbackCurrency);
    },
    getControlStatement: async ({ ctx, input }) => {
      if (wantsFiling(ctx.c.req.header('accept'), input.query.format)) return xmlFiling(ctx, `control-statement-${input.query.date_from}.xml`, (await controlStatementFiling(ctx, input.query)).xml);
      return controlStatement(ctx, input.query, fallbackCurrency);
    },
    getEuSalesList: async ({ ctx, input }) => {
      if (wantsFiling(ctx.c.req.header('accept'), input.query.format)) return xmlFiling(ctx, `eu-sales-list-${input.query.date_from}.xml`, (await euSalesListFiling(ctx, input.query, fallbackCurrency)).xml);
      return euSalesList(ctx, input.query, fallbackCurrency);
    },
    fileTaxFiling: async ({ ctx, input }) => fileTaxFiling(ctx, input.body, fallbackCurrency),
    listTaxFilings: async ({ ctx, input: { query: q } }) => {
      const { entities, total } = await listFilings(ctx, q);
      return page(entities, total, q.from, q.take);
    },
    getProfitAndLoss: async ({ ctx, input }) => profitAndLoss(ctx, input.query, chartLocale(ctx.c.req.header('accept-language')), fallbackCurrency),
    getBalanceSheet: async ({ ctx, input }) => balanceSheet(ctx, input.query, chartLocale(ctx.c.req.header('accept-language')), fallbackCurrency),
    getAccountLedger: async ({ ctx, input }) => accountLedger(ctx, input.query, chartLocale(ctx.c.req.header('accept-language')), fallbackCurrency),
    listAccounts: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listChart(ctx.em, ctx.orgId, q, chartLocale(ctx.c.req.header('accept-language')));
      return page(rows, total, q.from, q.take);
    },
    getAccount: async ({ ctx, input }) => readChartAccount(ctx, input.params.number, chartLocale(ctx.c.req.header('accept-language'))),
    saveAccount: async ({ ctx, input }) => saveChartAccount(ctx, input.params.number, input.body, chartLocale(ctx.c.req.header('accept-language'))),
    createJournalEntry: async ({ ctx, input }) => createJournalEntry(ctx, input.body, posting),
    listJournalEntries: async ({ ctx, input: { query: q } }) => {
      const listed = await listJournalEntries(ctx.em, ctx.orgId, q);
      return keysetPage(listed.rows, listed, q);
    },
    getJournalEntry: async ({ ctx, input }) => readJournalEntry(ctx, input.params.id),
    reverseJournalEntry: async ({ ctx, input }) => reverseJournalEntry(ctx, input.params.id, input.body, posting),
    closeYear: async ({ ctx, input }) => closeYear(ctx, input.body, posting),
    listYearEndClosings: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listYearEndClosings(ctx, q);
      return page(rows, total, q.from, q.take);
    },
    reopenYear: async ({ ctx, input }) => reopenYear(ctx, input.params.year, posting),
    revalueForeignItems: async ({ ctx, input }) => revalueForeignItems(ctx, input.body, posting),
  };
}

/** The filing is asked for by ?format=epo, or by an Accept that prefers XML to JSON. */
function wantsFiling(accept: string | undefined, format: 'json' | 'epo' | undefined): boolean {
  if (format) return format === 'epo';
  const chosen = negotiate(accept, ['application/json', 'application/xml'] as const);
  if (chosen === null) throw new NotAcceptableError();
  return chosen === 'application/xml';
}

function xmlFiling(ctx: { c: { body: (data: string, status: 200, headers: Record<string, string>) => Response } }, fileName: string, xml: string): Response {
  return ctx.c.body(xml, 200, { 'content-type': 'application/xml; charset=utf-8', 'content-disposition': `attachment; filename="${fileName}"` });
}
