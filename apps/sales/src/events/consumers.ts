import { RPC_SUBJECTS, SUBJECTS } from '@ledgerline/contracts';
import type { ConsumerDefinition, ResponderDefinition, ServiceDeps } from '@ledgerline/service-kit';
import { applyPaymentMatched, lookupDocument } from '../domain/payments.js';

export function salesConsumers(_deps: ServiceDeps): ConsumerDefinition[] {
  return [
    {
      name: 'sales-finance-payment-matched',
      subject: SUBJECTS.financePaymentMatched,
      handle: async (em, event, ctx) => {
        await applyPaymentMatched(em, event, ctx.log);
      },
    },
  ];
}

export function salesResponders(_deps: ServiceDeps): ResponderDefinition[] {
  return [{ subject: RPC_SUBJECTS.salesDocumentLookup, handle: (em, data) => lookupDocument(em, data) }];
}
