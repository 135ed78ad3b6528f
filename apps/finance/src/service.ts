import { defineService } from '@ledgerline/service-kit';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';

export const financeService = defineService({
  name: 'finance',
  defaultPort: 8083,
  stream: 'FINANCE',
  entities,
  migrations,
  routes: () => {},
});
