import type { UpstreamSet } from '../proxy/upstream-set.js';
import { jwtVerify, errors as joseErrors } from 'jose';
import { ReplicatedJwks } from './replicated-jwks.js';
import { request, type Dispatcher } from 'undici';
import { SECRET_PREFIXES, UnauthorizedError, UpstreamError, hasValidChecksum, safeEqual, secretHash, INTERNAL_HEADERS, type AuthContext } from '@ledgerline/service-kit';

interface CachedKey {
  auth: AuthContext | null;
  expiresAt: number;
  keyExpiresAt: number | null;
}

const TOKEN_ISSUER = 'ledgerline-settings';
/** How long "no such key" is remembered: a guessed key costs one lookup, not one per attempt. */
const NEGATIVE_TTL_MS = 60_000;
/** Most keys remembered at once (positive and negative); the oldest entry goes first. */
const MAX_CACHED_KEYS = 50_000;
const TOKEN_AUDIENCE = 'ledgerline-api';

/** What the gateway learnt of a request's credential before verifying it (`inspect`). */
export interface CredentialInspection {
  state: 'known' | 'lookup' | 'other';
  /** The API key's SHA-256 hash; null for an access token or a header without a bearer token. */
  keyHash: string | null;
}

const bearerToken = (authorization: string | undefined): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
const isAccessToken = (token: string): boolean => token.split('.').length === 3;
/** An API key of ours must carry its checksum; a key without our prefix is only looked up. */
const wellFormedKey = (token: string): boolean => !token.startsWith(`${SECRET_PREFIXES.apiKey}_`) || hasValidChecksum(token, SECRET_PREFIXES.apiKey);

/**
 * Verifies bearer credentials. API keys are looked up in settings by their SHA-256 hash and
 * cached for a short TTL; a `settings.api_key.revoked` event drops the entry at once. Access
 * tokens are JWTs verified against the settings service's public keys (JWKS).
 */
export class CredentialVerifier {
  private cache = new Map<string, CachedKey>();
  private inflight = new Map<string, Promise<CachedKey>>();
  private jwks: ReplicatedJwks;

  constructor(
    private readonly settings: UpstreamSet,
    private readonly ttlMs: number,
    private readonly operatorToken: string | undefined,
    private readonly internalToken: string | undefined,
  ) {
    // the signing keys are the same on every settings replica (they live in its database)
    this.jwks = new ReplicatedJwks(settings, internalToken ? { [INTERNAL_HEADERS.token]: internalToken } : {});
  }

  /** Drops a key from the cache (revoked, deleted or narrowed). */
  forget(keyHash: string): void {
    this.cache.delete(keyHash);
  }

  /**
   * What verifying this header will cost, from one hash of the key: `known` (an API key verified
   * and cached as valid: no lookup, no guess), `lookup` (an API key neither cached nor already
   * being looked up: it will ask settings), `other` (a token, a malformed key, or a lookup already
   * in flight that this request shares). The key's hash comes with it, for `verify` to reuse.
   */
  inspect(authorization: string | undefined): CredentialInspection {
    const token = bearerToken(authorization);
    if (!token || isAccessToken(token)) return { state: 'other', keyHash: null };
    const keyHash = secretHash(token);
    const entry = this.cache.get(keyHash);
    const now = Date.now();
    if (entry && entry.expiresAt > now) {
      return { state: entry.auth && (entry.keyExpiresAt === null || entry.keyExpiresAt > now) ? 'known' : 'other', keyHash };
    }
    // a key cached as valid passed its checksum when it was looked up; only a new one is checked
    if (!wellFormedKey(token)) return { state: 'other', keyHash };
    return { state: this.inflight.has(keyHash) ? 'other' : 'lookup', keyHash };
  }

  isOperator(token: string): boolean {
    return !!this.operatorToken && safeEqual(token, this.operatorToken);
  }

  /** `inspection`: what `inspect` said of this same header, so the key is not hashed twice. */
  async verify(authorization: string | undefined, inspection?: CredentialInspection): Promise<AuthContext> {
    if (!authorization) throw new UnauthorizedError('Send Authorization: Bearer <API key or access token>', 'missing_credentials');
    const token = bearerToken(authorization);
    if (!token) throw new UnauthorizedError('The Authorization header must use the Bearer scheme', 'invalid_credentials');
    if (isAccessToken(token)) return this.verifyAccessToken(token);
    return this.verifyApiKey(token, inspection?.keyHash ?? secretHash(token));
  }

  private async verifyAccessToken(token: string): Promise<AuthContext> {
    try {
      const { payload } = await jwtVerify(token, this.jwks.resolve, { issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE, algorithms: ['EdDSA'] });
      if (typeof payload.org !== 'number' || typeof payload.scope !== 'string') throw new Error('claims');
      return {
        orgId: payload.org,
        scopes: payload.scope.split(' ').filter(Boolean),
        credentialId: `client:${payload.sub}`,
        credentialType: 'access_token',
      };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new UnauthorizedError('The access token has expired', 'token_expired');
      if (err instanceof joseErrors.JWKSTimeout) throw new UpstreamError(503, 'settings', 'cannot verify access tokens now');
      throw new UnauthorizedError('The access token is not valid', 'invalid_token');
    }
  }

  private async verifyApiKey(token: string, hash: string): Promise<AuthContext> {
    const now = Date.now();
    let entry = this.cache.get(hash);
    if (!entry || entry.expiresAt <= now) {
      if (!wellFormedKey(token)) throw new UnauthorizedError('The API key is not valid', 'invalid_api_key');
      let pending = this.inflight.get(hash);
      if (!pending) {
        pending = this.lookup(hash).finally(() => this.inflight.delete(hash));
        this.inflight.set(hash, pending);
      }
      entry = await pending;
      this.cache.delete(hash);
      this.cache.set(hash, entry);
      if (this.cache.size > MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value!);
    }
    if (!entry.auth) throw new UnauthorizedError('The API key is not valid', 'invalid_api_key');
    if (entry.keyExpiresAt !== null && entry.keyExpiresAt <= now) throw new UnauthorizedError('The API key has expired', 'api_key_expired');
    return entry.auth;
  }

  private async lookup(hash: string): Promise<CachedKey> {
    let res: Dispatcher.ResponseData | null = null;
    // a lookup changes nothing: a replica that cannot be reached is passed over for the next
    for (const replica of this.settings.order()) {
      try {
        res = await request(new URL('/internal/credentials/api-key', replica.origin), {
          dispatcher: replica.pool,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(this.internalToken ? { [INTERNAL_HEADERS.token]: this.internalToken } : {}) },
          body: JSON.stringify({ key_hash: hash }),
          headersTimeout: 5_000,
          bodyTimeout: 5_000,
        });
        this.settings.markUp(replica);
        break;
      } catch {
        this.settings.markDown(replica);
      }
    }
    if (!res) throw new UpstreamError(503, 'settings', 'cannot verify API keys now');
    const body = (await res.body.json().catch(() => null)) as null | {
      found: boolean;
      api_key_id: number;
      org_id: number;
      scopes: string[];
      status: string;
      expires_at: string | null;
    };
    const now = Date.now();
    if (res.statusCode === 404 || (body && body.found === false)) return { auth: null, expiresAt: now + NEGATIVE_TTL_MS, keyExpiresAt: null };
    if (res.statusCode !== 200 || !body) throw new UpstreamError(503, 'settings', 'cannot verify API keys now');
    if (body.status === 'revoked') return { auth: null, expiresAt: now + this.ttlMs, keyExpiresAt: null };
    return {
      auth: { orgId: body.org_id, scopes: body.scopes, credentialId: `key:${body.api_key_id}`, credentialType: 'api_key' },
      expiresAt: now + this.ttlMs,
      keyExpiresAt: body.expires_at ? Date.parse(body.expires_at) : null,
    };
  }
}
