import { ValidationError, keysetPageOfJson, page, pagingOf, parseRange, parseSort, type EndpointHandlers } from '@ledgerline/service-kit';
import { chartLocale } from '../domain/chart.js';
import { listTransactions, TRANSACTION_SORT_FIELDS } from '../domain/transactions.js';
import { accountLedger } from '../domain/account-ledger.js';
import { listChart, readChartAccount, saveChartAccount } from '../domain/chart-accounts.js';

/** The ledger: its transactions, the chart of accounts and the ledger of an account. */
export function ledgerRoutes(fallbackCurrency: string): Pick<EndpointHandlers<'accounting'>, 'listAccountingTransactions' | 'getAccountLedger' | 'listAccounts' | 'getAccount' | 'saveAccount'> {
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
      return keysetPageOfJson(result.entities, result, q);
    },
    getAccountLedger: async ({ ctx, input }) => accountLedger(ctx, input.query, chartLocale(ctx.c.req.header('accept-language')), fallbackCurrency),
    listAccounts: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listChart(ctx.em, ctx.orgId, q, chartLocale(ctx.c.req.header('accept-language')));
      return page(rows, total, q.from, q.take);
    },
    getAccount: async ({ ctx, input }) => readChartAccount(ctx, input.params.number, chartLocale(ctx.c.req.header('accept-language'))),
    saveAccount: async ({ ctx, input }) => saveChartAccount(ctx, input.params.number, input.body, chartLocale(ctx.c.req.header('accept-language'))),
  };
}
