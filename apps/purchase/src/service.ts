import { defineService } from '@ledgerline/service-kit';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';

export const purchaseService = defineService({
  name: 'purchase',
  defaultPort: 8082,
  stream: 'PURCHASE',
  entities,
  migrations,
  routes: () => {},
});
