import type { BaseConfig, ServiceDeps } from '@ledgerline/service-kit';
import type { RenderingConfig } from '@ledgerline/rendering';
import type { AttachmentStoreConfig } from '@ledgerline/posted-documents';
import { createDelivery, type Delivery } from './delivery.js';
import { RecurringInvoiceScheduler } from './recurring-invoices/scheduler.js';
import { ReminderScheduler } from './reminders/scheduler.js';
import type { RepoFixings } from './reminders/statutory-interest.js';

export type SalesConfig = BaseConfig & RenderingConfig & AttachmentStoreConfig & { RECURRING_POLL_MS: number; SCHEDULE_TIME_ZONE: string; REMINDERS_AT: string; CNB_REPO_RATES: RepoFixings };

/** What one running sales service holds besides its database: the printer and mailer, the recurring-invoice scheduler and the reminder run. */
export interface SalesResources extends Delivery {
  recurring: RecurringInvoiceScheduler;
  reminders: ReminderScheduler;
}

export function createSalesResources(deps: ServiceDeps<SalesConfig, undefined>): SalesResources {
  const delivery = createDelivery(deps);
  const recurring = new RecurringInvoiceScheduler(deps, delivery, { pollMs: deps.config.RECURRING_POLL_MS, timeZone: deps.config.SCHEDULE_TIME_ZONE });
  const reminders = new ReminderScheduler(deps, delivery, {
    pollMs: deps.config.RECURRING_POLL_MS,
    timeZone: deps.config.SCHEDULE_TIME_ZONE,
    at: deps.config.REMINDERS_AT,
    fixings: deps.config.CNB_REPO_RATES,
  });
  return {
    ...delivery,
    recurring,
    reminders,
    close: async () => {
      await recurring.stop();
      await reminders.stop();
      await delivery.close();
    },
  };
}
