import { defineService } from '@ledgerline/service-kit';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';

export const accountingService = defineService({
  name: 'accounting',
  defaultPort: 8084,
  stream: 'ACCOUNTING',
  entities,
  migrations,
  routes: () => {},
});
