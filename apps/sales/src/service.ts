import { defineService } from '@ledgerline/service-kit';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { creditNoteRoutes, invoiceRoutes } from './http/sales-documents.routes.js';
import { itemRoutes, priceListRoutes } from './http/items.routes.js';
import { numberingRoutes } from './http/numbering.routes.js';
import { salesConsumers, salesResponders } from './events/consumers.js';
import { complianceRoutes } from './http/compliance.routes.js';
import { z } from 'zod';
import { renderingConfigShape } from '@ledgerline/rendering';
import { DELIVERY_NON_JSON_PATHS, deliveryRoutes } from './http/delivery.routes.js';
import { deliveryConsumers } from './events/delivery.consumers.js';
import { startDelivery } from './delivery.js';

export const salesService = defineService({
  name: 'sales',
  defaultPort: 8081,
  stream: 'SALES',
  organisationReplica: true,
  configSchema: z.object({ ...renderingConfigShape }),
  nonJsonPaths: DELIVERY_NON_JSON_PATHS,
  entities,
  migrations,
  routes: (app, deps) => {
    app.route('/v1/sales/invoices', complianceRoutes(deps));
    app.route('/v1/sales/invoices', invoiceRoutes(deps));
    app.route('/v1/sales/credit-notes', creditNoteRoutes(deps));
    app.route('/v1/sales/numbering-series', numberingRoutes());
    app.route('/v1/lists/items', itemRoutes());
    app.route('/v1/lists/price-lists', priceListRoutes());
    app.route('/v1', deliveryRoutes(deps));
  },
  consumers: (deps) => [...salesConsumers(deps), ...deliveryConsumers(deps)],
  onStart: startDelivery,
  responders: salesResponders,
});
