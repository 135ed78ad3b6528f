import type { EntityManager } from '@mikro-orm/postgresql';
import { SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';
import { randomUUID } from 'node:crypto';
import { SECRET_PREFIXES, UnauthorizedError, generateSecret, hasValidChecksum, safeEqual, secretHash } from '@ledgerline/service-kit';
import { ApiClientSchema, SigningKeySchema, type SigningKey } from '../db/entities.js';

export const TOKEN_ISSUER = 'ledgerline-settings';
export const TOKEN_AUDIENCE = 'ledgerline-api';

/** The signing key in use: the newest one, created on first need. */
export async function currentSigningKey(em: EntityManager): Promise<SigningKey> {
  const [existing] = await em.find(SigningKeySchema, {}, { orderBy: { createdAt: 'desc' }, limit: 1 });
  if (existing) return existing;
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const kid = randomUUID();
  const key = em.create(SigningKeySchema, {
    kid,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'EdDSA' },
    createdAt: new Date(),
  });
  await em.flush();
  return key;
}

export async function jwks(em: EntityManager) {
  const keys = await em.find(SigningKeySchema, {}, { orderBy: { createdAt: 'desc' } });
  return { keys: keys.map((k) => k.publicJwk) };
}

export async function createApiClient(em: EntityManager, orgId: number, input: { name?: string | null; scopes?: string[] }) {
  const clientId = generateSecret(SECRET_PREFIXES.clientId, 20);
  const clientSecret = generateSecret(SECRET_PREFIXES.clientSecret, 40);
  const client = em.create(ApiClientSchema, {
    orgId,
    name: input.name ?? null,
    clientId,
    secretHash: secretHash(clientSecret),
    scopes: [...new Set(input.scopes ?? ['admin'])],
    createdAt: new Date(),
  });
  await em.flush();
  return { id: client.id, client_id: clientId, client_secret: clientSecret, name: client.name ?? null, scopes: client.scopes };
}

export const ACCESS_TOKEN_TTL_SECONDS = 900;

/**
 * OAuth 2.0 client credentials grant (RFC 6749 §4.4): a valid client gets a short-lived EdDSA
 * signed JWT carrying its organisation and scopes (optionally narrowed by `scope`).
 */
export async function issueAccessToken(em: EntityManager, clientId: string, clientSecret: string, requestedScope?: string) {
  const invalid = () => new UnauthorizedError('Unknown client or wrong secret', 'invalid_client');
  if (!hasValidChecksum(clientSecret, SECRET_PREFIXES.clientSecret)) throw invalid();
  // Token requests carry no organisation yet, so this lookup is deliberately not tenant-filtered.
  const client = await em.findOne(ApiClientSchema, { clientId }, { filters: false });
  if (!client || !safeEqual(client.secretHash, secretHash(clientSecret))) throw invalid();
  let scopes = client.scopes;
  if (requestedScope) {
    const asked = requestedScope.split(' ').filter(Boolean);
    const allowed = asked.filter((s) => client.scopes.includes('admin') || client.scopes.includes(s));
    if (allowed.length !== asked.length) throw new UnauthorizedError('The client may not request that scope', 'invalid_scope');
    scopes = asked;
  }
  const key = await currentSigningKey(em);
  const privateKey = await importJWK(key.privateJwk, 'EdDSA');
  const token = await new SignJWT({ org: client.orgId, scope: scopes.join(' '), cid: client.id })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'at+jwt' })
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_AUDIENCE)
    .setSubject(client.clientId)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
    .sign(privateKey);
  return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: scopes.join(' ') };
}
