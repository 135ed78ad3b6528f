import { isScope } from '@ledgerline/contracts/scopes';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';
import { randomUUID } from 'node:crypto';
import {
  SECRET_PREFIXES,
  SecretBoxError,
  UnauthorizedError,
  hasValidChecksum,
  safeEqual,
  secretHash,
  type Logger,
  type SecretBox,
} from '@ledgerline/service-kit';
import { ApiClientSchema, SigningKeySchema, type SigningKey } from '../db/entities.js';
import { noteClientUse } from './api-clients.js';

export const TOKEN_ISSUER = 'ledgerline-settings';
export const TOKEN_AUDIENCE = 'ledgerline-api';

/** What signing needs: the secret box the private keys are sealed with, and a log for key trouble. */
export interface SigningContext {
  box: SecretBox;
  log: Pick<Logger, 'warn' | 'info'>;
}

/** A signing key with its private JWK opened, for signing only (never stored or answered like this). */
export interface OpenSigningKey {
  kid: string;
  privateJwk: Record<string, unknown>;
}

/** The associated data binding a sealed private key to its row: a ciphertext copied to another kid does not open. */
const signingKeyAad = (kid: string) => `signing_key:${kid}:private_jwk`;

function sealPrivateJwk(box: SecretBox, kid: string, jwk: Record<string, unknown>): string {
  return box.seal(JSON.stringify(jwk), signingKeyAad(kid));
}

/** Seals a row that still holds its private key in clear (written before keys were sealed). */
function sealInPlace(box: SecretBox, key: SigningKey): void {
  if (!key.privateJwk) return;
  key.privateJwkSealed = sealPrivateJwk(box, key.kid, key.privateJwk);
  key.privateJwk = null;
}

/**
 * Boot step: seals every signing key still stored in clear, so the table never keeps private key
 * material at rest. Idempotent; a concurrent instance doing the same only seals again.
 */
export async function sealPlaintextSigningKeys(em: EntityManager, ctx: SigningContext): Promise<number> {
  return em.transactional(async (tem) => {
    // A handful of rows: read them all rather than query inside a json column.
    const plain = (await tem.find(SigningKeySchema, {})).filter((k) => k.privateJwk);
    for (const key of plain) sealInPlace(ctx.box, key);
    await tem.flush();
    if (plain.length) ctx.log.info('sealed signing keys stored in clear', { count: plain.length });
    return plain.length;
  });
}

async function createSigningKey(em: EntityManager, ctx: SigningContext): Promise<OpenSigningKey> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const kid = randomUUID();
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'EdDSA' };
  em.create(SigningKeySchema, {
    kid,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' },
    privateJwk: null,
    privateJwkSealed: sealPrivateJwk(ctx.box, kid, privateJwk),
    createdAt: new Date(),
  });
  await em.flush();
  return { kid, privateJwk };
}

/**
 * The signing key in use: the newest one, created on first need. A key still in clear (written by an
 * older instance) is used and sealed in the caller's transaction. A key sealed under another
 * SECRETS_KEY cannot be used: a new key is made (the old public key stays in the JWKS, so tokens it
 * signed verify until they expire).
 */
export async function currentSigningKey(em: EntityManager, ctx: SigningContext): Promise<OpenSigningKey> {
  const [existing] = await em.find(SigningKeySchema, {}, { orderBy: { createdAt: 'desc' }, limit: 1 });
  if (!existing) return createSigningKey(em, ctx);
  if (existing.privateJwk) {
    const privateJwk = existing.privateJwk;
    sealInPlace(ctx.box, existing);
    await em.flush();
    return { kid: existing.kid, privateJwk };
  }
  try {
    return { kid: existing.kid, privateJwk: JSON.parse(ctx.box.open(existing.privateJwkSealed ?? '', signingKeyAad(existing.kid))) };
  } catch (e) {
    if (!(e instanceof SecretBoxError)) throw e;
    ctx.log.warn('the newest signing key cannot be opened with the current SECRETS_KEY; a new signing key is made', { kid: existing.kid, reason: e.message });
    return createSigningKey(em, ctx);
  }
}

export async function jwks(em: EntityManager) {
  const keys = await em.find(SigningKeySchema, {}, { orderBy: { createdAt: 'desc' } });
  return { keys: keys.map((k) => k.publicJwk) };
}

export const ACCESS_TOKEN_TTL_SECONDS = 900;

/**
 * OAuth 2.0 client credentials grant (RFC 6749 §4.4): a valid client gets a short-lived EdDSA
 * signed JWT carrying its organisation and scopes (optionally narrowed by `scope`).
 */
export async function issueAccessToken(em: EntityManager, ctx: SigningContext, clientId: string, clientSecret: string, requestedScope?: string) {
  const invalid = () => new UnauthorizedError('Unknown client or wrong secret', 'invalid_client');
  if (!hasValidChecksum(clientSecret, SECRET_PREFIXES.clientSecret)) throw invalid();
  // Token requests carry no organisation yet, so this lookup is deliberately not tenant-filtered.
  const client = await em.findOne(ApiClientSchema, { clientId }, { filters: false });
  // a revoked client is refused like an unknown one: the answer tells a holder of a leaked secret nothing
  if (!client || !safeEqual(client.secretHash, secretHash(clientSecret)) || client.revokedAt) throw invalid();
  let scopes = client.scopes;
  if (requestedScope) {
    const asked = requestedScope.split(' ').filter(Boolean);
    if (!asked.every(isScope)) throw new UnauthorizedError('The client asked for a scope that does not exist', 'invalid_scope');
    const allowed = asked.filter((s) => client.scopes.includes('admin') || client.scopes.includes(s));
    if (allowed.length !== asked.length) throw new UnauthorizedError('The client may not request that scope', 'invalid_scope');
    scopes = allowed;
  }
  const key = await currentSigningKey(em, ctx);
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
  await noteClientUse(em, client);
  return { access_token: token, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: scopes.join(' ') };
}
