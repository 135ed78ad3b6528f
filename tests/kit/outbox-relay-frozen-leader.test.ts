import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { INTERNAL_HEADERS, type RunningService } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation, startTestService } from '../support/stack.js';
import { probeService } from './probe-service.js';

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

const note = async (svc: RunningService, text: string): Promise<number> => {
  const res = await fetch(`${svc.url}/v1/notes`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.orgId]: String(ORG), [INTERNAL_HEADERS.scopes]: 'admin', 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: number }).id;
};
const leading = async (svc: RunningService) => /^ledgerline_outbox_relay_leading 1$/m.test(await (await fetch(`${svc.url}/metrics`)).text());
const published = async (): Promise<number[]> => {
  const jsm = await jetstreamManager(nc);
  const stream = `${env.NATS_SUBJECT_PREFIX.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}SALES`;
  const info = await jsm.streams.info(stream);
  const ids: number[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq });
    if (m) ids.push((m.json() as { data: { note_id: number } }).data.note_id);
  }
  return ids;
};

beforeAll(async () => {
  a = await startTestService({ ...probeService, name: 'frozenprobe' }, env);
  b = await startTestService({ ...probeService, name: 'frozenprobe' }, env);
  nc = await connect({ servers: env.NATS_URL });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await nc?.close();
  await dropIsolation(env);
});

describe('a leading relay that freezes', () => {
  it('loses the lead once its session has been silent too long, and the other replica publishes what waits', async () => {
    await eventually(async () => [await leading(a), await leading(b)].filter(Boolean).length === 1, 3000);
    const [leader, other] = (await leading(a)) ? [a, b] : [b, a];
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
