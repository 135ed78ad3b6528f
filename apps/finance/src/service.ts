import { z } from 'zod';
import { defineService, loadSecretBox, secretBoxConfigShape, serveEndpoints } from '@ledgerline/service-kit';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { financeEndpoints } from './http/endpoints.js';
import { financeResponders } from './domain/foreign-balances.js';
import { FioScheduler } from './domain/fio/fio-scheduler.js';

export const financeService = defineService({
  name: 'finance',
  defaultPort: 8083,
  stream: 'FINANCE',
  // the legal currency payments are converted to
  organisationReplica: true,
  configSchema: z.object({
    ...secretBoxConfigShape,
    /** Fio banka's REST API (FIO API Bankovnictví), for the statements fetched from the bank (issue 78). */
    FIO_API_URL: z.url().default('https://fioapi.fio.cz/v1/rest'),
    /** How often a replica looks for Fio integrations due. */
    FIO_POLL_MS: z.coerce.number().int().min(10).max(86_400_000).default(60_000),
  }),
  entities,
  migrations,
  // the secret box first: a production service without SECRETS_KEY stops before anything else
  resources: (deps) => {
    const fio = { box: loadSecretBox(deps.config, deps.log), apiUrl: deps.config.FIO_API_URL };
    const scheduler = new FioScheduler(deps, fio, deps.config.FIO_POLL_MS);
    return { fio, scheduler, close: () => scheduler.stop() };
  },
  onStart: async (deps) => {
    deps.resources.scheduler.start();
  },
  responders: financeResponders,
  routes: (app, deps) => serveEndpoints(app, 'finance', financeEndpoints(deps.resources.fio), deps.bus),
});
