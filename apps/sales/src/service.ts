import { defineService } from '@ledgerline/service-kit';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';

export const salesService = defineService({
  name: 'sales',
  defaultPort: 8081,
  stream: 'SALES',
  entities,
  migrations,
  routes: () => {},
});
