import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamSet } from './upstream-set.js';

/*
 * The gateway's line for room (decision 259): a request that finds every replica at its limit
 * waits for an answer to free room, oldest first, until its deadline; newcomers queue behind those
 * waiting; the line has a length it never passes. Nothing is sent: the pools are never asked.
 */
const sets: UpstreamSet[] = [];
const upstream = (connections: number, waitMs: number, limit: number) => {
  const set = new UpstreamSet('sales', ['http://127.0.0.1:9'], 2_000, connections, { waitMs, limit });
  sets.push(set);
  return set;
};
afterEach(async () => {
  await Promise.all(sets.splice(0).map((s) => s.close()));
});
/** Takes the room a request would: the replica `order` offers, counted in its flight. */
const take = (set: UpstreamSet) => {
  const [replica] = set.order();
  if (!replica) throw new Error('no room');
  set.sent(replica);
  return replica;
};
const later = (ms: number) => performance.now() + ms;

describe('UpstreamSet: the line for room', () => {
  it('answers at once while a replica has room, and puts the next in line once none has', async () => {
    const set = upstream(2, 100, 10);
    expect(set.waitForRoom(later(100))).toBe(true);
    take(set);
    take(set);
    const waiting = set.waitForRoom(later(100));
    expect(waiting).toBeInstanceOf(Promise);
    expect(set.queued).toBe(1);
    // an answer frees the room, and the one waiting has it
    set.answered(set.replicas[0], 'answered');
    expect(await waiting).toBe(true);
    expect(set.queued).toBe(0);
    expect(set.order()).toHaveLength(1);
  });

  it('wakes one waiting request per answer, the oldest first, and newcomers queue behind them', async () => {
    const set = upstream(1, 1_000, 10);
    const replica = take(set);
    const woken: number[] = [];
    const first = (set.waitForRoom(later(1_000)) as Promise<boolean>).then((ok) => ok && woken.push(1));
    const second = (set.waitForRoom(later(1_000)) as Promise<boolean>).then((ok) => ok && woken.push(2));
    set.answered(replica, 'answered');
    await first;
    expect(woken).toEqual([1]);
    // the room is the first one's until it sends: a newcomer finding someone waiting waits too
    const newcomer = set.waitForRoom(later(1_000));
    expect(newcomer).toBeInstanceOf(Promise);
    take(set);
    set.answered(replica, 'answered');
    await second;
    expect(woken).toEqual([1, 2]);
    take(set);
    set.answered(replica, 'answered');
    expect(await newcomer).toBe(true);
  });

  it('refuses a request that waited until its deadline, and one that finds the line full, and forgets both', async () => {
    const set = upstream(1, 30, 2);
    const replica = take(set);
    const a = set.waitForRoom(later(30)) as Promise<boolean>;
    const b = set.waitForRoom(later(30)) as Promise<boolean>;
    expect(set.waitForRoom(later(30))).toBe(false);
    expect(await Promise.all([a, b])).toEqual([false, false]);
    expect(set.queued).toBe(0);
    // a deadline already past is no wait at all
    expect(set.waitForRoom(performance.now() - 1)).toBe(false);
    // the answer that comes after wakes nobody and the room is there for the next
    set.answered(replica, 'answered');
    expect(set.waitForRoom(later(30))).toBe(true);
  });

  it("waits nobody by default, as before: every replica at its limit refuses at once", () => {
    const set = new UpstreamSet('sales', ['http://127.0.0.1:9'], 2_000, 1);
    sets.push(set);
    take(set);
    expect(set.waitForRoom(later(1_000))).toBe(false);
  });

  it("an overload refusal frees no room for the line when it lowered the replica's limit below what is in flight", async () => {
    const set = upstream(64, 60, 10);
    const replica = set.replicas[0];
    for (let i = 0; i < 64; i++) take(set);
    const waiting = set.waitForRoom(later(60)) as Promise<boolean>;
    // the service refused one: the limit halves from 64 in flight to 32, with 63 still in flight
    set.answered(replica, 'overloaded');
    expect(replica.limit.limit).toBe(32);
    expect(await waiting).toBe(false);
  });
});
