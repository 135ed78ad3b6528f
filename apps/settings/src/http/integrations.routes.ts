import { Hono } from 'hono';
import { bankIntegrationRequestSchema, hostingIntegrationPathSchema, hostingIntegrationRequestSchema } from '@ledgerline/contracts';
import { caller, loadSecretBox, parseOrThrow, respond, type BaseConfig, type KitEnv, type SecretBox, type ServiceDeps } from '@ledgerline/service-kit';
import {
  bankIntegrationView,
  hostingIntegrationView,
  putHostingIntegration,
  saveBankIntegration,
  type IntegrationContext,
} from '../domain/integrations.js';

type IntegrationConfig = BaseConfig & { SECRETS_KEY?: string; DATA_DIR?: string };

const boxes = new WeakMap<object, SecretBox>();

/**
 * Loads the secret box of the service (once). Called first thing at boot (`onStart`), so a
 * production service without SECRETS_KEY stops before it seeds or prints anything.
 */
export function prepareIntegrationSecrets(deps: ServiceDeps<IntegrationConfig>): SecretBox {
  let box = boxes.get(deps);
  if (!box) {
    box = loadSecretBox(deps.config, deps.log);
    boxes.set(deps, box);
  }
  return box;
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
