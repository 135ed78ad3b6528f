import { Hono } from 'hono';
import { caller, parseOrThrow, parseRange, readQuery, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { trialBalanceExportBodySchema, trialBalanceExportPathSchema, trialBalanceExportQuerySchema } from '@ledgerline/contracts/accounting';
import { chartLocale } from '../domain/chart.js';
import { projectRows, selectedColumns, trialBalance, trialBalanceCsv } from '../domain/trial-balance.js';

/** #25 POST /reporting/financial/trial-balance/{book_id}/export/{format}: json or csv. */
export function trialBalanceRoutes(deps: ServiceDeps<any>) {
  const r = new Hono<KitEnv>();
  r.post('/:book_id/export/:format', async (c) => {
    const auth = caller(c);
    const path = parseOrThrow(trialBalanceExportPathSchema, c.req.param(), 'path');
    const q = readQuery(c, trialBalanceExportQuerySchema);
    const body = c.get('body') === undefined ? [] : parseOrThrow(trialBalanceExportBodySchema, c.get('body'));
    const dates = parseRange('date_posting', q.date_posting, 'date');
    const accounts = parseRange('account_number', q.account_number, 'string');
    const tb = await trialBalance(
      c.get('em'),
      auth.orgId,
      {
        bookId: path.book_id,
        dateFrom: dates?.from,
        dateTo: dates?.to,
        accountFrom: accounts?.from,
        accountTo: accounts?.to,
        today: new Date().toISOString().slice(0, 10),
      },
      chartLocale(c.req.header('accept-language')),
      deps.config.LEGAL_CURRENCY ?? 'CZK',
    );
    const columns = selectedColumns(body);
    if (path.format === 'csv') {
      return c.body(trialBalanceCsv(tb, columns), 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="trial-balance-${path.book_id}.csv"` });
    }
    return respond(c, projectRows(tb, columns));
  });
  return r;
}
