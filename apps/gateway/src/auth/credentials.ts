import type { z } from 'zod';
import { INTERNAL_ROUTES } from '@ledgerline/contracts/internal';
import type { UpstreamSet } from '../proxy/upstream-set.js';
import { jwtVerify, errors as joseErrors } from 'jose';
import { ReplicatedJwks } from './replicated-jwks.js';
import { LookupCache } from './lookup-cache.js';
import { request, type Dispatcher } from 'undici';
import { UnauthorizedError, UpstreamError } from '@ledgerline/service-kit/errors';
import { SECRET_PREFIXES, hasValidChecksum, safeEqual, secretHash } from '@ledgerline/service-kit/credentials';
import { INTERNAL_HEADERS, type AuthContext } from '@ledgerline/service-kit/http/context';

interface CachedKey {
  auth: AuthContext | null;
  expiresAt: number;
  keyExpiresAt: number | null;
}

/** Only an answer that lets requests in is served stale: a refusal is looked up again at its TTL. */
const letsIn = (k: CachedKey): boolean => k.auth !== null;

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

/** Whether an access token's client still stands, as settings last said. */
interface CachedClient {
  orgId: number | null;
  active: boolean;
  expiresAt: number;
}

/**
 * Verifies bearer credentials. API keys are looked up in settings by their SHA-256 hash and
 * cached for a short TTL; a `settings.api_key.revoked` event drops the entry at once. Access
 * tokens are JWTs verified against the settings service's public keys (JWKS), and their client
 * is looked up the way a key is (cached for the same TTL, dropped by `settings.api_client.revoked`),
 * so a revoked client's tokens stop working at once, and within the TTL on a gateway that missed
 * the event.
 *
 * Past its TTL, an answer that let requests in keeps doing so for up to `staleMs` while settings
 * is asked again in the background (`LookupCache.current`): a settings that answers replaces it
 * by the next request, so a missed revocation still takes effect a TTL later; a settings that is
 * down or stalled holds none of the requests its cached credentials make, where each used to wait
 * for the lookup (up to 5 s) and most were answered 503.
 */
export class CredentialVerifier {
  private keys = new LookupCache<string, CachedKey>(MAX_CACHED_KEYS);
  private clients = new LookupCache<number, CachedClient>(MAX_CACHED_KEYS);
  private jwks: ReplicatedJwks;

  constructor(
    private readonly settings: UpstreamSet,
    private readonly ttlMs: number,
    private readonly operatorToken: string | undefined,
    private readonly internalToken: string | undefined,
    /** How long past its TTL a cached answer that lets the request in still serves while it is looked up again (0: never). */
    private readonly staleMs = 0,
  ) {
    // the signing keys are the same on every settings replica (they live in its database)
    this.jwks = new ReplicatedJwks(settings, internalToken ? { [INTERNAL_HEADERS.token]: internalToken } : {});
  }

  /** Drops a key from the cache (revoked, deleted or narrowed). */
  forget(keyHash: string): void {
    this.keys.delete(keyHash);
  }

  /** Drops an API client from the cache (revoked or deleted): its next token asks settings again. */
  forgetClient(apiClientId: number): void {
    this.clients.delete(apiClientId);
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
    const entry = this.keys.peek(keyHash);
    const now = Date.now();
    if (entry && (entry.expiresAt > now || this.keys.servesStale(entry, this.staleMs, letsIn, now))) {
      return { state: entry.auth && (entry.keyExpiresAt === null || entry.keyExpiresAt > now) ? 'known' : 'other', keyHash };
    }
    // a key cached as valid passed its checksum when it was looked up; only a new one is checked
    if (!wellFormedKey(token)) return { state: 'other', keyHash };
    return { state: this.keys.isLookingUp(keyHash) ? 'other' : 'lookup', keyHash };
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
      if (typeof payload.org !== 'number' || typeof payload.scope !== 'string' || typeof payload.cid !== 'number') throw new Error('claims');
      const client = await this.client(payload.cid);
      if (!client.active || client.orgId !== payload.org) throw new UnauthorizedError('The API client of this access token has been revoked', 'token_revoked');
      return {
        orgId: payload.org,
        scopes: payload.scope.split(' ').filter(Boolean),
        credentialId: `client:${payload.sub}`,
        credentialType: 'access_token',
      };
    } catch (err) {
      if (err instanceof UnauthorizedError || err instanceof UpstreamError) throw err;
      if (err instanceof joseErrors.JWTExpired) throw new UnauthorizedError('The access token has expired', 'token_expired');
      if (err instanceof joseErrors.JWKSTimeout) throw new UpstreamError(503, 'settings', 'cannot verify access tokens now');
      throw new UnauthorizedError('The access token is not valid', 'invalid_token');
    }
  }

  private async verifyApiKey(token: string, hash: string): Promise<AuthContext> {
    const now = Date.now();
    const cached = this.keys.peek(hash);
    // a key never looked up must carry its checksum before settings is asked; a cached one passed it
    if (!cached && !wellFormedKey(token)) throw new UnauthorizedError('The API key is not valid', 'invalid_api_key');
    const entry = await this.keys.current(hash, (h) => this.lookup(h), this.staleMs, letsIn, now);
    if (!entry.auth) throw new UnauthorizedError('The API key is not valid', 'invalid_api_key');
    if (entry.keyExpiresAt !== null && entry.keyExpiresAt <= now) throw new UnauthorizedError('The API key has expired', 'api_key_expired');
    return entry.auth;
  }

  /**
   * Asks settings (one internal credential endpoint); a lookup changes nothing, so a replica that
   * cannot be reached is passed over for the next. No replica: 503 naming what could not be verified.
   */
  private async askSettings(path: string, body: unknown, what: string): Promise<Dispatcher.ResponseData> {
    for (const replica of this.settings.order()) {
      try {
        const res = await request(new URL(path, replica.origin), {
          dispatcher: replica.pool,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(this.internalToken ? { [INTERNAL_HEADERS.token]: this.internalToken } : {}) },
          body: JSON.stringify(body),
          headersTimeout: 5_000,
          bodyTimeout: 5_000,
        });
        this.settings.markUp(replica);
        return res;
      } catch {
        this.settings.markDown(replica);
      }
    }
    throw new UpstreamError(503, 'settings', `cannot verify ${what} now`);
  }

  private client(id: number): Promise<CachedClient> {
    const entry = this.clients.fresh(id);
    return entry ? Promise.resolve(entry) : this.clients.current(id, (i) => this.lookupClient(i), this.staleMs, (c) => c.active);
  }

  private async lookupClient(id: number): Promise<CachedClient> {
    const route = INTERNAL_ROUTES.verifyApiClient;
    const res = await this.askSettings(route.path, { api_client_id: id } satisfies z.input<typeof route.body>, 'access tokens');
    const body = route.response.safeParse(await res.body.json().catch(() => null));
    const expiresAt = Date.now() + this.ttlMs;
    if (res.statusCode === 404 || (body.success && !body.data.found)) return { orgId: null, active: false, expiresAt };
    if (res.statusCode !== 200 || !body.success || !body.data.found) throw new UpstreamError(503, 'settings', 'cannot verify access tokens now');
    return { orgId: body.data.org_id, active: body.data.status === 'active', expiresAt };
  }

  private async lookup(hash: string): Promise<CachedKey> {
    const route = INTERNAL_ROUTES.verifyApiKey;
    const res = await this.askSettings(route.path, { key_hash: hash } satisfies z.input<typeof route.body>, 'API keys');
    // the answer is parsed by the schema settings answers by: a reply of another shape is settings not answering
    const parsed = route.response.safeParse(await res.body.json().catch(() => null));
    const now = Date.now();
    if (res.statusCode === 404 || (parsed.success && !parsed.data.found)) return { auth: null, expiresAt: now + NEGATIVE_TTL_MS, keyExpiresAt: null };
    if (res.statusCode !== 200 || !parsed.success || !parsed.data.found) throw new UpstreamError(503, 'settings', 'cannot verify API keys now');
    const body = parsed.data;
    if (body.status === 'revoked') return { auth: null, expiresAt: now + this.ttlMs, keyExpiresAt: null };
    return {
      auth: { orgId: body.org_id, scopes: body.scopes, credentialId: `key:${body.api_key_id}`, credentialType: 'api_key' },
      expiresAt: now + this.ttlMs,
      keyExpiresAt: body.expires_at ? Date.parse(body.expires_at) : null,
    };
  }
}
