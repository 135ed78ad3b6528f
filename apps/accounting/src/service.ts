import { z } from 'zod';
import { defineService, serveEndpoints, tenantEm } from '@ledgerline/service-kit';
import { AccountingTransactionSchema, entities, GlAccountSchema, LedgerRowSchema, LedgerTaxRowSchema } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { LEDGER_LIVE_SQL } from './db/live-sql.generated.js';
import { startDaySumsFolding } from './domain/day-sums.js';
import { ledgerConsumers } from './events/ledger-events.js';
import { allocationDifferenceConsumers } from './events/allocation-differences.js';
import { accountingEndpoints } from './http/endpoints.js';

export const accountingService = defineService({
  name: 'accounting',
  defaultPort: 8084,
  stream: 'ACCOUNTING',
  // the legal currency and country the ledger posts and reports in
  organisationReplica: true,
  configSchema: z.object({
    /** Legal currency of organisations whose events do not name it. */
    LEGAL_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('CZK'),
    /** Country of organisations whose documents do not name it (VAT reporting defaults). */
    ORG_COUNTRY: z.string().regex(/^[A-Z]{2}$/).default('CZ'),
    /** How often the ledger's day sums are folded (decision 215); 0 = never (a test folds them itself). */
    LEDGER_SUMS_FOLD_MS: z.coerce.number().int().min(0).max(3_600_000).default(1000),
  }),
  entities,
  migrations,
  // the ledger's functions and triggers as in force: domain/ledger-sql/*.sql (decision 233)
  liveSql: LEDGER_LIVE_SQL,
  routes: (app, deps) => serveEndpoints(app, 'accounting', accountingEndpoints(deps), deps.bus),
  onStart: async (deps) => {
    // Warm the ORM's metadata and query paths so the first posted event is as quick as the rest.
    const em = tenantEm(deps.orm, 0);
    for (const schema of [AccountingTransactionSchema, LedgerRowSchema, LedgerTaxRowSchema, GlAccountSchema]) await em.find(schema as never, {}, { limit: 1 });
    if (deps.config.LEDGER_SUMS_FOLD_MS > 0) return startDaySumsFolding(deps.orm, deps.config.LEDGER_SUMS_FOLD_MS, deps.log);
  },
  consumers: (deps) => {
    const opts = { legalCurrency: deps.config.LEGAL_CURRENCY, orgCountry: deps.config.ORG_COUNTRY };
    return [...ledgerConsumers(opts), ...allocationDifferenceConsumers(opts)];
  },
});
