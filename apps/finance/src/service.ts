import { defineService } from '@ledgerline/service-kit';
import { SUBJECTS } from '@ledgerline/contracts';
import { applyOrganisationUpdated } from './domain/organisations.js';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { bankTransactionRoutes, payoutRoutes } from './http/routes.js';

export const financeService = defineService({
  name: 'finance',
  defaultPort: 8083,
  stream: 'FINANCE',
  entities,
  migrations,
  routes: (app, deps) => {
    app.route('/v1/finance/bank/transactions', bankTransactionRoutes(deps));
    app.route('/v1/finance/payouts', payoutRoutes(deps));
  },
  consumers: () => [
    {
      // the legal currency payments are converted to
      name: 'finance-settings-organisation-updated',
      subject: SUBJECTS.settingsOrganisationUpdated,
      handle: async (em, event) => {
        await applyOrganisationUpdated(em, event);
      },
    },
  ],
});
