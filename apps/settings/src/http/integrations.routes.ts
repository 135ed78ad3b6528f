import { Hono } from 'hono';
import { bankIntegrationRequestSchema, hostingIntegrationPathSchema, hostingIntegrationRequestSchema } from '@ledgerline/contracts';
import { caller, parseOrThrow, respond, type KitEnv, type SecretBox, type ServiceDeps } from '@ledgerline/service-kit';
import { settingsSecretBox, type SecretsConfig } from '../secrets.js';
import {
  bankIntegrationView,
  hostingIntegrationView,
  putHostingIntegration,
  saveBankIntegration,
  type IntegrationContext,
} from '../domain/integrations.js';

type IntegrationConfig = SecretsConfig;

/** The service's secret box (see `settingsSecretBox`), which the integration secrets are sealed with. */
export function prepareIntegrationSecrets(deps: ServiceDeps<IntegrationConfig>): SecretBox {
  return settingsSecretBox(deps);
}

/** #7 and #26, mounted at /v1/settings/integrations. */
export function integrationRoutes(deps: ServiceDeps<IntegrationConfig>) {
  const ctx: IntegrationContext = { box: prepareIntegrationSecrets(deps), log: deps.log };
  const r = new Hono<KitEnv>();

  r.put('/cz/hosting/:id', async (c) => {
    const auth = caller(c);
    const { id } = parseOrThrow(hostingIntegrationPathSchema, c.req.param(), 'path');
    const input = parseOrThrow(hostingIntegrationRequestSchema, c.get('body'));
    const row = await putHostingIntegration(c.get('em'), ctx, auth.orgId, id, input);
    return respond(c, hostingIntegrationView(ctx, row));
  });

  r.post('/sk.bank_a', async (c) => {
    const auth = caller(c);
    const input = parseOrThrow(bankIntegrationRequestSchema, c.get('body'));
    return respond(c, bankIntegrationView(await saveBankIntegration(c.get('em'), ctx, auth.orgId, 'sk.bank_a', input)));
  });
  return r;
}
