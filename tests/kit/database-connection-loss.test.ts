import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { INTERNAL_HEADERS, countDeadLetters, sqlRows, type RunningService } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation, startTestService, type ApiResponse } from '../support/stack.js';
import { PROBE_SUBJECT, failures, probeService } from './probe-service.js';
import { streamForSubject } from '@ledgerline/contracts';

/*
 * A database connection lost mid-request, on the real Postgres (decision 142). Before the commit
 * was sent nothing was written, and the answer says so (503 `service_unavailable`, retry). Once
 * the COMMIT (or a write that commits itself) was with the server, the server may have committed:
 * when the transaction's outbox events are found from a new connection it did, and the request
 * is answered as made (decision 163); without events to prove it by, the answer is 503
 * `commit_outcome_unknown`, never "retry" — here the server did commit, so a client that retried
 * a plain 503 would have written the note twice. With an Idempotency-Key the same request sent
 * again is answered as made.
 */
const env = isolation();
let svc: RunningService;
const ORG = 11;

const call = (path: string, json: unknown, headers: Record<string, string> = {}) =>
  fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.orgId]: String(ORG), [INTERNAL_HEADERS.scopes]: 'admin', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(json),
  }) as Promise<ApiResponse>;
const notesWith = async (text: string) =>
  (await sqlRows<{ n: number }>(svc.deps.orm.em.fork(), 'select count(*)::int as n from notes where text = ?', [text]))[0].n;
const eventsOf = async (text: string) =>
  (await sqlRows<{ n: number }>(svc.deps.orm.em.fork(), "select count(*)::int as n from kit_outbox where envelope::jsonb->'data'->>'text' = ?", [text]))[0].n;
/** The effects the probe's consumer applied for the note of `text`. */
const effectsOfNote = async (text: string) =>
  (await sqlRows<{ n: number }>(svc.deps.orm.em.fork(), 'select count(*)::int as n from effects e join notes n on n.id = e.note_id where n.text = ?', [text]))[0].n;

/** Sends a write whose connection is lost on purpose; expects the unknown outcome, the write in fact committed. */
async function expectUnknownOutcome(path: string, text: string, lose: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  const res = await call(path, { text, lose, ...extra }, headers);
  expect(res.status).toBe(503);
  const problem = await res.json();
  expect(problem).toMatchObject({ status: 503, code: 'commit_outcome_unknown', type: '/problems/commit-outcome-unknown' });
  // the server had committed it: a blind retry would have made a second
  expect(await notesWith(text)).toBe(1);
  return problem;
}

beforeAll(async () => {
  // two deliveries before a failing event is dead-lettered: an outage must not use them up
  // and a session idle inside a transaction for 1.5 s is ended by the database
  svc = await startTestService({ ...probeService, name: 'connlossprobe' }, { ...env, CONSUMER_MAX_DELIVER: '2', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1500' });
});
afterAll(async () => {
  await svc?.close();
  await dropIsolation(env);
});

describe('a lost database connection', () => {
  it('before the commit was sent: 503 service_unavailable, nothing written, and the next request is served', async () => {
    const res = await call('/v1/notes', { text: 'lost before commit', lose: 'before_commit' });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.headers.get('retry-after')).toBe('1');
    const problem = await res.json();
    expect(problem).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(problem.detail).toMatch(/nothing was written/);
    expect(await notesWith('lost before commit')).toBe(0);
    expect(await eventsOf('lost before commit')).toBe(0);

    const next = await call('/v1/notes', { text: 'after the loss' });
    expect(next.status).toBe(200);
    expect(await notesWith('after the loss')).toBe(1);
  });

  it('while the COMMIT was with the server: its outbox event, found from a new connection, shows it was made — answered as made, once', async () => {
    const res = await call('/v1/notes', { text: 'proved at commit', lose: 'at_commit' });
    expect(res.status).toBe(200);
    expect((await res.json()).text).toBe('proved at commit');
    expect(await notesWith('proved at commit')).toBe(1);
    expect(await eventsOf('proved at commit')).toBe(1);
    // the same when the socket fails with a reset (ECONNRESET) rather than ending
    expect((await call('/v1/notes', { text: 'proved at reset', lose: 'at_commit_reset' })).status).toBe(200);
    expect(await notesWith('proved at reset')).toBe(1);
  });

  it('a write with no event to prove it by: 503 commit_outcome_unknown, not "retry" — the server had committed', async () => {
    const problem = await expectUnknownOutcome('/v1/notes', 'lost at commit', 'at_commit', {}, { quiet: true });
    expect(problem.detail).toMatch(/may or may not have been made; look it up/);
    await expectUnknownOutcome('/v1/notes', 'reset at commit', 'at_commit_reset', {}, { quiet: true });
  });

  it('with an Idempotency-Key, the same request sent again after an unknown outcome is answered as made, once', async () => {
    const headers = { 'idempotency-key': 'lost-commit-1' };
    const problem = await expectUnknownOutcome('/v1/notes', 'keyed loss', 'at_commit', headers, { quiet: true });
    expect(problem.detail).toMatch(/send the request again with the same Idempotency-Key/);
    // the key names the request, body included: the client sends exactly what it sent
    const again = await call('/v1/notes', { text: 'keyed loss', lose: 'at_commit', quiet: true }, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await again.json()).text).toBe('keyed loss');
    expect(await notesWith('keyed loss')).toBe(1);
    expect(await eventsOf('keyed loss')).toBe(0);
  });

  it("a request's last write, which commits itself, lost while with the server: commit_outcome_unknown", async () => {
    await expectUnknownOutcome('/v1/notes/last', 'lost last write', 'at_write');

    const next = await call('/v1/notes/last', { text: 'last write after the loss' });
    expect(next.status).toBe(200);
    expect((await next.json()).committed_at_once).toBe(true);
  });

  it('under a consumer, an event waits in place until the database answers again: applied once, never dead-lettered', async () => {
    // the handler's session ends four times in a row: with two deliveries, handing it back each
    // time would have dead-lettered it after the second
    failures.set('db-lost under the consumer', 4);
    expect((await call('/v1/notes', { text: 'db-lost under the consumer' })).status).toBe(200);
    const effects = async () =>
      (await sqlRows<{ n: number }>(svc.deps.orm.em.fork(), "select count(*)::int as n from effects e join notes n on n.id = e.note_id where n.text = 'db-lost under the consumer'"))[0].n;
    await eventually(async () => (await effects()) === 1, 20_000, 100);
    expect(failures.get('db-lost under the consumer')).toBe(0);
    expect(await countDeadLetters(svc.deps.bus, 'connlossprobe')).toBe(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(await effects()).toBe(1);
  }, 30_000);

  it('a database that accepts no writes (a standby during a failover): 503 service_unavailable, nothing written, reads answered', async () => {
    const admin = new pg.Client({ connectionString: env.DATABASE_URL });
    await admin.connect();
    const database = `${env.DATABASE_PREFIX}connlossprobe`;
    // every new session of the service's database is read-only, and the current ones are ended
    const readOnly = async (on: boolean) => {
      await admin.query(on ? `alter database "${database}" set default_transaction_read_only = on` : `alter database "${database}" reset default_transaction_read_only`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
    };
    try {
      await readOnly(true);
      // (a request may still find a session that has not ended yet, or a pool connection that did)
      let attempt = 0;
      const refused = await eventually(async () => {
        const text = `while read-only ${attempt++}`;
        const res = await call('/v1/notes', { text });
        if (res.status !== 503) return false;
        const problem = await res.json();
        return problem.code === 'service_unavailable' && /accepts no writes/.test(problem.detail) ? text : false;
      }, 10_000, 100);
      expect(await notesWith(refused)).toBe(0);
      const list = await fetch(`${svc.url}/v1/notes`, { headers: { [INTERNAL_HEADERS.orgId]: String(ORG), [INTERNAL_HEADERS.scopes]: 'admin' } });
      expect(list.status).toBe(200);
    } finally {
      await readOnly(false);
      await admin.end();
    }
    await eventually(async () => (await call('/v1/notes', { text: 'writable again' })).status === 200, 10_000, 100);
    expect(await notesWith('writable again')).toBe(1);
  }, 30_000);

  it('a request that stalls inside its transaction is ended by the database: 503, nothing written, nothing left holding locks', async () => {
    // the note and its event are written, then the handler waits 3 s before its commit
    const res = await call('/v1/notes', { text: 'stalled in its transaction', delay_ms: 3000 });
    expect(res.status).toBe(503);
    const problem = await res.json();
    expect(problem.code).toBe('service_unavailable');
    expect(problem.detail).toMatch(/nothing was written/);
    expect(await notesWith('stalled in its transaction')).toBe(0);
    expect(await eventsOf('stalled in its transaction')).toBe(0);
    const idle = await sqlRows<{ n: number }>(
      svc.deps.orm.em.fork(),
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'idle in transaction' and state_change < now() - interval '1.5 seconds'",
    );
    expect(idle[0].n).toBe(0);
    // a request that commits within the bound is not touched
    expect((await call('/v1/notes', { text: 'quick enough', delay_ms: 200 })).status).toBe(200);
  }, 20_000);

  it('the server never drops an event on its own: durables redeliver without bound, and an older bounded one is updated at start', async () => {
    const { bus } = svc.deps;
    const stream = await bus.ensureStream(streamForSubject(PROBE_SUBJECT));
    const durable = bus.durableName('probe-noted');
    // the consumer dead-letters by itself after CONSUMER_MAX_DELIVER (2 here); the server does not count
    expect((await bus.jsm.consumers.info(stream, durable)).config.max_deliver).toBe(-1);
    // a durable from a deployment that bounded it at the server too (CONSUMER_MAX_DELIVER + 1)
    await bus.jsm.consumers.update(stream, durable, { max_deliver: 3 });
    await svc.close();
    svc = await startTestService({ ...probeService, name: 'connlossprobe' }, { ...env, CONSUMER_MAX_DELIVER: '2', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1500' });
    expect((await svc.deps.bus.jsm.consumers.info(stream, durable)).config.max_deliver).toBe(-1);
    // and it still consumes
    expect((await call('/v1/notes', { text: 'after the update' })).status).toBe(200);
    await eventually(async () => (await effectsOfNote('after the update')) === 1, 10_000, 100);
  }, 30_000);

  it('a durable waits CONSUMER_ACK_WAIT_MS for an acknowledgement (30 s unless set), brought to the setting at each start', async () => {
    const { bus } = svc.deps;
    const stream = await bus.ensureStream(streamForSubject(PROBE_SUBJECT));
    const durable = bus.durableName('probe-noted');
    expect((await bus.jsm.consumers.info(stream, durable)).config.ack_wait).toBe(30_000_000_000);
    // what a crashed consumer held is delivered again this much later: an operator shortens it
    await svc.close();
    svc = await startTestService({ ...probeService, name: 'connlossprobe' }, { ...env, CONSUMER_MAX_DELIVER: '2', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1500', CONSUMER_ACK_WAIT_MS: '12000' });
    const updated = (await svc.deps.bus.jsm.consumers.info(stream, durable)).config;
    expect(updated.ack_wait).toBe(12_000_000_000);
    expect(updated.max_deliver).toBe(-1);
    expect((await call('/v1/notes', { text: 'under a shorter wait' })).status).toBe(200);
    await eventually(async () => (await effectsOfNote('under a shorter wait')) === 1, 10_000, 100);
  }, 30_000);
});
