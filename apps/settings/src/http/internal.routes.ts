import { Hono } from 'hono';
import { z } from 'zod';
import { UnauthorizedError, parseOrThrow, INTERNAL_HEADERS, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { ApiClientSchema, ApiKeySchema } from '../db/entities.js';
import { LAST_USED_RESOLUTION_MS, apiKeyStatus } from '../domain/api-keys.js';
import { clientStatus } from '../domain/api-clients.js';
import { jwks } from '../domain/access-tokens.js';

/**
 * Endpoints only the gateway calls (never routed publicly): API key verification by hash, whether
 * an access token's client still stands, and the public keys that verify access tokens.
 */
export function internalRoutes(deps: ServiceDeps) {
  const r = new Hono<KitEnv>();
  r.use('*', async (c, next) => {
    const token = deps.config.INTERNAL_TOKEN;
    if (token && c.req.header(INTERNAL_HEADERS.token) !== token) throw new UnauthorizedError('Internal endpoint', 'gateway_required');
    await next();
  });

  r.post('/credentials/api-key', async (c) => {
    const { key_hash } = parseOrThrow(z.object({ key_hash: z.string().regex(/^[0-9a-f]{64}$/) }), await c.req.json().catch(() => null));
    const em = deps.orm.em.fork();
    const key = await em.findOne(ApiKeySchema, { keyHash: key_hash }, { filters: false });
    if (!key) return c.json({ found: false }, 404);
    const now = new Date();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await em.nativeUpdate(ApiKeySchema, { id: key.id }, { lastUsedAt: now }, { filters: false });
    }
    return c.json({
      found: true,
      api_key_id: key.id,
      org_id: key.orgId,
      scopes: key.scopes,
      status: apiKeyStatus(key, now),
      expires_at: key.expiresAt?.toISOString() ?? null,
    });
  });

  // whether the client an access token was issued to still stands (the gateway caches the answer briefly)
  r.post('/credentials/api-client', async (c) => {
    const { api_client_id } = parseOrThrow(z.object({ api_client_id: z.int().min(1).max(Number.MAX_SAFE_INTEGER) }), await c.req.json().catch(() => null));
    const client = await deps.orm.em.fork().findOne(ApiClientSchema, { id: api_client_id }, { filters: false });
    if (!client) return c.json({ found: false }, 404);
    return c.json({ found: true, api_client_id: client.id, org_id: client.orgId, status: clientStatus(client) });
  });

  r.get('/jwks', async (c) => c.json(await jwks(deps.orm.em.fork())));
  return r;
}
