import type { EntityManager } from '@mikro-orm/postgresql';
import { MalformedRequestError, page, parseOrThrow, respond, type AuthContext, type EndpointHandlers, type Logger, type SecretBox } from '@ledgerline/service-kit';
import { isScope, tokenRequestSchema } from '@ledgerline/contracts';
import { apiKeyView, createApiKey, deleteApiKey, findApiKey, listApiKeys, revokeApiKey, updateApiKey } from '../domain/api-keys.js';
import { issueAccessToken } from '../domain/access-tokens.js';
import { clientView, createApiClient, deleteApiClient, findApiClient, listApiClients, revokeApiClient } from '../domain/api-clients.js';
import { assertGrantable } from '../domain/scope-granting.js';

type CredentialOperations =
  | 'listApiKeys' | 'createApiKey' | 'getApiKey' | 'updateApiKey' | 'deleteApiKey' | 'revokeApiKey'
  | 'listClients' | 'getClient' | 'revokeClient' | 'deleteClient' | 'createClient' | 'issueAccessToken';

/** Credentials: API keys, API clients and the token endpoint (RFC 6749 client credentials). */
export function credentialRoutes(box: SecretBox, log: Logger): Pick<EndpointHandlers<'settings'>, CredentialOperations> {
  // Changing, deleting or revoking a key is managing what it may do: allowed only for a
  // credential that holds every scope the key holds (decision 52).
  const managedKey = async (ctx: { em: EntityManager; auth: AuthContext }, id: number, action: string) => {
    const key = await findApiKey(ctx.em, id);
    assertGrantable(ctx.auth, key.scopes, `API key ${id} (to ${action} it)`);
    return key;
  };
  // the same for an API client: its tokens carry its scopes
  const managedClient = async (ctx: { em: EntityManager; auth: AuthContext }, id: number, action: string) => {
    const client = await findApiClient(ctx.em, id);
    assertGrantable(ctx.auth, client.scopes, `API client ${id} (to ${action} it)`);
    return client;
  };

  return {
    listApiKeys: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listApiKeys(ctx.em, q.from, q.take);
      return page(rows.map(apiKeyView), total, q.from, q.take);
    },
    createApiKey: async ({ ctx, input }) => {
      assertGrantable(ctx.auth, input.body.scopes, 'a new API key');
      const { record, key } = await createApiKey({ em: ctx.em, orgId: ctx.auth.orgId }, input.body);
      ctx.c.set('secretAnswer', true);
      return { ...apiKeyView(record), key };
    },
    getApiKey: async ({ ctx, input }) => apiKeyView(await findApiKey(ctx.em, input.params.id)),
    updateApiKey: async ({ ctx, input }) => {
      const { id } = input.params;
      const body = input.body;
      await managedKey(ctx, id, 'change');
      if (body.scopes) assertGrantable(ctx.auth, body.scopes, `API key ${id}`);
      return apiKeyView(await updateApiKey(ctx, id, body));
    },
    deleteApiKey: async ({ ctx, input }) => {
      await managedKey(ctx, input.params.id, 'delete');
      return deleteApiKey(ctx, input.params.id);
    },
    revokeApiKey: async ({ ctx, input }) => {
      await managedKey(ctx, input.params.id, 'revoke');
      return apiKeyView(await revokeApiKey(ctx, input.params.id));
    },

    listClients: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listApiClients(ctx.em, q.from, q.take);
      return page(rows.map(clientView), total, q.from, q.take);
    },
    getClient: async ({ ctx, input }) => clientView(await findApiClient(ctx.em, input.params.id)),
    revokeClient: async ({ ctx, input }) => {
      await managedClient(ctx, input.params.id, 'revoke');
      return clientView(await revokeApiClient(ctx, input.params.id));
    },
    deleteClient: async ({ ctx, input }) => {
      await managedClient(ctx, input.params.id, 'delete');
      return deleteApiClient(ctx, input.params.id);
    },
    createClient: async ({ ctx, input }) => {
      // a client's tokens carry at most what its creator holds; by default exactly that
      const scopes = input.body.scopes ?? ctx.auth.scopes.filter(isScope);
      assertGrantable(ctx.auth, scopes, 'a new API client');
      const created = await createApiClient({ em: ctx.em, orgId: ctx.auth.orgId }, { name: input.body.name, scopes });
      ctx.c.set('secretAnswer', true);
      return created;
    },
    // RFC 6749: JSON or the form encoding, client authentication by HTTP Basic or in the body
    issueAccessToken: async ({ ctx, input }) => {
      const { c } = ctx;
      let body: Record<string, unknown> = {};
      const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
      if (type === 'application/x-www-form-urlencoded') body = Object.fromEntries(new URLSearchParams((input.raw as string) ?? ''));
      else if (input.raw && typeof input.raw === 'object') body = input.raw as Record<string, unknown>;
      const basic = c.req.header('authorization');
      if (basic?.toLowerCase().startsWith('basic ')) {
        const decoded = Buffer.from(basic.slice(6), 'base64').toString('utf8');
        const i = decoded.indexOf(':');
        if (i < 0) throw new MalformedRequestError('Malformed Basic credentials', 'invalid_client');
        body.client_id = decodeURIComponent(decoded.slice(0, i));
        body.client_secret = decodeURIComponent(decoded.slice(i + 1));
      }
      const req = parseOrThrow(tokenRequestSchema, body);
      const token = await issueAccessToken(ctx.em, { box, log }, req.client_id, req.client_secret, req.scope);
      return respond(c, token, 200, { 'cache-control': 'no-store' });
    },
  };
}
