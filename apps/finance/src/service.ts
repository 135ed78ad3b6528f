import { defineService, serveEndpoints } from '@ledgerline/service-kit';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { financeEndpoints } from './http/endpoints.js';
import { financeResponders } from './domain/foreign-balances.js';

export const financeService = defineService({
  name: 'finance',
  defaultPort: 8083,
  stream: 'FINANCE',
  // the legal currency payments are converted to
  organisationReplica: true,
  entities,
  migrations,
  responders: financeResponders,
  routes: (app, deps) => serveEndpoints(app, 'finance', financeEndpoints(), deps.bus),
});
