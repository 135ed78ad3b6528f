import { defineService, serveEndpoints } from '@ledgerline/service-kit';
import { RPC_SUBJECTS, purchaseDocumentLookupRequestSchema } from '@ledgerline/contracts';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { purchaseEndpoints } from './http/endpoints.js';
import { purchaseConsumers } from './events/consumers.js';
import { lookupDocument } from './domain/payments.js';

export const purchaseService = defineService({
  name: 'purchase',
  defaultPort: 8082,
  stream: 'PURCHASE',
  // the legal currency documents are converted to
  organisationReplica: true,
  entities,
  migrations,
  nonJsonPaths: [/\/export\/csv$/],
  routes: (app, deps) => serveEndpoints(app, 'purchase', purchaseEndpoints(deps)),
  consumers: (deps) => purchaseConsumers(deps),
  responders: () => [
    {
      subject: RPC_SUBJECTS.purchaseDocumentLookup,
      handle: async (em, data) => lookupDocument(em, purchaseDocumentLookupRequestSchema.parse(data)),
    },
  ],
});
