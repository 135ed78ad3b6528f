/**
 * Answers settings gave about credentials, each until its `expiresAt`: at most `max` of them (the
 * least recently stored goes first), and one lookup in flight per credential, shared by every
 * request that needs it meanwhile.
 */
export class LookupCache<K, V extends { expiresAt: number }> {
  private entries = new Map<K, V>();
  private inflight = new Map<K, Promise<V>>();

  constructor(private readonly max: number) {}

  /** The answer still fresh at `now`, if any. */
  fresh(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expiresAt > now ? entry : undefined;
  }

  /** The stored answer, fresh or not (`inspect` tells the two apart itself). */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /**
   * The answer to use now: a fresh one; else, when `staleMs` allows, one expired less than
   * `staleMs` ago that `usable` accepts, while a lookup in the background replaces it
   * (stale-while-revalidate, RFC 5861: settings leaves the request's path, and a settings that
   * is slow or down holds no request whose answer is cached); else the lookup's own answer. A
   * failed background lookup leaves the stale answer in place, and the next request tries again;
   * one lookup per key at a time.
   */
  async current(key: K, lookup: (key: K) => Promise<V>, staleMs: number, usable: (v: V) => boolean, now = Date.now()): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > now) return entry;
    if (entry && this.servesStale(entry, staleMs, usable, now)) {
      if (!this.inflight.has(key)) this.load(key, lookup).catch(() => undefined);
      return entry;
    }
    return this.load(key, lookup);
  }

  /** Whether `current` would answer this expired entry while it looks again. */
  servesStale(entry: V, staleMs: number, usable: (v: V) => boolean, now = Date.now()): boolean {
    return staleMs > 0 && now < entry.expiresAt + staleMs && usable(entry);
  }

  isLookingUp(key: K): boolean {
    return this.inflight.has(key);
  }

  /** Looks `key` up (or joins the lookup in flight) and stores the answer. */
  async load(key: K, lookup: (key: K) => Promise<V>): Promise<V> {
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = lookup(key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    const entry = await pending;
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
