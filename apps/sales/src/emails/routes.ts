import type { EndpointHandlers } from '@ledgerline/service-kit';
import type { Delivery } from '../delivery.js';
import { emailRecordView, listEmailRecords, sendInvoiceEmail } from './email.js';

/** The invoice e-mail and the e-mail records. */
export function emailRoutes(delivery: Delivery): Pick<EndpointHandlers<'sales'>, 'emailInvoice' | 'listEmails'> {
  return {
    emailInvoice: async ({ ctx, input }) => (await sendInvoiceEmail(ctx.em, ctx.orgId, input.params.id, input.body, input.query, delivery)).result,
    listEmails: async ({ ctx, input: { query: q } }) => (await listEmailRecords(ctx.em, q.from, q.take)).map(emailRecordView),
  };
}
