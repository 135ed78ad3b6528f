import { defineService, serveEndpoints } from '@ledgerline/service-kit';
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
  entities,
  migrations,
  routes: (app, deps) => serveEndpoints(app, 'purchase', purchaseEndpoints(deps.config.ATTACHMENT_MAX_BYTES), deps.bus),
  consumers: purchaseConsumers,
  responders: purchaseResponders,
});
