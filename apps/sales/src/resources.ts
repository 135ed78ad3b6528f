import type { BaseConfig, ServiceDeps } from '@ledgerline/service-kit';
import type { RenderingConfig } from '@ledgerline/rendering';
import { createDelivery, type Delivery } from './delivery.js';
import { RecurringInvoiceScheduler } from './recurring-invoices/scheduler.js';

export type SalesConfig = BaseConfig & RenderingConfig & { RECURRING_POLL_MS: number; SCHEDULE_TIME_ZONE: string };

/** What one running sales service holds besides its database: the printer and mailer, and the recurring-invoice scheduler. */
export interface SalesResources extends Delivery {
  recurring: RecurringInvoiceScheduler;
}

export function createSalesResources(deps: ServiceDeps<SalesConfig, undefined>): SalesResources {
  const delivery = createDelivery(deps);
  const recurring = new RecurringInvoiceScheduler(deps, delivery, { pollMs: deps.config.RECURRING_POLL_MS, timeZone: deps.config.SCHEDULE_TIME_ZONE });
  return {
    ...delivery,
    recurring,
    close: async () => {
      await recurring.stop();
      await delivery.close();
    },
  };
}
