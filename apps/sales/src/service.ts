import { defineService, serveEndpoints, timeZoneSetting } from '@ledgerline/service-kit';
import { entities } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { salesConsumers, salesResponders } from './events/consumers.js';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadRuleTable } from '@ledgerline/compliance';
import { renderingConfigShape } from '@ledgerline/rendering';
import { salesEndpoints } from './http/endpoints.js';
import { deliveryConsumers } from './events/delivery.consumers.js';
import { createSalesResources } from './resources.js';
import { attachmentStoreConfigShape } from '@ledgerline/posted-documents';
import { parseRepoFixings } from './reminders/statutory-interest.js';

export const salesService = defineService({
  name: 'sales',
  defaultPort: 8081,
  stream: 'SALES',
  organisationReplica: true,
  configSchema: z.object({
    ...renderingConfigShape,
    ...attachmentStoreConfigShape,
    /** How often a replica looks for recurring invoices due when no write woke it. */
    RECURRING_POLL_MS: z.coerce.number().int().min(10).max(86_400_000).default(60_000),
    /** The time zone whose calendar day decides what is due (recurring invoices, reminders). */
    SCHEDULE_TIME_ZONE: timeZoneSetting('Europe/Prague'),
    /** The local time after which each day's payment reminders go out; `off`: only when asked (POST /v1/sales/reminders/run). */
    REMINDERS_AT: z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|off)$/, 'HH:MM or off').default('08:00'),
    /**
     * CNB repo rates on fixing days beyond the shipped table (the last day of June or December),
     * e.g. `2025-12-31=3.50,2026-06-30=3.50`: the statutory interest of a later half-year needs them.
     */
    CNB_REPO_RATES: z
      .string()
      .optional()
      .transform((text, ctx) => {
        try {
          return parseRepoFixings(text);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : String(e) });
          return z.NEVER;
        }
      }),
    /**
     * A JSON rule table replacing the shipped one (architecture §8), read and validated once at boot; a
     * file that cannot be read or validated stops the service naming each problem. The parsed
     * table is what the key holds after loading.
     */
    COMPLIANCE_RULES_FILE: z
      .string()
      .optional()
      .transform((file, ctx) => {
        try {
          return loadRuleTable(file, (path) => readFileSync(path, 'utf8'));
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : String(e) });
          return z.NEVER;
        }
      }),
  }),
  entities,
  migrations,
  routes: (app, deps) => serveEndpoints(app, 'sales', salesEndpoints(deps.resources, deps.config.COMPLIANCE_RULES_FILE, { maxBytes: deps.config.ATTACHMENT_MAX_BYTES, log: deps.log }), deps.bus),
  consumers: (deps) => [...salesConsumers(deps), ...deliveryConsumers(deps)],
  resources: createSalesResources,
  onStart: async (deps) => {
    deps.resources.recurring.start();
    deps.resources.reminders.start();
  },
  responders: salesResponders,
});
