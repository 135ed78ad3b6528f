import type { EndpointHandlers } from '@ledgerline/service-kit';
import type { Delivery } from '../delivery.js';
import { emailRecordView, listEmailRecords, sendInvoiceEmail } from './email.js';
import { PROFORMAS } from '../advances/kinds.js';

/** The invoice and proforma e-mails and the e-mail records. */
export function emailRoutes(delivery: Delivery): Pick<EndpointHandlers<'sales'>, 'emailInvoice' | 'emailProformaInvoice' | 'listEmails'> {
  return {
    emailInvoice: async ({ ctx, input }) => (await sendInvoiceEmail(ctx.em, ctx.orgId, input.params.id, input.body, input.query, delivery)).result,
    emailProformaInvoice: async ({ ctx, input }) => (await sendInvoiceEmail(ctx.em, ctx.orgId, input.params.id, input.body, input.query, delivery, PROFORMAS)).result,
    listEmails: async ({ ctx, input: { query: q } }) => (await listEmailRecords(ctx.em, q.from, q.take)).map(emailRecordView),
  };
}
