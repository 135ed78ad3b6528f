import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { INTERNAL_HEADERS, sqlRows, type RunningService } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation, startTestService } from '../support/stack.js';
import { probeService } from './probe-service.js';

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
const unsent = async () => (await sqlRows<{ n: number }>(a.deps.orm.em.fork(), 'select count(*)::int as n from kit_outbox where sent_at is null'))[0].n;
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
  a = await startTestService(probeService, env);
  b = await startTestService(probeService, env);
  nc = await connect({ servers: env.NATS_URL });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await nc?.close();
  await dropIsolation(env);
});

describe('outbox relay with two replicas on one database', () => {
  it('one relay leads and publishes what either replica commits, promptly and once each', async () => {
    // both relays looked at boot; one holds the lock
    await eventually(async () => [await leading(a), await leading(b)].filter(Boolean).length === 1, 3000);
    const [leader, other] = (await leading(a)) ? [a, b] : [b, a];
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
