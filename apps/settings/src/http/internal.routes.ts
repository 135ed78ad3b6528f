import { Hono, type Context } from 'hono';
import type { z } from 'zod';
import { INTERNAL_ROUTES, type ApiClientVerification, type ApiKeyVerification } from '@ledgerline/contracts';
import { UnauthorizedError, parseOrThrow, INTERNAL_HEADERS, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { ApiClientSchema, ApiKeySchema } from '../db/entities.js';
import { LAST_USED_RESOLUTION_MS, apiKeyStatus } from '../domain/api-keys.js';
import { clientStatus } from '../domain/api-clients.js';
import { jwks } from '../domain/access-tokens.js';

/** The answer an internal operation declares (checked by the compiler), 404 when nothing was found. */
const answer = <R extends { response: z.ZodType }>(c: Context<KitEnv>, _route: R, body: z.input<R['response']>, status: 200 | 404 = 200) => c.json(body as object, status);

/**
 * The operations only the gateway calls (`INTERNAL_ROUTES` in the contracts; never routed
 * publicly): API key verification by hash, whether an access token's client still stands, and the
 * public keys that verify access tokens.
 */
export function internalRoutes(deps: ServiceDeps) {
  const r = new Hono<KitEnv>();
  r.use('*', async (c, next) => {
    const token = deps.config.INTERNAL_TOKEN;
    if (token && c.req.header(INTERNAL_HEADERS.token) !== token) throw new UnauthorizedError('Internal endpoint', 'gateway_required');
    await next();
  });
  const path = (p: string) => p.replace(/^\/internal/, '');

  const { verifyApiKey, verifyApiClient } = INTERNAL_ROUTES;
  r.post(path(verifyApiKey.path), async (c) => {
    const { key_hash } = parseOrThrow(verifyApiKey.body, await c.req.json().catch(() => null));
    const em = deps.orm.em.fork();
    const key = await em.findOne(ApiKeySchema, { keyHash: key_hash }, { filters: false });
    if (!key) return answer(c, verifyApiKey, { found: false } satisfies ApiKeyVerification, 404);
    const now = new Date();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await em.nativeUpdate(ApiKeySchema, { id: key.id }, { lastUsedAt: now }, { filters: false });
    }
    return answer(c, verifyApiKey, {
      found: true,
      api_key_id: key.id,
      org_id: key.orgId,
      scopes: key.scopes,
      status: apiKeyStatus(key, now),
      expires_at: key.expiresAt?.toISOString() ?? null,
    });
  });

  // whether the client an access token was issued to still stands (the gateway caches the answer briefly)
  r.post(path(verifyApiClient.path), async (c) => {
    const { api_client_id } = parseOrThrow(verifyApiClient.body, await c.req.json().catch(() => null));
    const client = await deps.orm.em.fork().findOne(ApiClientSchema, { id: api_client_id }, { filters: false });
    if (!client) return answer(c, verifyApiClient, { found: false } satisfies ApiClientVerification, 404);
    return answer(c, verifyApiClient, { found: true, api_client_id: client.id, org_id: client.orgId, status: clientStatus(client) });
  });

  r.get(path(INTERNAL_ROUTES.jwks.path), async (c) => answer(c, INTERNAL_ROUTES.jwks, (await jwks(deps.orm.em.fork())) as z.input<typeof INTERNAL_ROUTES.jwks.response>));
  return r;
}
