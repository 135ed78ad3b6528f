import { z } from 'zod';
import { defineService, serveEndpoints } from '@ledgerline/service-kit';
import { attachmentStoreConfigShape, attachmentStoreOf } from '@ledgerline/posted-documents';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { purchaseEndpoints } from './http/endpoints.js';
import { purchaseConsumers, purchaseResponders } from './events/consumers.js';

export const purchaseService = defineService({
  name: 'purchase',
  defaultPort: 8082,
  stream: 'PURCHASE',
  // the legal currency documents are converted to
  organisationReplica: true,
  configSchema: z.object({ ...attachmentStoreConfigShape }),
  entities,
  migrations,
  // the object store a bill's files go to (S3), or none (its database); a store configured wrongly stops the boot
  resources: (deps) => ({ attachmentStore: attachmentStoreOf(deps.config) }),
  routes: (app, deps) =>
    serveEndpoints(app, 'purchase', purchaseEndpoints({ maxBytes: deps.config.ATTACHMENT_MAX_BYTES, store: deps.resources.attachmentStore, log: deps.log }), deps.bus),
  consumers: purchaseConsumers,
  responders: purchaseResponders,
});
