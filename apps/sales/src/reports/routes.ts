import { type EndpointHandlers } from '@ledgerline/service-kit';
import { agedBalances, type AgingRule } from '@ledgerline/posted-documents';
import { CREDIT_NOTE_ALLOCATIONS } from '../credit-notes/credit-note-kind.js';
import { customerStatement } from './customer-statement.js';

/** Invoices owed by customers, less their unapplied credit notes (decision 161). */
export const AGED_RECEIVABLES: AgingRule = {
  documents: CREDIT_NOTE_ALLOCATIONS,
  partyId: 'd.customer_id',
  partyName: 'd.customer_name',
  payments: { table: 'sales_document_payments', document: 'document_id', date: 'date' },
};

export function reportRoutes(): Pick<EndpointHandlers<'sales'>, 'getAgedReceivables' | 'getCustomerStatement'> {
  return {
    getAgedReceivables: async ({ ctx, input: { query: q } }) =>
      agedBalances(ctx, AGED_RECEIVABLES, { asOf: q.as_of ?? ctx.now().toISOString().slice(0, 10), currency: q.currency, from: q.from, take: q.take }),
    getCustomerStatement: async ({ ctx, input: { query } }) => customerStatement(ctx, query),
  };
}
