import { type EndpointHandlers } from '@ledgerline/service-kit';
import { agedBalances, type AgingRule } from '@ledgerline/posted-documents';
import { VENDOR_CREDIT_ALLOCATIONS } from '../vendor-credits/vendor-credit-kind.js';

/** Bills owed to vendors, less their unapplied vendor credits (decision 161). */
export const AGED_PAYABLES: AgingRule = {
  documents: VENDOR_CREDIT_ALLOCATIONS,
  // the vendor as the document names it: an id only when it is one
  partyId: `(case when d.vendor->>'id' ~ '^[0-9]{1,15}$' then (d.vendor->>'id')::bigint end)`,
  partyName: 'd.vendor_name',
  payments: { table: 'payment_applications', document: 'document_id', date: 'date' },
};

export function reportRoutes(): Pick<EndpointHandlers<'purchase'>, 'getAgedPayables'> {
  return {
    getAgedPayables: async ({ ctx, input: { query: q } }) =>
      agedBalances(ctx, AGED_PAYABLES, { asOf: q.as_of ?? ctx.now().toISOString().slice(0, 10), currency: q.currency, from: q.from, take: q.take }),
  };
}
