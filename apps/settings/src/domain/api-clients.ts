import type { Scope } from '@ledgerline/contracts/scopes';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SUBJECTS, type ClientRecord, type SettingsApiClientRevokedEvent } from '@ledgerline/contracts';
import { NotFoundError, SECRET_PREFIXES, findAndCount, generateSecret, secretHash, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { ApiClientSchema, type ApiClient } from '../db/entities.js';
import { LAST_USED_RESOLUTION_MS } from './api-keys.js';

/*
 * API clients after their creation (decision 149): listed and read without their secret,
 * revoked or deleted. A revoked client is refused by the token endpoint, and the gateway refuses
 * the access tokens it already holds: it checks each client with settings (cached briefly, like
 * an API key), and `settings.api_client.revoked` drops its cached answer at once.
 */

export function clientStatus(client: ApiClient): ClientRecord['status'] {
  return client.revokedAt ? 'revoked' : 'active';
}

/** The client as listed and read; its secret is never part of it. */
export function clientView(client: ApiClient): ClientRecord {
  return {
    id: client.id,
    client_id: client.clientId,
    name: client.name ?? null,
    scopes: client.scopes,
    status: clientStatus(client),
    created_at: client.createdAt.toISOString(),
    last_used_at: client.lastUsedAt?.toISOString() ?? null,
    revoked_at: client.revokedAt?.toISOString() ?? null,
  };
}

export async function createApiClient(scope: TenantScope, input: { name?: string | null; scopes: Scope[] }) {
  const { em, orgId } = scope;
  const clientId = generateSecret(SECRET_PREFIXES.clientId, 20);
  const clientSecret = generateSecret(SECRET_PREFIXES.clientSecret, 40);
  const client = em.create(ApiClientSchema, {
    orgId,
    name: input.name ?? null,
    clientId,
    secretHash: secretHash(clientSecret),
    scopes: [...new Set(input.scopes)],
    createdAt: new Date(),
  });
  await em.flush();
  return { id: client.id, client_id: clientId, client_secret: clientSecret, name: client.name ?? null, scopes: client.scopes };
}

/** Records that a client obtained a token (to the minute). */
export async function noteClientUse(em: EntityManager, client: ApiClient, now = new Date()): Promise<void> {
  if (client.lastUsedAt && now.getTime() - client.lastUsedAt.getTime() <= LAST_USED_RESOLUTION_MS) return;
  await em.nativeUpdate(ApiClientSchema, { id: client.id }, { lastUsedAt: now }, { filters: false });
}

export async function findApiClient(em: EntityManager, id: number): Promise<ApiClient> {
  const client = await em.findOne(ApiClientSchema, { id });
  if (!client) throw new NotFoundError(`API client ${id} does not exist`, 'client_not_found');
  return client;
}

export async function listApiClients(em: EntityManager, from: number, take: number) {
  const [rows, total] = await findAndCount(em, ApiClientSchema, {}, { orderBy: { id: 'asc' }, offset: from, limit: take });
  return { rows, total };
}

async function announceRevocation(ctx: TenantContext, client: ApiClient, reason: SettingsApiClientRevokedEvent['reason']) {
  await ctx.emit<SettingsApiClientRevokedEvent>({
    subject: SUBJECTS.settingsApiClientRevoked,
    orgId: client.orgId,
    resource: String(client.id),
    data: { api_client_id: client.id, client_id: client.clientId, reason },
  });
}

/** Revokes a client; revoking a revoked one answers it unchanged. */
export async function revokeApiClient(ctx: TenantContext, id: number): Promise<ApiClient> {
  const client = await findApiClient(ctx.em, id);
  if (!client.revokedAt) {
    client.revokedAt = ctx.now();
    await ctx.em.flush();
    await announceRevocation(ctx, client, 'revoked');
  }
  return client;
}

export async function deleteApiClient(ctx: TenantContext, id: number): Promise<{ id: number; deleted: true }> {
  const client = await findApiClient(ctx.em, id);
  await announceRevocation(ctx, client, 'deleted');
  ctx.em.remove(client);
  await ctx.em.flush();
  return { id, deleted: true };
}
