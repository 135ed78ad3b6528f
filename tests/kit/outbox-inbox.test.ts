import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { buildEnvelope, INTERNAL_HEADERS, OutboxRelay, PASS_SQL, recordEvent, relayConnectionConfig, sqlRows, type RunningService } from '@ledgerline/service-kit';
import type { RetiringEventVersion, Subject } from '@ledgerline/contracts';
import { z } from 'zod';
import { dropIsolation, eventually, isolation, startTestService, type ApiResponse } from '../support/stack.js';
import { PrivateNats } from './nats-server.js';
import { BATCH_APPLIED_SUBJECT, PROBE_SUBJECT, VERSIONED_SUBJECT, failures, probeService } from './probe-service.js';

const ORG = 7;
const env = isolation();
const nats = new PrivateNats();
let svc: RunningService;
let nc: NatsConnection;

function call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<ApiResponse> {
  const headers = new Headers(init.headers);
  headers.set(INTERNAL_HEADERS.orgId, String(ORG));
  headers.set(INTERNAL_HEADERS.scopes, 'admin');
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  return fetch(`${svc.url}${path}`, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body }) as Promise<ApiResponse>;
}

async function streamMessages(): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(`${env.NATS_SUBJECT_PREFIX.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}SALES`);
  return info.state.messages;
}

async function effects(): Promise<Array<{ note_id: number; event_id: string }>> {
  return (await call('/v1/effects')).json();
}

beforeAll(async () => {
  await nats.start();
  svc = await startTestService(probeService, { ...env, NATS_URL: nats.url, CONSUMER_MAX_DELIVER: '4' });
  nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
});
afterAll(async () => {
  await svc?.close();
  await nc?.close();
  await nats.stop();
  await dropIsolation(env);
});

describe('transactional outbox', () => {
  it('publishes a version of an event being retired beside the current one, and a consumer reads its own version only', async () => {
    await svc.relay.stop();
    const before = await streamMessages();
    // the probe's event as it was before a breaking change renamed `text` (sunset in the future)
    const retiring: RetiringEventVersion = {
      subject: PROBE_SUBJECT as Subject,
      version: 0,
      sunset: '2999-12-31',
      schema: z.object({ note_id: z.int(), legacy_text: z.string() }),
      fromCurrent: (data) => ({ note_id: (data as { note_id: number }).note_id, legacy_text: (data as { text: string }).text }),
    };
    const relay = new OutboxRelay(svc.deps.orm.config.get('clientUrl')!, svc.deps.bus, svc.deps.log, 50, svc.deps.metrics, 200, 0, [retiring]);
    try {
      relay.start();
      const { id } = await (await call('/v1/notes', { method: 'POST', json: { text: 'two versions' } })).json();
      await eventually(async () => (await streamMessages()) === before + 2, 5000);
      const jsm = await jetstreamManager(nc);
      const stream = `${env.NATS_SUBJECT_PREFIX.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}SALES`;
      const last = (await jsm.streams.info(stream)).state.last_seq;
      const published = await Promise.all([last - 1, last].map(async (seq) => JSON.parse(new TextDecoder().decode((await jsm.streams.getMessage(stream, { seq }))!.data))));
      const byType = Object.fromEntries(published.map((e) => [e.type, e]));
      expect(Object.keys(byType).sort()).toEqual(['com.ledgerline.sales.probe.noted.v0', 'com.ledgerline.sales.probe.noted.v1']);
      expect(byType['com.ledgerline.sales.probe.noted.v1'].data).toEqual({ note_id: id, text: 'two versions' });
      expect(byType['com.ledgerline.sales.probe.noted.v0'].data).toEqual({ note_id: id, legacy_text: 'two versions' });
      // the same fact under its own id, the same organisation and resource
      const [v0, v1] = [byType['com.ledgerline.sales.probe.noted.v0'], byType['com.ledgerline.sales.probe.noted.v1']];
      expect(v0.id).not.toBe(v1.id);
      expect(v0.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect([v0.orgid, v0.subject]).toEqual([v1.orgid, v1.subject]);
      // the consumer (which reads v1) applied the note once and passed the other version over
      await eventually(async () => (await effects()).some((e) => e.note_id === id));
      await new Promise((r) => setTimeout(r, 300));
      expect((await effects()).filter((e) => e.note_id === id)).toHaveLength(1);
      const metrics = await (await fetch(`${svc.url}/metrics`)).text();
      expect(metrics).toMatch(/ledgerline_consumer_messages_total\{consumer="probe-noted",outcome="other_version"[^}]*\} [1-9]/);
    } finally {
      await relay.stop();
      svc.relay.start();
    }
  });

  it('publishes each event exactly once even when the relay dies after publishing and before marking', async () => {
    await svc.relay.stop();
    const before = await streamMessages();
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push((await (await call('/v1/notes', { method: 'POST', json: { text: `note ${i}` } })).json()).id);
    // A relay that crashed mid-way: it published the first four rows but never marked them sent.
    const rows = (await svc.deps.orm.em.getConnection().execute(
      'select event_id, subject, org_id, envelope from kit_outbox where sent_at is null order by id limit 4',
    )) as Array<{ event_id: string; subject: string; org_id: string; envelope: string }>;
    const js = jetstream(nc);
    for (const r of rows) await js.publish(`${env.NATS_SUBJECT_PREFIX}${r.subject}.${r.org_id}`, r.envelope, { msgID: r.event_id });
    expect(await streamMessages()).toBe(before + 4);

    svc.relay.start();
    await eventually(async () => (await streamMessages()) === before + 10, 5000);
    await new Promise((r) => setTimeout(r, 300));
    expect(await streamMessages()).toBe(before + 10);
    const unsent = await svc.deps.orm.em.getConnection().execute('select count(*)::int as n from kit_outbox where sent_at is null');
    expect(unsent[0].n).toBe(0);
    // and the consumer applied each note exactly once
    await eventually(async () => (await effects()).filter((e) => ids.includes(e.note_id)).length === 10);
    const applied = (await effects()).filter((e) => ids.includes(e.note_id));
    expect(new Set(applied.map((e) => e.note_id)).size).toBe(10);
  });

  it('keeps events written while NATS is down and publishes them once when it is back', async () => {
    const before = await streamMessages();
    await nats.stop();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call('/v1/notes', { method: 'POST', json: { text: `offline ${i}` } });
      expect(res.status).toBe(200); // writes do not depend on the bus being up
      ids.push((await res.json()).id);
    }
    await new Promise((r) => setTimeout(r, 500));
    await nats.start();
    await eventually(async () => (await streamMessages()) === before + 5, 15_000, 200);
    await eventually(async () => (await effects()).filter((e) => ids.includes(e.note_id)).length === 5, 15_000, 200);
    await new Promise((r) => setTimeout(r, 500));
    expect(await streamMessages()).toBe(before + 5);
    expect((await effects()).filter((e) => ids.includes(e.note_id))).toHaveLength(5);
  });

  it('a relay pass reads the rows it publishes, not again every row it marked sent since the last vacuum', async () => {
    // 1000 events marked sent the way a relay marks them, with no vacuum or analyze since (the
    // relay is paused so that nothing else reads the table meanwhile)
    await svc.relay.stop();
    const conn = svc.deps.orm.em.getConnection();
    try {
      await svc.deps.orm.em.fork().transactional(async (tem) => {
        for (let i = 0; i < 1000; i++) await recordEvent(tem, 'probe', { subject: PROBE_SUBJECT, orgId: ORG, data: { note_id: -1, text: `aside ${i}` } });
      });
      await conn.execute(`update kit_outbox set sent_at = now() where sent_at is null and envelope like '%"aside %'`);
      const url = svc.deps.orm.config.get('clientUrl')!;
      const pagesRead = async (client: pg.Client) => {
        const [{ 'QUERY PLAN': [plan] }] = (await client.query(`explain (analyze, buffers, format json) ${PASS_SQL}`, [[], [], 200])).rows;
        return (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0);
      };
      const planners = new pg.Client({ connectionString: url });
      const relaySession = new pg.Client(relayConnectionConfig(url));
      await Promise.all([planners.connect(), relaySession.connect()]);
      try {
        // the planner's own choice, a bitmap scan, visits the page of every row marked sent, every pass
        expect(await pagesRead(planners)).toBeGreaterThan(40);
        expect(await pagesRead(planners)).toBeGreaterThan(40);
        // the relay's scan in id order marks those entries dead the first time it meets them, so
        // the next pass (the relay's, or anyone's) reads a few index pages only
        // (an entry is marked only once no running transaction can need its row: a long one
        // anywhere in the cluster, e.g. another test's bulk insert, holds the first passes back:
        // up to 8 s, as a ledger rebuild in a parallel test file took 2 s and more)
        let pages = await pagesRead(relaySession);
        for (let pass = 0; pass < 40 && pages >= 10; pass++) {
          await new Promise((r) => setTimeout(r, 200));
          pages = await pagesRead(relaySession);
        }
        expect(pages).toBeLessThan(10);
      } finally {
        await Promise.all([planners.end(), relaySession.end()]);
      }
    } finally {
      svc.relay.start();
    }
  });

  it('writes no event when the transaction rolls back', async () => {
    const em = svc.deps.orm.em.fork();
    await expect(
      em.transactional(async (tem) => {
        await recordEvent(tem, 'probe', { subject: PROBE_SUBJECT, orgId: ORG, data: { note_id: -1, text: 'never' } });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const rows = await svc.deps.orm.em.getConnection().execute(`select count(*)::int as n from kit_outbox where envelope::jsonb->'data'->>'text' = 'never'`);
    expect(rows[0].n).toBe(0);
  });
});

describe('idempotent consumer', () => {
  const publishRaw = async (noteId: number, text: string, id?: string, msgID?: string) => {
    const envelope = buildEnvelope('test', { subject: PROBE_SUBJECT, orgId: ORG, data: { note_id: noteId, text }, id });
    await jetstream(nc).publish(`${env.NATS_SUBJECT_PREFIX}${PROBE_SUBJECT}.${ORG}`, JSON.stringify(envelope), { msgID: msgID ?? `${envelope.id}-${Math.random()}` });
    return envelope.id;
  };

  it('applies an event delivered twice only once', async () => {
    const id = await publishRaw(9001, 'twice');
    await publishRaw(9001, 'twice', id); // same event id, new NATS message (past the dedup window)
    await eventually(async () => (await effects()).some((e) => e.note_id === 9001));
    await new Promise((r) => setTimeout(r, 500));
    expect((await effects()).filter((e) => e.note_id === 9001)).toHaveLength(1);
  });

  it('redelivers after a failure before commit and applies the effect once', async () => {
    failures.set('flaky', 2);
    await publishRaw(9002, 'flaky');
    await eventually(async () => (await effects()).some((e) => e.note_id === 9002), 10_000, 100);
    expect(failures.get('flaky')).toBe(0);
    expect((await effects()).filter((e) => e.note_id === 9002)).toHaveLength(1);
  });

  it('acknowledges without effect an event whose commit happened before a crash (ack lost)', async () => {
    const envelope = buildEnvelope('test', { subject: PROBE_SUBJECT, orgId: ORG, data: { note_id: 9003, text: 'committed' } });
    // The effect's transaction committed (inbox row written) but the process died before the ack.
    await svc.deps.orm.em.getConnection().execute('insert into kit_inbox (consumer, event_id, subject) values (?, ?, ?)', ['probe-noted', envelope.id, PROBE_SUBJECT]);
    await jetstream(nc).publish(`${env.NATS_SUBJECT_PREFIX}${PROBE_SUBJECT}.${ORG}`, JSON.stringify(envelope), { msgID: envelope.id });
    const probe = await publishRaw(9004, 'after');
    await eventually(async () => (await effects()).some((e) => e.event_id === probe));
    expect((await effects()).filter((e) => e.note_id === 9003)).toHaveLength(0);
  });

  it('passes over an event that does not concern it: no effect, no inbox claim, and the next one applies', async () => {
    const aside = await publishRaw(9010, 'aside: not for this consumer');
    const next = await publishRaw(9011, 'after the aside');
    await eventually(async () => (await effects()).some((e) => e.event_id === next));
    expect((await effects()).filter((e) => e.note_id === 9010)).toHaveLength(0);
    const claimed = (await svc.deps.orm.em.getConnection().execute('select 1 from kit_inbox where event_id = ?', [aside])) as unknown[];
    expect(claimed).toHaveLength(0);
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    expect(metrics).toMatch(/ledgerline_consumer_messages_total\{[^}]*consumer="probe-noted"[^}]*outcome="irrelevant"[^}]*\} 1/);
  });

  it('dead-letters a poison message with its reason, and keeps consuming', async () => {
    const sub = nc.subscribe(`${env.NATS_SUBJECT_PREFIX}dlq.probe.${PROBE_SUBJECT}.${ORG}`, { max: 1 });
    const got = (async () => {
      for await (const m of sub) return m;
    })();
    await publishRaw(9005, 'poison pill');
    const m = await Promise.race([got, new Promise((_, rej) => setTimeout(() => rej(new Error('no dead letter')), 5000))]);
    expect((m as { headers: { get(k: string): string } }).headers.get('x-dead-letter-reason')).toContain('cannot ever apply');
    const later = await publishRaw(9006, 'healthy');
    await eventually(async () => (await effects()).some((e) => e.event_id === later));
  });

  it('a concurrent consumer keeps the stream order of one resource while other resources overtake', async () => {
    const publish = async (resource: string, noteId: number, delayMs: number) => {
      const envelope = buildEnvelope('test', { subject: VERSIONED_SUBJECT, orgId: ORG, resource, data: { note_id: noteId, delay_ms: delayMs } });
      await jetstream(nc).publish(`${env.NATS_SUBJECT_PREFIX}${VERSIONED_SUBJECT}.${ORG}`, JSON.stringify(envelope), { msgID: envelope.id });
    };
    await publish('payout-1', 9101, 400); // version 1 of a resource, slow to apply
    await publish('payout-1', 9102, 0); // version 2 of the same resource
    await publish('payout-2', 9201, 0); // another resource
    await eventually(async () => (await effects()).filter((e) => e.note_id > 9100 && e.note_id < 9300).length === 3, 5000);
    const order = (await effects()).map((e) => e.note_id).filter((n) => n > 9100 && n < 9300);
    expect(order.indexOf(9101)).toBeLessThan(order.indexOf(9102));
    expect(order.indexOf(9201)).toBeLessThan(order.indexOf(9101));
  });

  it('a consumer that shares commits applies a burst in few transactions, each event once, a failing one alone retried', async () => {
    const texts = Array.from({ length: 80 }, (_, i) => (i % 16 === 5 ? `fail-once ${i}` : `batched ${i}`));
    expect((await call('/v1/batched', { method: 'POST', json: { texts } })).status).toBe(200);
    const effects = await eventually(async () => {
      const rows = (await (await call('/v1/batched-effects')).json()) as Array<{ note_id: number; tx: string }>;
      return rows.length >= 80 ? rows : undefined;
    }, 15_000);
    // each once (the failed attempts' rows went with their savepoints), none lost
    expect(effects.map((e) => e.note_id)).toEqual(Array.from({ length: 80 }, (_, i) => 100_000 + i));
    // shared: far fewer transactions than events
    expect(new Set(effects.map((e) => e.tx)).size).toBeLessThan(40);
  });

  it('a consumer that applies batches claims and writes a burst together, each event once; a refused, handed-on or batch-breaking one is applied alone', async () => {
    const kind = (i: number) => (i === 50 ? 'break' : i % 20 === 3 ? 'refuse' : i % 20 === 7 ? 'single' : 'batched');
    const texts = Array.from({ length: 80 }, (_, i) => `${kind(i)} ${i}`);
    const sub = nc.subscribe(`${env.NATS_SUBJECT_PREFIX}dlq.probe.${BATCH_APPLIED_SUBJECT}.${ORG}`, { max: 1 });
    const deadLetter = (async () => {
      for await (const m of sub) return m;
    })();
    expect((await call('/v1/batch-applied', { method: 'POST', json: { texts } })).status).toBe(200);
    type Seen = { effects: Array<{ note_id: number; tx: string; via: string }>; echoes: number[]; claims: number };
    const seen = await eventually(async () => {
      const body = (await (await call('/v1/batch-applied-effects')).json()) as Seen;
      return body.effects.length >= 79 && body.echoes.length >= 79 ? body : undefined;
    }, 15_000);
    const dead = await Promise.race([deadLetter, new Promise((_, rej) => setTimeout(() => rej(new Error('no dead letter')), 5000))]);
    expect((dead as { headers: { get(k: string): string } }).headers.get('x-dead-letter-reason')).toContain('breaks any batch');
    await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
    const settled = (await (await call('/v1/batch-applied-effects')).json()) as Seen;
    expect(settled).toEqual(seen);
    const applied = Array.from({ length: 80 }, (_, i) => 200_000 + i).filter((n) => n !== 200_050);
    // each applied once (a failed batch's rows went with its transaction), the poison one never
    expect(seen.effects.map((e) => e.note_id)).toEqual(applied);
    // what each applied event announced is in the outbox once; nothing of the failed attempts
    expect(seen.echoes).toEqual(applied);
    // one inbox claim per applied event: the refused ones' first claims were taken back
    expect(seen.claims).toBe(79);
    const via = new Map(seen.effects.map((e) => [e.note_id, e]));
    // refused on the first delivery: applied alone when redelivered
    for (const i of [3, 23, 43, 63]) expect(via.get(200_000 + i)!.via).toBe('single');
    // handed on: applied by `handle`, at least one inside a batch's own transaction
    const batchTxs = new Set(seen.effects.filter((e) => e.via === 'batch').map((e) => e.tx));
    expect([7, 27, 47, 67].some((i) => batchTxs.has(via.get(200_000 + i)!.tx))).toBe(true);
    // batched: far fewer transactions than events
    expect(batchTxs.size).toBeLessThan(30);
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    expect(metrics).toMatch(/ledgerline_consumer_batch_events_count\{consumer="probe-batch-applied"\} \d+/);
    // only the refused ones waited for a redelivery: the failed batch's others were applied at once, alone
    // (a refused one that shared the failed batch was applied alone with it, without a retry)
    const retries = Number(/ledgerline_consumer_messages_total\{consumer="probe-batch-applied",outcome="retry"\} (\d+)/.exec(metrics)?.[1]);
    expect(retries).toBeGreaterThanOrEqual(3);
    expect(retries).toBeLessThanOrEqual(4);
  });

  it('dead-letters after the bounded number of deliveries', async () => {
    failures.set('always failing', 100);
    const sub = nc.subscribe(`${env.NATS_SUBJECT_PREFIX}dlq.probe.${PROBE_SUBJECT}.${ORG}`, { max: 1 });
    const got = (async () => {
      for await (const m of sub) return m;
    })();
    await publishRaw(9007, 'always failing');
    const m = await Promise.race([got, new Promise((_, rej) => setTimeout(() => rej(new Error('no dead letter')), 20_000))]);
    expect((m as { headers: { get(k: string): string } }).headers.get('x-dead-letter-reason')).toMatch(/failed after 4 deliveries/);
    expect(100 - failures.get('always failing')!).toBe(4);
  });
});

describe('Idempotency-Key', () => {
  it('replays the stored answer for the same key and body, with one write and one event', async () => {
    const before = await streamMessages();
    const first = await call('/v1/notes', { method: 'POST', json: { text: 'idem' }, headers: { 'idempotency-key': 'k-1' } });
    const second = await call('/v1/notes', { method: 'POST', json: { text: 'idem' }, headers: { 'idempotency-key': 'k-1' } });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const a = await first.json();
    expect(await second.json()).toEqual(a);
    await eventually(async () => (await streamMessages()) === before + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(await streamMessages()).toBe(before + 1);
  });

  it('answers 422 when the key is reused with another body, and writes nothing', async () => {
    await call('/v1/notes', { method: 'POST', json: { text: 'one' }, headers: { 'idempotency-key': 'k-2' } });
    const total = (await (await call('/v1/notes')).json()).total;
    const res = await call('/v1/notes', { method: 'POST', json: { text: 'two' }, headers: { 'idempotency-key': 'k-2' } });
    expect(res.status).toBe(422);
    expect((await res.json()).code).toBe('idempotency_key_reused');
    expect((await (await call('/v1/notes')).json()).total).toBe(total);
  });

  it('the query string is part of the request a key names, in any parameter order', async () => {
    const first = await call('/v1/notes?mode=a&x=1', { method: 'POST', json: { text: 'q' }, headers: { 'idempotency-key': 'k-q' } });
    expect(first.status).toBe(200);
    const same = await call('/v1/notes?x=1&mode=a', { method: 'POST', json: { text: 'q' }, headers: { 'idempotency-key': 'k-q' } });
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    const other = await call('/v1/notes?mode=b&x=1', { method: 'POST', json: { text: 'q' }, headers: { 'idempotency-key': 'k-q' } });
    expect(other.status).toBe(422);
    expect((await other.json()).code).toBe('idempotency_key_reused');
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const slow = call('/v1/notes', { method: 'POST', json: { text: 'slow', delay_ms: 800 }, headers: { 'idempotency-key': 'k-3' } });
    await new Promise((r) => setTimeout(r, 200));
    const second = await call('/v1/notes', { method: 'POST', json: { text: 'slow', delay_ms: 800 }, headers: { 'idempotency-key': 'k-3' } });
    expect(second.status).toBe(409);
    expect((await second.json()).code).toBe('idempotency_key_in_flight');
    expect((await slow).status).toBe(200);
  });

  it('does not store a failed attempt: the retry runs for real', async () => {
    const bad = await call('/v1/notes', { method: 'POST', json: { text: '' }, headers: { 'idempotency-key': 'k-4' } });
    expect(bad.status).toBe(400);
    const good = await call('/v1/notes', { method: 'POST', json: { text: '' }, headers: { 'idempotency-key': 'k-4' } });
    expect(good.status).toBe(400);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('survives a restart of the service', async () => {
    const first = await (await call('/v1/notes', { method: 'POST', json: { text: 'durable' }, headers: { 'idempotency-key': 'k-5' } })).json();
    const port = svc.port;
    await svc.close();
    svc = await startTestService(probeService, { ...env, NATS_URL: nats.url, CONSUMER_MAX_DELIVER: '4', PORT: String(port) });
    const again = await call('/v1/notes', { method: 'POST', json: { text: 'durable' }, headers: { 'idempotency-key': 'k-5' } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(first);
    const notes = await (await call('/v1/notes')).json();
    expect(notes.ids.filter((id: number) => id === first.id)).toHaveLength(1);
  });

  it('keys are per organisation', async () => {
    const a = await (await call('/v1/notes', { method: 'POST', json: { text: 'org scoped' }, headers: { 'idempotency-key': 'shared' } })).json();
    const other: ApiResponse = await fetch(`${svc.url}/v1/notes`, {
      method: 'POST',
      headers: { [INTERNAL_HEADERS.orgId]: '8', 'content-type': 'application/json', 'idempotency-key': 'shared' },
      body: JSON.stringify({ text: 'org scoped' }),
    });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect((await other.json()).id).not.toBe(a.id);
  });
});

describe("a request's last write (ctx.writeLast)", () => {
  // which transaction wrote a row is read from its xmin; the relay marking an event sent writes a
  // new version of the row with its own, so it is paused while these tests read them
  beforeAll(async () => {
    await svc.relay.stop();
  });
  afterAll(() => {
    svc.relay.start();
  });
  const stored = async (id: number) => {
    const em = svc.deps.orm.em.fork();
    const note = await sqlRows<{ tx: string }>(em, 'select xmin::text as tx from notes where id = ?', [id]);
    const events = await sqlRows<{ tx: string }>(em, 'select xmin::text as tx from kit_outbox where subject = ? and resource = ?', [PROBE_SUBJECT, `last-${id}`]);
    return { note: note.map((r) => r.tx), events: events.map((r) => r.tx) };
  };

  it('without a transaction open, the write and the events emitted before it commit together in one statement', async () => {
    const res = await call('/v1/notes/last', { method: 'POST', json: { text: 'alone' } });
    expect(res.status).toBe(200);
    const { id, committed_at_once } = await res.json();
    // committed when the write returned, before the handler ended: no transaction was open around it
    expect(committed_at_once).toBe(true);
    const { note, events } = await stored(id);
    expect(note).toHaveLength(1);
    // the event was written by the same transaction as the note
    expect(events).toEqual(note);
  });

  it('a write that fails writes none of the events emitted before it', async () => {
    const first = await (await call('/v1/notes/last', { method: 'POST', json: { text: 'taken' } })).json();
    const again = await call('/v1/notes/last', { method: 'POST', json: { text: 'taken again', id: first.id } });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('duplicate_note');
    expect((await stored(first.id)).events).toHaveLength(1);
  });

  it('a write after the last write is refused, not committed on its own', async () => {
    const res = await call('/v1/notes/last', { method: 'POST', json: { text: 'written twice', twice: true } });
    expect(res.status).toBe(500);
    const notes = await sqlRows<{ text: string }>(svc.deps.orm.em.fork(), "select text from notes where text like 'written twice%' order by id");
    // the last write had committed with its event; the one after it never ran
    expect(notes.map((n) => n.text)).toEqual(['written twice']);
  });

  it('with an Idempotency-Key it runs in the request transaction, which holds the key too, and a retry replays it', async () => {
    const res = await call('/v1/notes/last', { method: 'POST', json: { text: 'keyed' }, headers: { 'idempotency-key': 'last-1' } });
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer.committed_at_once).toBe(false);
    const { note, events } = await stored(answer.id);
    expect(events).toEqual(note);
    const keys = await sqlRows<{ tx: string }>(svc.deps.orm.em.fork(), "select xmin::text as tx from kit_idempotency where idem_key = 'last-1'");
    expect(keys.map((k) => k.tx)).toEqual(note);
    const replay = await call('/v1/notes/last', { method: 'POST', json: { text: 'keyed' }, headers: { 'idempotency-key': 'last-1' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(answer);
    expect((await stored(answer.id)).events).toHaveLength(1);
  });
  describe('an audited last write (decision 255)', () => {
    /** The note's transaction, its event's and its audit record's (by `now()`, the chainer rewriting the record's xmin), and the record. */
    const recorded = async (id: number) => {
      const em = svc.deps.orm.em.fork();
      const [note] = await sqlRows<{ tx: string }>(em, 'select xmin::text as tx from notes where id = ?', [id]);
      const [event] = await sqlRows<{ tx: string; at: string }>(em, "select xmin::text as tx, to_char(created_at, 'YYYY-MM-DD HH24:MI:SS.US') as at from kit_outbox where subject = ? and resource = ?", [PROBE_SUBJECT, `last-${id}`]);
      const records = await sqlRows<{ at: string; after: unknown; status: number; operation: string; resource_id: string }>(
        em,
        "select to_char(recorded_at, 'YYYY-MM-DD HH24:MI:SS.US') as at, after, status, operation, resource_id from kit_audit_events where org_id = ? and operation = 'recordNote' and resource_id = ?",
        [ORG, String(id)],
      );
      return { note: note?.tx, event, records };
    };

    it('given its answer, the write commits alone with its event and its record of that answer', async () => {
      const res = await call('/v1/notes/recorded', { method: 'POST', json: { text: 'declared', declare: true } });
      expect(res.status).toBe(200);
      const answer = await res.json();
      expect(answer).toEqual({ id: expect.any(Number), text: 'declared' });
      const { note, event, records } = await recorded(answer.id);
      expect(event.tx).toBe(note);
      expect(records).toEqual([{ at: event.at, after: answer, status: 200, operation: 'recordNote', resource_id: String(answer.id) }]);
    });

    it('without its answer, the write runs in the request transaction, which the record of the answer made after it commits with', async () => {
      const res = await call('/v1/notes/recorded', { method: 'POST', json: { text: 'undeclared', declare: false } });
      expect(res.status).toBe(200);
      const answer = await res.json();
      // not committed when the write returned: the request's transaction was still open
      expect(answer).toEqual({ id: expect.any(Number), text: 'undeclared', committed_at_once: false });
      const { note, event, records } = await recorded(answer.id);
      expect(event.tx).toBe(note);
      expect(records).toEqual([{ at: event.at, after: answer, status: 200, operation: 'recordNote', resource_id: String(answer.id) }]);
    });

    it('a write that fails leaves neither an event nor a record, either way', async () => {
      const first = await (await call('/v1/notes/recorded', { method: 'POST', json: { text: 'kept', declare: true } })).json();
      for (const declare of [true, false]) {
        const again = await call('/v1/notes/recorded', { method: 'POST', json: { text: 'taken', declare, id: first.id } });
        expect(again.status).toBe(409);
        expect((await again.json()).code).toBe('duplicate_note');
      }
      const { event, records } = await recorded(first.id);
      expect(event).toBeDefined();
      expect(await sqlRows(svc.deps.orm.em.fork(), 'select 1 from kit_outbox where subject = ? and resource = ?', [PROBE_SUBJECT, `last-${first.id}`])).toHaveLength(1);
      expect(records.map((r) => r.after)).toEqual([{ id: first.id, text: 'kept' }]);
    });
  });
});
