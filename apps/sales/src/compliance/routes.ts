import type { EndpointHandlers } from '@ledgerline/service-kit';
import type { RuleTable } from '@ledgerline/compliance';
import { evaluateInvoices, latestCompliance } from './evaluate.js';

/** Delivery and reporting compliance of invoices, judged by the service's rule table. */
export function complianceRoutes(rules: RuleTable): Pick<EndpointHandlers<'sales'>, 'evaluateInvoiceCompliance' | 'getInvoiceCompliance'> {
  return {
    evaluateInvoiceCompliance: async ({ ctx, input }) => evaluateInvoices(ctx.em, ctx.orgId, input.body, rules),
    getInvoiceCompliance: async ({ ctx, input }) => latestCompliance(ctx.em, input.params.id),
  };
}
