import type { EndpointHandlers, Logger } from '@ledgerline/service-kit';
import type { SalesResources } from '../resources.js';
import { DEFAULT_RULES, type RuleTable } from '@ledgerline/compliance';
import { complianceRoutes } from '../compliance/routes.js';
import { creditNoteRoutes } from '../credit-notes/routes.js';
import { emailRoutes } from '../emails/routes.js';
import { invoiceRoutes } from '../invoices/routes.js';
import { itemRoutes } from '../items/routes.js';
import { numberingSeriesRoutes } from '../numbering-series/routes.js';
import { reportRoutes } from '../reports/routes.js';
import { recurringInvoiceRoutes } from '../recurring-invoices/routes.js';
import { invoiceAttachmentRoutes } from '../invoices/attachments.js';
import { reminderRoutes } from '../reminders/routes.js';
import { advanceRoutes } from '../advances/routes.js';
import { hostingOrderRoutes } from '../hosting-orders/routes.js';

/** Every operation the contracts declare for sales, one line per resource folder. */
export function salesEndpoints(delivery: SalesResources, rules: RuleTable = DEFAULT_RULES, attachments: { maxBytes: number; log: Logger }): EndpointHandlers<'sales'> {
  return {
    ...invoiceRoutes(delivery),
    ...creditNoteRoutes(delivery),
    ...advanceRoutes(delivery),
    ...hostingOrderRoutes(),
    ...emailRoutes(delivery),
    ...complianceRoutes(rules),
    ...itemRoutes(),
    ...numberingSeriesRoutes(),
    ...reportRoutes(),
    ...recurringInvoiceRoutes(delivery.recurring),
    ...invoiceAttachmentRoutes(attachments.maxBytes, delivery.attachmentStore, attachments.log),
    ...reminderRoutes(delivery.reminders),
  };
}
