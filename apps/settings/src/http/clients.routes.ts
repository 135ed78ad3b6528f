import { Hono } from 'hono';
import { MalformedRequestError, parseOrThrow, respond, type KitEnv } from '@ledgerline/service-kit';
import { createApiClient, issueAccessToken, type SigningContext } from '../domain/access-tokens.js';
import { clientCreateSchema, tokenRequestSchema } from './schemas.js';
import { caller } from './auth.js';
import { assertGrantable } from '../domain/scope-granting.js';

export function clientRoutes() {
  const r = new Hono<KitEnv>();
  r.post('/settings/security/clients', async (c) => {
    const auth = caller(c);
    const input = parseOrThrow(clientCreateSchema, c.get('body'));
    // a client's tokens carry at most what its creator holds; by default exactly that
    const scopes = input.scopes ?? auth.scopes.filter((s) => s !== 'operator');
    assertGrantable(auth, scopes, 'a new API client');
    const created = await createApiClient(c.get('em'), auth.orgId, { name: input.name, scopes });
    c.set('secretAnswer', true);
    return respond(c, created);
  });
  return r;
}

/**
 * The token endpoint accepts the RFC 6749 form encoding as well as JSON, and client
 * authentication by HTTP Basic or in the body.
 */
export function tokenRoutes(signing: SigningContext) {
  const r = new Hono<KitEnv>();
  r.post('/oauth/token', async (c) => {
    let body: Record<string, unknown> = {};
    const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'application/x-www-form-urlencoded') {
      body = Object.fromEntries(new URLSearchParams(c.get('body') as string ?? ''));
    } else if (c.get('body') && typeof c.get('body') === 'object') body = c.get('body') as Record<string, unknown>;
    const basic = c.req.header('authorization');
    if (basic?.toLowerCase().startsWith('basic ')) {
      const decoded = Buffer.from(basic.slice(6), 'base64').toString('utf8');
      const i = decoded.indexOf(':');
      if (i < 0) throw new MalformedRequestError('Malformed Basic credentials', 'invalid_client');
      body.client_id = decodeURIComponent(decoded.slice(0, i));
      body.client_secret = decodeURIComponent(decoded.slice(i + 1));
    }
    const input = parseOrThrow(tokenRequestSchema, body);
    const token = await issueAccessToken(c.get('em'), signing, input.client_id, input.client_secret, input.scope);
    return respond(c, token, 200, { 'cache-control': 'no-store' });
  });
  return r;
}
