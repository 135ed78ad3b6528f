import { page, type EndpointHandlers } from '@ledgerline/service-kit';
import type { RecurringInvoiceScheduler } from './scheduler.js';
import {
  createRecurringInvoice,
  deleteRecurringInvoice,
  listRecurringInvoices,
  pauseRecurringInvoice,
  readRecurringRow,
  recurringView,
  resumeRecurringInvoice,
  updateRecurringInvoice,
} from './recurring-invoices.js';

type Operations = 'createRecurringInvoice' | 'listRecurringInvoices' | 'getRecurringInvoice' | 'updateRecurringInvoice' | 'deleteRecurringInvoice' | 'pauseRecurringInvoice' | 'resumeRecurringInvoice';

/**
 * `/v1/sales/recurring-invoices…`. A write that may have made a period due (create, edit, resume)
 * wakes the scheduler once it has committed, so periods already due are issued at once.
 */
export function recurringInvoiceRoutes(scheduler: RecurringInvoiceScheduler): Pick<EndpointHandlers<'sales'>, Operations> {
  const wake = <T>(ctx: { c: { get(key: 'afterCommit'): Array<() => void> | undefined } }, answer: T): T => {
    ctx.c.get('afterCommit')?.push(() => scheduler.kick());
    return answer;
  };
  return {
    createRecurringInvoice: async ({ ctx, input }) => wake(ctx, await createRecurringInvoice(ctx, input.body, ctx.now(), scheduler.today())),
    listRecurringInvoices: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listRecurringInvoices(ctx, q);
      return page(rows, total, q.from, q.take);
    },
    getRecurringInvoice: async ({ ctx, input }) => recurringView(await readRecurringRow(ctx, input.params.id)),
    updateRecurringInvoice: async ({ ctx, input }) => wake(ctx, await updateRecurringInvoice(ctx, input.params.id, input.body, ctx.now(), scheduler.today())),
    deleteRecurringInvoice: async ({ ctx, input }) => deleteRecurringInvoice(ctx, input.params.id),
    pauseRecurringInvoice: async ({ ctx, input }) => pauseRecurringInvoice(ctx, input.params.id, ctx.now()),
    resumeRecurringInvoice: async ({ ctx, input }) => wake(ctx, await resumeRecurringInvoice(ctx, input.params.id, input.query.skip_missed, scheduler.today(), ctx.now())),
  };
}
