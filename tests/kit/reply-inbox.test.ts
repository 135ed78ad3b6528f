import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { EventBus, NoRespondersError, ReplyTimeoutError, StreamPublishError, baseConfigSchema, createLogger, loadConfig } from '@ledgerline/service-kit';
import { dropIsolation, isolation } from '../support/stack.js';

/*
 * The kit's own request-reply (decision 132): RPCs and the relay's JetStream publishes go through
 * it. Each answer reaches its own request, the server's "no responders" fails at once, a silent
 * responder fails after the time given, a stream's acknowledgement and refusal are read, and
 * nothing waits forever when the connection closes.
 */
const env = isolation();
const log = createLogger('test', 'error');
let bus: EventBus;
const decode = (d: Uint8Array) => Buffer.from(d).toString('utf8');

beforeAll(async () => {
  bus = await EventBus.connect(loadConfig(baseConfigSchema, env), 'reply-inbox-test', log);
  // echoes the request and one header, after a delay the request names
  bus.nc.subscribe(bus.subject('rpc.echo'), {
    callback: (_e, m) => {
      const body = decode(m.data);
      setTimeout(() => m.respond(`${body}|${m.headers?.get('x-probe') ?? ''}`), Number(/wait=(\d+)/.exec(body)?.[1] ?? 0));
    },
  });
  bus.nc.subscribe(bus.subject('rpc.silent'), { callback: () => undefined });
  await bus.nc.flush();
});
afterAll(async () => {
  await bus?.close();
  await dropIsolation(env);
});

describe('the reply inbox', () => {
  it('answers each of many concurrent requests with its own reply, headers carried', async () => {
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) => {
        const h = natsHeaders();
        h.set('x-probe', `h${i}`);
        // later requests answered first: replies arrive out of order
        return bus.replies.request(bus.subject('rpc.echo'), `r${i} wait=${i % 5 === 0 ? 30 : 0}`, { timeoutMs: 5000, headers: h });
      }),
    );
    answers.forEach((m, i) => expect(decode(m.data)).toBe(`r${i} wait=${i % 5 === 0 ? 30 : 0}|h${i}`));
  });

  it('fails at once with no responders, and after its time when the responder stays silent', async () => {
    const started = Date.now();
    await expect(bus.replies.request(bus.subject('rpc.nobody'), 'x', { timeoutMs: 4000 })).rejects.toBeInstanceOf(NoRespondersError);
    expect(Date.now() - started).toBeLessThan(2000);

    const silent = bus.replies.request(bus.subject('rpc.silent'), 'x', { timeoutMs: 150 });
    await expect(silent).rejects.toBeInstanceOf(ReplyTimeoutError);
    await expect(silent).rejects.toThrow(/within 150 ms/);
  });

  it('drops an answer that comes after its request gave up, and still answers the next request', async () => {
    await expect(bus.replies.request(bus.subject('rpc.echo'), 'late wait=200', { timeoutMs: 50 })).rejects.toBeInstanceOf(ReplyTimeoutError);
    await new Promise((r) => setTimeout(r, 250));
    expect(decode((await bus.replies.request(bus.subject('rpc.echo'), 'next', { timeoutMs: 2000 })).data)).toBe('next|');
  });

  it("reads a stream's acknowledgement, a duplicate by Nats-Msg-Id, and a refusal", async () => {
    const stream = await bus.ensureStream('SALES');
    const subject = bus.subject('sales.probe.published.1');
    const first = await bus.replies.publishToStream(subject, '{"n":1}', { msgId: 'probe-1', headers: natsHeaders(), timeoutMs: 5000 });
    expect(first).toMatchObject({ stream, duplicate: false });
    const again = await bus.replies.publishToStream(subject, '{"n":1}', { msgId: 'probe-1', headers: natsHeaders(), timeoutMs: 5000 });
    expect(again).toEqual({ stream, seq: first.seq, duplicate: true });
    const stored = await bus.jsm.streams.getMessage(stream, { seq: first.seq });
    expect(stored?.string()).toBe('{"n":1}');
    expect(stored?.header.get('Nats-Msg-Id')).toBe('probe-1');

    // JetStream's own refusal: the message names another stream than the one that captures it
    const h = natsHeaders();
    h.set('Nats-Expected-Stream', 'NOT_THIS_ONE');
    const refused = bus.replies.publishToStream(subject, '{"n":2}', { msgId: 'probe-2', headers: h, timeoutMs: 5000 });
    await expect(refused).rejects.toBeInstanceOf(StreamPublishError);
    await expect(refused).rejects.toThrow(/expected stream does not match/);
    // a subject no stream captures
    await expect(bus.replies.publishToStream(bus.subject('nowhere.at.all'), '{}', { msgId: 'probe-3', headers: natsHeaders(), timeoutMs: 4000 })).rejects.toBeInstanceOf(
      NoRespondersError,
    );
  });

  it('fails the requests still waiting when the connection closes, and every later one at once', async () => {
    const own = await EventBus.connect(loadConfig(baseConfigSchema, env), 'reply-inbox-close', log);
    const waiting = own.replies.request(own.subject('rpc.silent'), 'x', { timeoutMs: 30_000 });
    await own.nc.close();
    await expect(waiting).rejects.toThrow(/closed/);
    await expect(own.replies.request(own.subject('rpc.echo'), 'x', { timeoutMs: 30_000 })).rejects.toThrow(/closed/);
  });
});
