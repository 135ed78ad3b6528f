import { z } from 'zod';
import { defineService, timeZoneSetting } from '@ledgerline/service-kit';
import { entities, OrganisationSchema } from './db/entities.js';
import { migrations } from './db/migrations.js';
import { closedYearsConsumer } from './events/closed-years.consumer.js';
import { internalRoutes } from './http/internal.routes.js';
import { settingsEndpoints } from './http/endpoints.js';
import { loadSettingsResources } from './resources.js';
import { webhookFanout } from './webhooks/fanout.js';
import { SECRET_PREFIXES, durationListSetting, durationSetting, hasValidChecksum, secretBoxConfigShape, serveEndpoints, serviceContext } from '@ledgerline/service-kit';
import { createOrganisation } from './domain/organisations.js';
import { expectedStatements, hostingIntegrationAnswer } from './domain/integrations.js';
import { ratesInForceFor } from './exchange-rates/rates.js';
import { taxFiler } from './tax-filing/tax-filing.js';
import { repoRatesAnswer } from './repo-rates/repo-rates.js';
import { RPC_SUBJECTS } from '@ledgerline/contracts';
import { currentSigningKey, sealPlaintextSigningKeys } from './domain/access-tokens.js';
import { directoryResponders } from './contacts/responders.js';

export const settingsService = defineService({
  name: 'settings',
  defaultPort: 8085,
  stream: 'SETTINGS',
  configSchema: z.object({
    /** The first organisation's admin key; generated and printed once when unset. */
    BOOTSTRAP_API_KEY: z
      .string()
      .min(20, 'at least 20 characters')
      .regex(/^\S+$/, 'no spaces')
      .refine((k) => !k.startsWith(`${SECRET_PREFIXES.apiKey}_`) || hasValidChecksum(k, SECRET_PREFIXES.apiKey), {
        message:
          'starts with ak_, the prefix of generated keys, but does not end in their checksum, so the gateway would refuse it; make a valid key with `npm run -s make-api-key`, or use a key without the ak_ prefix',
      })
      .optional(),
    BOOTSTRAP_ORG_NAME: z.string().default('My organisation'),
    BOOTSTRAP_ORG_COUNTRY: z.string().regex(/^[A-Z]{2}$/).default('CZ'),
    BOOTSTRAP_ORG_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('CZK'),
    ...secretBoxConfigShape,
    /** Lets webhooks reach loopback and private addresses (development and tests only). */
    WEBHOOKS_ALLOW_PRIVATE: z
      .enum(['0', '1', 'true', 'false'])
      .default('0')
      .transform((v) => v === '1' || v === 'true'),
    /** Waits before each retry of a failing delivery; after the last, the endpoint is disabled. */
    WEBHOOK_RETRY_SCHEDULE: durationListSetting('5s,1m,5m,30m,2h,6h,12h,24h'),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
    /** How often a replica follows the fan-out durables others opened and retires those no endpoint selects. */
    WEBHOOK_FANOUT_SWEEP_MS: z.coerce.number().int().min(10).max(600_000).default(2000),
    /** How long finished deliveries stay in the delivery log. */
    WEBHOOK_DELIVERY_RETENTION: durationSetting('30d'),
    /** How long a rotated-out secret keeps signing beside the new one. */
    WEBHOOK_SECRET_OVERLAP: durationSetting('24h'),
    /** Webhook endpoints one organisation may have. */
    WEBHOOK_MAX_ENDPOINTS: z.coerce.number().int().min(1).max(10_000).default(20),
    /** Attempts one process has in flight at once; of them to one organisation's endpoints, and to one endpoint (over every replica). */
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
    WEBHOOK_ORGANISATION_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(8),
    WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
    /** The central bank's daily rate file, fetched once a working day into the table of every organisation with books in its currency (unset: no fetch). */
    FX_RATES_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** When the bank has published on a working day (HH:MM in FX_RATES_TIME_ZONE): the CNB about 14:30, the ECB about 16:00 CET. */
    FX_RATES_AFTER: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM').default('16:30'),
    FX_RATES_TIME_ZONE: timeZoneSetting('Europe/Prague'),
    /** How often a replica looks whether the day's file is due. */
    FX_RATES_POLL_MS: z.coerce.number().int().min(10).max(86_400_000).default(600_000),
    /** The CNB's repo-rate history file (vyvoj_repo_historie.txt), fetched once a day into every organisation's history (unset: no fetch). */
    REPO_RATES_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** How often a replica looks whether the day's repo-rate file is due. */
    REPO_RATES_POLL_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
    /** ARES's REST API (https://ares.gov.cz/ekonomicke-subjekty-v-be/rest); unset: GET /v1/contacts/lookup answers 503 naming it. */
    ARES_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** VIES's REST API (https://ec.europa.eu/taxation_customs/vies/rest-api); unset: GET /v1/contacts/vat-check answers 503. */
    VIES_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** The VAT payers' register's SOAP endpoint (https://adisrws.mfcr.cz/dpr/axis2/services/rozhraniCRPDPH.rozhraniCRPDPHSOAP); unset: bills are not checked. */
    VAT_PAYERS_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** How long a register is waited for (a bill's check waits within the 3 s of a request to settings). */
    REGISTER_TIMEOUT_MS: z.coerce.number().int().min(100).max(2500).default(2000),
    /** How long a register's answer is served again without asking (the VAT payers' register is asked again each day regardless). */
    REGISTER_CACHE_TTL: durationSetting('24h'),
  }),
  entities,
  migrations,
  resources: loadSettingsResources,
  answerSealer: (deps) => deps.resources.box,
  consumers: (deps) => [...webhookFanout(deps.orm, deps.resources.webhooks.durables, () => deps.resources.sender.kick()), closedYearsConsumer()],
  responders: (deps) => [
    { subject: RPC_SUBJECTS.settingsBankStatements, handle: (em, data) => expectedStatements(em, data) },
    { subject: RPC_SUBJECTS.settingsHostingIntegration, handle: (em, data, orgId) => hostingIntegrationAnswer(em, data, orgId) },
    { subject: RPC_SUBJECTS.settingsExchangeRates, handle: (em, data, orgId) => ratesInForceFor({ em, orgId }, data) },
    { subject: RPC_SUBJECTS.settingsTaxFiler, handle: (em, _data, orgId) => taxFiler({ em, orgId }) },
    { subject: RPC_SUBJECTS.settingsRepoRates, handle: (em, _data, orgId) => repoRatesAnswer({ em, orgId }) },
    ...directoryResponders(deps),
  ],
  retention: (deps) => [
    { table: 'webhook_deliveries', key: ['id'], old: "status in ('succeeded', 'failed') and completed_at < ?", keepMs: deps.config.WEBHOOK_DELIVERY_RETENTION },
  ],
  routes: (app, deps) => {
    app.route('/internal', internalRoutes(deps));
    serveEndpoints(app, 'settings', settingsEndpoints(deps), deps.bus);
  },
  onStart: async (deps) => {
    deps.resources.sender.start();
    deps.resources.rateFetcher?.start();
    deps.resources.repoRateFetcher?.start();
    deps.resources.webhooks.durables.start(deps.config.WEBHOOK_FANOUT_SWEEP_MS);
    const signing = { box: deps.resources.box, log: deps.log };
    const em = deps.orm.em.fork();
    await sealPlaintextSigningKeys(em, signing);
    await em.transactional((tem) => currentSigningKey(tem, signing));
    if ((await em.count(OrganisationSchema, {})) > 0) return;
    await em.transactional(async (tem) => {
      const { org, secret } = await createOrganisation(
        serviceContext(deps, tem, 'bootstrap'),
        {
          name: deps.config.BOOTSTRAP_ORG_NAME,
          country: deps.config.BOOTSTRAP_ORG_COUNTRY,
          legal_currency: deps.config.BOOTSTRAP_ORG_CURRENCY,
        },
        deps.config.BOOTSTRAP_API_KEY,
      );
      if (!deps.config.BOOTSTRAP_API_KEY) {
        // Printed once, on first start only: the one way to learn the generated admin key.
        process.stdout.write(
          `\n  Bootstrap: organisation ${org.id} "${org.name}" created.\n  Admin API key (shown once, store it now): ${secret}\n` +
            `  To choose the key yourself on an empty database: BOOTSTRAP_API_KEY=$(npm run -s make-api-key) npm start\n\n`,
        );
      } else deps.log.info('bootstrap organisation created with BOOTSTRAP_API_KEY', { org_id: org.id });
    });
  },
});
