import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { sqlRows, type RunningService } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation } from '../support/stack.js';
import { probeService } from './probe-service.js';
import { leaderOf, leading, noteThrough, publishedNotes, twoReplicas } from './relay-probe.js';

/*
 * Two replicas of one service on one database: one relay leads (a session lock on its own
 * connection) and publishes every replica's events; a commit in the other replica wakes it at
 * once; when the leader goes, the other takes over. The idle poll is a minute here, so anything
 * published promptly was woken, not polled.
 */
const ORG = 11;
const env = { ...isolation(), OUTBOX_POLL_MS: '60000' };
let a: RunningService;
let b: RunningService;
let nc: NatsConnection;

const note = (svc: RunningService, text: string) => noteThrough(svc, ORG, text);
const unsent = async () => (await sqlRows<{ n: number }>(a.deps.orm.em.fork(), 'select count(*)::int as n from kit_outbox where sent_at is null'))[0].n;
const published = () => publishedNotes(nc, env.NATS_SUBJECT_PREFIX);

let close: () => Promise<void>;

beforeAll(async () => {
  ({ a, b, nc, close } = await twoReplicas(probeService, env));
});
afterAll(async () => {
  await close?.();
  await dropIsolation(env);
});

describe('outbox relay with two replicas on one database', () => {
  it('one relay leads and publishes what either replica commits, promptly and once each', async () => {
    // both relays looked at boot; one holds the lock
    const [leader, other] = await leaderOf(a, b);
    const ids: number[] = [];
    // the follower's commits come last, so only its wake-up can get them out within the test
    for (let i = 0; i < 6; i++) ids.push(await note(i < 2 ? leader : other, `replica note ${i}`));
    const seen = await eventually(async () => {
      const p = await published();
      return ids.every((id) => p.includes(id)) ? p : undefined;
    }, 3000);
    // each once, in the order they were committed (one after another here)
    expect(seen.filter((id) => ids.includes(id))).toEqual(ids);
    expect([await leading(a), await leading(b)].filter(Boolean)).toHaveLength(1);
  });

  it('the other replica takes over when the leader stops, and publishes what waited', async () => {
    const [leader, other] = (await leading(a)) ? [a, b] : [b, a];
    await leader.relay.stop(); // ends its connection, and with it the lock
    const waiting = await note(leader, 'written while its relay is stopped');
    const woke = await note(other, 'wakes the other replica');
    const p = await eventually(async () => {
      const seen = await published();
      return seen.includes(woke) ? seen : undefined;
    }, 3000);
    expect(p.filter((id) => id === waiting || id === woke)).toEqual([waiting, woke]);
    expect(await leading(other)).toBe(true);
    expect(await leading(leader)).toBe(false);

    // the stopped relay comes back as the follower: still one leader, and its commits still go out
    leader.relay.start();
    const later = await note(leader, 'after the restart');
    await eventually(async () => (await published()).includes(later), 3000);
    expect(await leading(leader)).toBe(false);
    // what was published is marked sent at the latest when the relays stop
    await a.relay.stop();
    await b.relay.stop();
    expect(await unsent()).toBe(0);
  });
});
