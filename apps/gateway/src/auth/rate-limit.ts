/**
 * Token bucket per credential, in memory (one gateway process). Answers the IETF RateLimit
 * header fields so well-behaved clients can pace themselves before they hit 429.
 */
interface Bucket {
  tokens: number;
  updated: number;
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

export class RateLimiter {
  private buckets = new Map<string, Bucket>();
  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  take(credential: string): RateDecision {
    return this.decide(credential, true);
  }

  /** Gives back a token taken for an attempt that turned out not to count. */
  refund(credential: string): void {
    const b = this.buckets.get(credential);
    if (b) b.tokens = Math.min(this.burst, b.tokens + 1);
  }

  /** Whether `credential` has taken a token that has not come back yet (without making it a bucket). */
  touched(credential: string): boolean {
    const b = this.buckets.get(credential);
    if (!b) return false;
    return Math.min(this.burst, b.tokens + ((this.now() - b.updated) / 1000) * this.perSecond) < this.burst;
  }

  /** Whether `credential` could take a token now, without taking it. */
  peek(credential: string): RateDecision {
    return this.decide(credential, false);
  }

  private decide(credential: string, consume: boolean): RateDecision {
    const t = this.now();
    let b = this.buckets.get(credential);
    if (!b) {
      b = { tokens: this.burst, updated: t };
      this.buckets.set(credential, b);
      if (this.buckets.size > 100_000) this.evictIdle(t);
    }
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.updated) / 1000) * this.perSecond);
    b.updated = t;
    const allowed = b.tokens >= 1;
    if (allowed && consume) b.tokens -= 1;
    const missing = allowed ? 0 : 1 - b.tokens;
    const retryAfterSeconds = Math.max(1, Math.ceil(missing / this.perSecond));
    const resetSeconds = Math.ceil((this.burst - b.tokens) / this.perSecond);
    return {
      allowed,
      retryAfterSeconds,
      headers: {
        'ratelimit-limit': String(this.burst),
        'ratelimit-remaining': String(Math.floor(b.tokens)),
        'ratelimit-reset': String(resetSeconds),
        'ratelimit-policy': `${this.burst};w=${Math.ceil(this.burst / this.perSecond)}`,
      },
    };
  }

  private evictIdle(t: number) {
    for (const [k, b] of this.buckets) if (t - b.updated > 60_000) this.buckets.delete(k);
  }
}
