import { INTERNAL_ROUTES } from '@ledgerline/contracts/internal';
import { createLocalJWKSet, errors as joseErrors, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';
import type { UpstreamSet } from '../proxy/upstream-set.js';

/*
 * The access tokens' public keys (JWKS) from whichever settings replica answers (issue 15): the
 * keys live in settings' database, so every replica serves the same set; the gateway asks them in
 * the set's order, skipping one that refuses, and keeps the set for `maxAgeMs`. A token signed by a
 * key the cached set lacks (a key rotated since) fetches the set again, at most once per
 * `cooldownMs`. No replica answering is `JWKSTimeout`, which the verifier answers as 503.
 */

type Resolver = ReturnType<typeof createLocalJWKSet>;

export class ReplicatedJwks {
  private local: Resolver | null = null;
  private fetchedAt = 0;
  private pending: Promise<Resolver> | null = null;

  constructor(
    private readonly settings: UpstreamSet,
    private readonly headers: Record<string, string>,
    private readonly maxAgeMs = 10 * 60_000,
    private readonly cooldownMs = 5_000,
    private readonly timeoutMs = 5_000,
  ) {}

  /** The key resolver `jwtVerify` takes. */
  readonly resolve = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    const stale = !this.local || Date.now() - this.fetchedAt > this.maxAgeMs;
    const local = stale ? await this.refresh() : this.local!;
    try {
      return await local(header, token);
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey) || Date.now() - this.fetchedAt < this.cooldownMs) throw err;
      return (await this.refresh())(header, token);
    }
  };

  private refresh(): Promise<Resolver> {
    this.pending ??= this.fetchFromReplicas().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async fetchFromReplicas(): Promise<Resolver> {
    for (const replica of this.settings.order()) {
      try {
        const res = await fetch(new URL(INTERNAL_ROUTES.jwks.path, replica.url), { headers: this.headers, signal: AbortSignal.timeout(this.timeoutMs) });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        const parsed = INTERNAL_ROUTES.jwks.response.safeParse(await res.json());
        if (!parsed.success) throw new Error('not a JWK set');
        const set = parsed.data as JSONWebKeySet;
        this.local = createLocalJWKSet(set);
        this.fetchedAt = Date.now();
        this.settings.markUp(replica);
        return this.local;
      } catch {
        this.settings.markDown(replica);
      }
    }
    // a set fetched before still verifies until the replicas are back
    if (this.local) return this.local;
    throw new joseErrors.JWKSTimeout();
  }
}
