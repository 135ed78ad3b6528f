import { RateLimitedError } from '@ledgerline/service-kit/errors';
import { RateLimiter } from './rate-limit.js';

/**
 * Failed authentication is limited per client address and per presented key prefix: once a
 * bucket is empty, further attempts get 429 with Retry-After before any lookup is made, so a
 * flood of wrong keys costs neither settings nor the database anything. Successful requests
 * take nothing from these buckets.
 */
export class FailedAuthGuard {
  private readonly limiter: RateLimiter;

  constructor(perMinute: number, burst: number, now?: () => number) {
    this.limiter = new RateLimiter(perMinute / 60, burst, now);
  }

  /** 429 when this address or key prefix has used up its failures. */
  check(address: string, keyPrefix: string | null): void {
    for (const bucket of this.buckets(address, keyPrefix)) {
      const d = this.limiter.peek(bucket);
      if (!d.allowed) {
        throw new RateLimitedError(d.retryAfterSeconds, {});
      }
    }
  }

  record(address: string, keyPrefix: string | null): void {
    for (const bucket of this.buckets(address, keyPrefix)) this.limiter.take(bucket);
  }

  /**
   * For an attempt that will cost a lookup: takes its failure token up front (429 when none is
   * left), so that many attempts in flight at once cannot all pass the check before the first
   * one fails. `settle(true)` gives the tokens back when the credential proved valid.
   */
  reserve(address: string, keyPrefix: string | null): (succeeded: boolean) => void {
    const buckets = this.buckets(address, keyPrefix);
    const taken: string[] = [];
    for (const bucket of buckets) {
      const d = this.limiter.take(bucket);
      if (!d.allowed) {
        for (const t of taken) this.limiter.refund(t);
        throw new RateLimitedError(d.retryAfterSeconds, {});
      }
      taken.push(bucket);
    }
    return (succeeded) => {
      if (succeeded) for (const t of taken) this.limiter.refund(t);
    };
  }

  private buckets(address: string, keyPrefix: string | null): string[] {
    return keyPrefix ? [`addr:${address}`, `key:${keyPrefix}`] : [`addr:${address}`];
  }
}

/**
 * The part of a presented credential that identifies what is being guessed at: the display
 * prefix of an API key (`ak_` and eight characters), a client id for the token endpoint.
 */
export function presentedKeyPrefix(authorization: string | undefined): string | null {
  const token = /^Bearer\s+(\S+)/i.exec(authorization ?? '')?.[1];
  if (!token || token.split('.').length === 3) return null;
  return token.slice(0, 11);
}
