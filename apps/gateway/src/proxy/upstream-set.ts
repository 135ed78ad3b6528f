import { Pool } from 'undici';
import { UpstreamError } from '@ledgerline/service-kit/errors';
import { AdaptiveLimit } from './adaptive-limit.js';

/*
 * The replicas of one service (issue 15): `SALES_URL=http://a:8081,http://b:8081`. Requests go
 * round-robin to the replicas not marked down; a replica that refuses or drops a connection is
 * marked down for a short while and the request goes to the next one when that is safe (see
 * `forward`). With every replica marked down the gateway still tries them, so a restarted
 * service is found again at once.
 *
 * Each replica has its own adaptive limit (decision 251): its overload refusal says that process
 * is past its capacity, not the service, so the other replicas keep taking what they can, and the
 * gateway refuses a request itself only when no replica has room.
 */

/**
 * One replica's connections: kept alive, one request at a time on each, timeouts left to
 * `forward`. As many as the gateway lets a service have in flight, so requests wait in the
 * service's own queue, where its admission gate sees them and refuses early what it cannot take
 * soon (decision 243), not in a queue of the gateway's that no service sees.
 */
function createPool(url: string, connections: number): Pool {
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 });
}

export interface Replica {
  url: string;
  origin: string;
  pool: Pool;
  /** Until when (epoch ms) the replica is skipped after a failure. */
  downUntil: number;
  /** How many requests the gateway lets this replica have in flight (decision 243), lowered by its overload refusals. */
  limit: AdaptiveLimit;
  /** Requests sent to it and not yet answered. */
  inflight: number;
}

/**
 * How long a request finding every replica at its limit waits in line for room before the gateway
 * refuses it, and how many wait at most (decision 259). 0 ms: refused at once.
 */
export interface RoomQueue {
  waitMs: number;
  limit: number;
}

interface RoomWaiter {
  resolve: (room: boolean) => void;
  timer: NodeJS.Timeout;
}

export class UpstreamSet {
  readonly replicas: readonly Replica[];
  private next = 0;
  /** Requests waiting for a replica to have room, oldest first; one is woken per answer. */
  private readonly waiting: RoomWaiter[] = [];

  constructor(
    readonly service: string,
    urls: readonly string[],
    private readonly downForMs = 2_000,
    connections = 64,
    readonly roomQueue: RoomQueue = { waitMs: 0, limit: 0 },
  ) {
    if (urls.length === 0) throw new Error(`${service}: no upstream URL`);
    this.replicas = urls.map((url) => ({
      url,
      origin: new URL(url).origin,
      pool: createPool(url, connections),
      downUntil: 0,
      limit: new AdaptiveLimit(connections),
      inflight: 0,
    }));
  }

  /** Requests in flight to all the replicas. */
  get inflight(): number {
    let n = 0;
    for (const r of this.replicas) n += r.inflight;
    return n;
  }

  /** The gateway's own refusal when no replica has room (decision 243): nothing was sent. */
  overloaded(): UpstreamError {
    return new UpstreamError(503, this.service, `overloaded: ${this.inflight} requests already in flight`);
  }

  /** Whether some replica's limit lets one more request go to it. */
  hasRoom(): boolean {
    return this.replicas.some(hasRoom);
  }

  /** Requests waiting in line for room now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Room for one more request (decision 259): at once while some replica has room and nobody is
   * waiting; else in line, woken when an answer frees room, until `deadline` (performance.now's
   * clock). False: the line is full or the deadline passed, and the gateway refuses. A burst past
   * a limit that an overload refusal lowered is taken whole as the service answers, rather than
   * refused while the limit climbs back one step per limit's worth of answers.
   */
  waitForRoom(deadline: number): boolean | Promise<boolean> {
    if (this.waiting.length === 0 && this.hasRoom()) return true;
    const wait = deadline - performance.now();
    if (wait <= 0 || this.waiting.length >= this.roomQueue.limit) return false;
    return new Promise<boolean>((resolve) => {
      const waiter: RoomWaiter = {
        resolve,
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          resolve(false);
        }, Math.ceil(wait)),
      };
      this.waiting.push(waiter);
    });
  }

  /**
   * The replicas to try for one request, in order: the healthy ones from the round-robin position,
   * then the rest; only those whose limit lets one more request go (none: the gateway refuses).
   */
  order(now = Date.now()): readonly Replica[] {
    const n = this.replicas.length;
    // one replica has no order to choose (most deployments): the same list every time
    if (n === 1) return hasRoom(this.replicas[0]) ? this.replicas : [];
    const start = this.next++ % n;
    const up: Replica[] = [];
    const down: Replica[] = [];
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(start + i) % n];
      if (hasRoom(r)) (r.downUntil <= now ? up : down).push(r);
    }
    return up.concat(down);
  }

  /** A request goes to the replica: counted in its flight until `answered`. */
  sent(replica: Replica): void {
    replica.inflight++;
  }

  /**
   * The replica answered (or failed): out of its flight; an overload refusal lowers its limit,
   * any other answer raises it. A failure to reach it changes its limit in neither direction.
   */
  answered(replica: Replica, outcome: 'overloaded' | 'answered' | 'failed'): void {
    if (outcome !== 'failed') replica.limit.answered(outcome === 'overloaded', replica.inflight);
    replica.inflight--;
    // the room this answer freed goes to the one waiting longest
    if (this.waiting.length > 0 && this.hasRoom()) {
      const waiter = this.waiting.shift()!;
      clearTimeout(waiter.timer);
      waiter.resolve(true);
    }
  }

  markDown(replica: Replica, now = Date.now()): void {
    replica.downUntil = now + this.downForMs;
  }

  markUp(replica: Replica): void {
    replica.downUntil = 0;
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.pool.close()));
  }
}

function hasRoom(r: Replica): boolean {
  return r.limit.allows(r.inflight);
}

/** `http://a:1,http://b:1` → its URLs (trimmed, empty parts dropped). */
export function upstreamUrls(value: string): string[] {
  return value
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
}
