import { defineService } from '@ledgerline/service-kit';
import { RPC_SUBJECTS, purchaseDocumentLookupRequestSchema } from '@ledgerline/contracts';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { purchaseDocumentRoutes } from './http/documents.routes.js';
import { inventoryExportRoutes } from './http/export.routes.js';
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
  routes: (app, deps) => {
    app.route('/v1/purchase/bills', purchaseDocumentRoutes(deps, 'bill'));
    app.route('/v1/purchase/vendor-credits', purchaseDocumentRoutes(deps, 'vendor_credit'));
    app.route('/v1/inventory/in/export', inventoryExportRoutes());
  },
  consumers: (deps) => purchaseConsumers(deps),
  responders: () => [
    {
      subject: RPC_SUBJECTS.purchaseDocumentLookup,
      handle: async (em, data) => lookupDocument(em, purchaseDocumentLookupRequestSchema.parse(data)),
    },
  ],
});
