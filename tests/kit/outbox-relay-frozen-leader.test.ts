import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import type { RunningService } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation } from '../support/stack.js';
import { probeService } from './probe-service.js';
import { leaderOf, leading, noteThrough, publishedNotes, twoReplicas } from './relay-probe.js';

/*
 * A leading relay that freezes (a stopped process, a stuck pass) keeps its database session and
 * so the lock that makes it the leader: nothing told Postgres to let go, and no other replica
 * could publish (decision 144). Its session is now ended by the server once it has been silent
 * for OUTBOX_LEADER_TIMEOUT_MS, and the other replica takes the outbox over.
 */
const ORG = 12;
const env = { ...isolation(), OUTBOX_POLL_MS: '100', OUTBOX_LEADER_TIMEOUT_MS: '1000' };
let a: RunningService;
let b: RunningService;
let nc: NatsConnection;

const note = (svc: RunningService, text: string) => noteThrough(svc, ORG, text);
const published = () => publishedNotes(nc, env.NATS_SUBJECT_PREFIX);

let close: () => Promise<void>;

beforeAll(async () => {
  ({ a, b, nc, close } = await twoReplicas({ ...probeService, name: 'frozenprobe' }, env));
});
afterAll(async () => {
  await close?.();
  await dropIsolation(env);
});

describe('a leading relay that freezes', () => {
  it('loses the lead once its session has been silent too long, and the other replica publishes what waits', async () => {
    const [leader, other] = await leaderOf(a, b);
    // the leader's next pass never ends (until released), its connection stays open and silent
    let thaw!: () => void;
    const frozen = new Promise<boolean>((resolve) => (thaw = () => resolve(false)));
    const relay = leader.relay as unknown as { pass: (idle: boolean) => Promise<boolean> };
    const pass = relay.pass;
    relay.pass = () => frozen;
    try {
      // its own commit stays unpublished while it leads frozen
      const waiting = await note(leader, 'written under a frozen leader');
      // after the session's silence bound the server ends it; the other replica leads and publishes
      const seen = await eventually(async () => {
        const p = await published();
        return p.includes(waiting) ? p : undefined;
      }, 10_000, 100);
      expect(seen.filter((id) => id === waiting)).toHaveLength(1);
      expect(await leading(other)).toBe(true);
      const next = await note(leader, 'after the take-over');
      await eventually(async () => (await published()).includes(next), 5000, 100);
    } finally {
      relay.pass = pass;
      thaw();
    }
    // thawed, the old leader finds its session gone and follows: still one leader
    await eventually(async () => !(await leading(leader)), 5000, 100);
    const last = await note(leader, 'from the thawed replica');
    await eventually(async () => (await published()).includes(last), 5000, 100);
    expect([await leading(a), await leading(b)].filter(Boolean)).toHaveLength(1);
  }, 30_000);
});
