import type { EndpointHandlers, Logger } from '@ledgerline/service-kit';
import type { S3Store } from '@ledgerline/posted-documents';
import { billRoutes } from '../bills/routes.js';
import { inventoryInRoutes } from '../inventory-in/routes.js';
import { vendorCreditRoutes } from '../vendor-credits/routes.js';
import { reportRoutes } from '../reports/routes.js';
import { billAttachmentRoutes } from '../bills/attachments.js';

/** Every operation the contracts declare for purchase, one line per resource folder. */
export function purchaseEndpoints(attachments: { maxBytes: number; store: S3Store | null; log: Logger }): EndpointHandlers<'purchase'> {
  return {
    ...billRoutes(attachments.store),
    ...vendorCreditRoutes(),
    ...inventoryInRoutes(),
    ...reportRoutes(),
    ...billAttachmentRoutes(attachments.maxBytes, attachments.store, attachments.log),
  };
}
