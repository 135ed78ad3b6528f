import { SUBJECTS, financePaymentMatchedEventSchema } from '@ledgerline/contracts';
import { PoisonMessageError, type ConsumerDefinition, type ServiceDeps } from '@ledgerline/service-kit';
import { applyMatchedPayment } from '../domain/payments.js';

function orgOf(orgid: string | undefined): number {
  if (!orgid || !/^\d+$/.test(orgid)) throw new PoisonMessageError('event without an organisation');
  return Number(orgid);
}

export function purchaseConsumers(_deps: ServiceDeps): ConsumerDefinition[] {
  return [
    {
      name: 'purchase-finance-payment-matched',
      subject: SUBJECTS.financePaymentMatched,
      handle: async (em, event, ctx) => {
        const orgId = orgOf(event.orgid);
        const parsed = financePaymentMatchedEventSchema.safeParse(event.data);
        if (!parsed.success) throw new PoisonMessageError(`invalid finance.payment.matched data: ${parsed.error.message}`);
        await applyMatchedPayment(em, orgId, event.id, parsed.data, ctx.log);
      },
    },
  ];
}
