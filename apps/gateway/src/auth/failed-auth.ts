import { RateLimitedError } from '@ledgerline/service-kit/errors';
import { RateLimiter } from './rate-limit.js';

/**
 * Failed authentication is limited per client address, and per presented key prefix: once a
 * bucket is empty, further attempts get 429 with Retry-After before any lookup is made, so a
 * flood of wrong keys costs neither settings nor the database anything. Successful requests
 * take nothing from these buckets.
 *
 * A key prefix is visible to anyone who may list keys, so its bucket refuses only the addresses
 * that failed with that prefix themselves (issue 52): wrong keys sent under a victim's prefix from
 * elsewhere exhaust it for the sender, while the victim's own key, from an address that made no
 * such failure, is looked up and passes. A key that authenticates is never refused for failures
 * it did not make; a guesser spread over many addresses still pays each address's bucket, and one
 * guess per address while the prefix's bucket is empty.
 */
export class FailedAuthGuard {
  private readonly limiter: RateLimiter;
  /** Which address failed with which prefix, recently (`<prefix>@<address>`). */
  private readonly failedWith: RateLimiter;

  constructor(perMinute: number, burst: number, now?: () => number) {
    this.limiter = new RateLimiter(perMinute / 60, burst, now);
    this.failedWith = new RateLimiter(perMinute / 60, burst, now);
  }

  /** 429 when this address, or this key prefix for an address that failed with it, has used up its failures. */
  check(address: string, keyPrefix: string | null): void {
    for (const bucket of this.refusing(address, keyPrefix)) {
      const d = this.limiter.peek(bucket);
      if (!d.allowed) throw new RateLimitedError(d.retryAfterSeconds, {});
    }
  }

  record(address: string, keyPrefix: string | null): void {
    for (const bucket of this.buckets(address, keyPrefix)) this.limiter.take(bucket);
    if (keyPrefix) this.failedWith.take(pair(address, keyPrefix));
  }

  /**
   * For an attempt that will cost a lookup: takes its failure tokens up front (429 when a bucket
   * that refuses this address is empty), so that many attempts in flight at once cannot all pass
   * the check before the first one fails. `settle(true)` gives the tokens back when the credential
   * proved valid; `settle(false)` marks the address as failing with the prefix.
   */
  reserve(address: string, keyPrefix: string | null): (succeeded: boolean) => void {
    const refusing = new Set(this.refusing(address, keyPrefix));
    const taken: string[] = [];
    for (const bucket of this.buckets(address, keyPrefix)) {
      const d = this.limiter.take(bucket);
      if (d.allowed) taken.push(bucket);
      else if (refusing.has(bucket)) {
        for (const t of taken) this.limiter.refund(t);
        throw new RateLimitedError(d.retryAfterSeconds, {});
      }
    }
    return (succeeded) => {
      if (succeeded) for (const t of taken) this.limiter.refund(t);
      else if (keyPrefix) this.failedWith.take(pair(address, keyPrefix));
    };
  }

  private buckets(address: string, keyPrefix: string | null): string[] {
    return keyPrefix ? [`addr:${address}`, `key:${keyPrefix}`] : [`addr:${address}`];
  }

  /** The buckets whose emptiness refuses this attempt: the address's, and the prefix's only for an address that failed with it. */
  private refusing(address: string, keyPrefix: string | null): string[] {
    return keyPrefix && this.failedWith.touched(pair(address, keyPrefix)) ? [`addr:${address}`, `key:${keyPrefix}`] : [`addr:${address}`];
  }
}

const pair = (address: string, keyPrefix: string) => `${keyPrefix}@${address}`;

/**
 * The part of a presented credential that identifies what is being guessed at: the display
 * prefix of an API key (`ak_` and eight characters), a client id for the token endpoint.
 */
export function presentedKeyPrefix(authorization: string | undefined): string | null {
  const token = /^Bearer\s+(\S+)/i.exec(authorization ?? '')?.[1];
  if (!token || token.split('.').length === 3) return null;
  return token.slice(0, 11);
}
