import type { Scope } from '@ledgerline/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SUBJECTS, type ApiKeyRevokedEvent } from '@ledgerline/contracts';
import { BusinessRuleError, NotFoundError, displayPrefix, generateSecret, secretHash, SECRET_PREFIXES, findAndCount, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { ApiKeySchema, type ApiKey, type ApiKeyStatus } from '../db/entities.js';


/**
 * How finely a credential's `last_used_at` is kept: it moves at most once a minute, so a key or
 * client used in a loop writes little.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

export function apiKeyStatus(key: ApiKey, now = new Date()): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The API key record as the interface shows it; the secret is never part of it. */
export function apiKeyView(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    status: apiKeyStatus(key),
    created_at: key.createdAt.toISOString(),
    expires_at: key.expiresAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

export interface NewApiKey {
  name: string;
  scopes: Scope[];
  expires_at?: string | null;
}

function futureExpiry(expires: string | null | undefined): Date | null {
  if (!expires) return null;
  const d = new Date(expires);
  if (d.getTime() <= Date.now()) {
    throw new BusinessRuleError('expires_at must be in the future', 'invalid_expiry', [
      { path: 'expires_at', message: 'must be in the future', code: 'invalid_expiry' },
    ]);
  }
  return d;
}

/** Creates a key and returns its record plus the secret, which exists only in this answer. */
export async function createApiKey(scope: TenantScope, input: NewApiKey, secret?: string) {
  const { em, orgId } = scope;
  const key = secret ?? generateSecret(SECRET_PREFIXES.apiKey);
  const entity = em.create(ApiKeySchema, {
    orgId,
    name: input.name,
    prefix: displayPrefix(key),
    keyHash: secretHash(key),
    scopes: [...new Set(input.scopes)],
    expiresAt: futureExpiry(input.expires_at),
    createdAt: new Date(),
  });
  await em.flush();
  return { record: entity, key };
}

export async function findApiKey(em: EntityManager, id: number): Promise<ApiKey> {
  const key = await em.findOne(ApiKeySchema, { id });
  if (!key) throw new NotFoundError(`API key ${id} does not exist`, 'api_key_not_found');
  return key;
}

export async function updateApiKey(ctx: TenantContext, id: number, input: Partial<NewApiKey>): Promise<ApiKey> {
  const key = await findApiKey(ctx.em, id);
  if (key.revokedAt) throw new BusinessRuleError('A revoked key cannot be changed', 'api_key_revoked');
  if (input.name !== undefined) key.name = input.name;
  const narrowed = input.scopes !== undefined && key.scopes.some((s) => !input.scopes!.includes(s));
  if (input.scopes !== undefined) key.scopes = [...new Set(input.scopes)];
  const before = key.expiresAt?.getTime() ?? null;
  if (input.expires_at !== undefined) key.expiresAt = futureExpiry(input.expires_at);
  const expiryMoved = (key.expiresAt?.getTime() ?? null) !== before;
  await ctx.em.flush();
  // The gateway caches what a key may do and until when; narrowing its scopes or moving its
  // expiry must take effect at once too, like a revocation.
  if (narrowed || expiryMoved) await announceRevocation(ctx, key, 'changed');
  return key;
}

async function announceRevocation(ctx: TenantContext, key: ApiKey, reason: ApiKeyRevokedEvent['reason']) {
  await ctx.emit<ApiKeyRevokedEvent>({
    subject: SUBJECTS.settingsApiKeyRevoked,
    orgId: key.orgId,
    resource: String(key.id),
    data: { api_key_id: key.id, key_hash: key.keyHash, reason },
  });
}

export async function revokeApiKey(ctx: TenantContext, id: number): Promise<ApiKey> {
  const key = await findApiKey(ctx.em, id);
  if (!key.revokedAt) {
    key.revokedAt = ctx.now();
    await ctx.em.flush();
    await announceRevocation(ctx, key, 'revoked');
  }
  return key;
}

export async function deleteApiKey(ctx: TenantContext, id: number): Promise<{ id: number; deleted: true }> {
  const key = await findApiKey(ctx.em, id);
  await announceRevocation(ctx, key, 'deleted');
  ctx.em.remove(key);
  await ctx.em.flush();
  return { id, deleted: true };
}

export async function listApiKeys(em: EntityManager, from: number, take: number) {
  const [rows, total] = await findAndCount(em, ApiKeySchema, {}, { orderBy: { id: 'asc' }, offset: from, limit: take });
  return { rows, total };
}
