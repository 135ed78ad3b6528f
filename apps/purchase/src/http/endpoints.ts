import type { EndpointHandlers } from '@ledgerline/service-kit';
import { billRoutes } from '../bills/routes.js';
import { inventoryInRoutes } from '../inventory-in/routes.js';
import { vendorCreditRoutes } from '../vendor-credits/routes.js';
import { reportRoutes } from '../reports/routes.js';
import { billAttachmentRoutes } from '../bills/attachments.js';

/** Every operation the contracts declare for purchase, one line per resource folder. */
export function purchaseEndpoints(attachmentMaxBytes: number): EndpointHandlers<'purchase'> {
  return {
    ...billRoutes(),
    ...vendorCreditRoutes(),
    ...inventoryInRoutes(),
    ...reportRoutes(),
    ...billAttachmentRoutes(attachmentMaxBytes),
  };
}
