import { Hono } from 'hono';
import { caller, parseRange, parseSort, page, readQuery, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { accountingTransactionListQuerySchema } from '@ledgerline/contracts/accounting';
import { chartLocale } from '../domain/chart.js';
import { listTransactions, TRANSACTION_SORT_FIELDS } from '../domain/transactions.js';

/** #10 GET /accounting/transactions: paged, date_posting range, search over number and description, sort. */
export function transactionRoutes(_deps: ServiceDeps<any>) {
  const r = new Hono<KitEnv>();
  r.get('/', async (c) => {
    caller(c);
    const q = readQuery(c, accountingTransactionListQuerySchema, ['sort']);
    const result = await listTransactions(
      c.get('em'),
      {
        datePosting: parseRange('date_posting', q.date_posting, 'date'),
        search: q.search,
        sort: parseSort(q.sort, TRANSACTION_SORT_FIELDS, [{ field: 'date_posting', direction: 'asc' }]),
        from: q.from,
        take: q.take,
      },
      chartLocale(c.req.header('accept-language')),
    );
    return respond(c, page(result.entities, result.total, q.from, q.take));
  });
  return r;
}
