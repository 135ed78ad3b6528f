import { parseRange, type EndpointHandlers } from '@ledgerline/service-kit';
import { chartLocale } from '../domain/chart.js';
import { projectRows, selectedColumns, trialBalance, trialBalanceCsv } from '../domain/trial-balance.js';
import { balanceSheet, profitAndLoss } from '../domain/financial-statements.js';

/** Financial reports from the ledger: the trial balance (JSON or CSV), the profit and loss account and the balance sheet. */
export function reportingRoutes(fallbackCurrency: string): Pick<EndpointHandlers<'accounting'>, 'exportTrialBalance' | 'getProfitAndLoss' | 'getBalanceSheet'> {
  return {
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
    getProfitAndLoss: async ({ ctx, input }) => profitAndLoss(ctx, input.query, chartLocale(ctx.c.req.header('accept-language')), fallbackCurrency),
    getBalanceSheet: async ({ ctx, input }) => balanceSheet(ctx, input.query, chartLocale(ctx.c.req.header('accept-language')), fallbackCurrency),
  };
}
