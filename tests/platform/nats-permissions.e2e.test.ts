import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { connect, type NatsConnection, type Msg } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { EventBus, INTERNAL_HEADERS, createLogger, requestReply, startResponders, type RunningService } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation, startTestService } from '../support/stack.js';
import { PrivateNats } from '../kit/nats-server.js';
import { probeService } from '../kit/probe-service.js';

/*
 * The shipped server configuration (deploy/nats/nats-server.conf) on a second nats-server: each
 * service may publish only its own area's subjects, the example integration user reads one
 * organisation's events and nothing else, and request-reply for an organisation is open only to
 * the user the configuration lets ask.
 */
const CONF = path.resolve(import.meta.dirname, '../../deploy/nats/nats-server.conf');
const USERS = ['sales', 'purchase', 'finance', 'accounting', 'settings', 'gateway', 'integration-42'] as const;
type User = (typeof USERS)[number];
const password = (u: User) => `test-password-${u}`;
const serverEnv = Object.fromEntries(USERS.map((u) => [`LEDGERLINE_NATS_${u.toUpperCase().replace(/-/g, '_')}_PASSWORD`, password(u)]));

const nats = new PrivateNats({ configFile: CONF, env: serverEnv });
const env = isolation();
let probe: RunningService;
const open: NatsConnection[] = [];

/** A connection as one of the configuration's users, with its own reply subjects. */
async function as(user: User): Promise<NatsConnection> {
  const nc = await connect({ servers: nats.url, user, pass: password(user), inboxPrefix: `_INBOX_${user}` });
  open.push(nc);
  return nc;
}

/** The next permission error the server reports on a connection. */
function nextPermissionError(nc: NatsConnection): Promise<string> {
  return (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'error') return String(s.error);
    }
    return 'closed';
  })();
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`timed out: ${what}`)), ms))]);
}

beforeAll(async () => {
  await nats.start();
  // a real service (the kit's probe, which publishes sales.probe.noted) as the sales user: its
  // streams, its durable consumer, its outbox relay and its dead letters all under the permissions
  probe = await startTestService(probeService, {
    ...env,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: '',
    NATS_USER: 'sales',
    NATS_PASSWORD: password('sales'),
    NATS_INBOX_PREFIX: '_INBOX_sales',
  });
}, 30_000);
afterAll(async () => {
  await probe?.close();
  for (const nc of open) await nc.close().catch(() => undefined);
  await nats.stop();
  await dropIsolation(env);
});

const note = (org: number, text: string) =>
  fetch(`${probe.url}/v1/notes`, {
    method: 'POST',
    headers: { [INTERNAL_HEADERS.orgId]: String(org), [INTERNAL_HEADERS.scopes]: 'admin', 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });

describe('deploy/nats/nats-server.conf', () => {
  it('refuses a connection without credentials or with a wrong password', async () => {
    await expect(connect({ servers: nats.url })).rejects.toThrow(/Authorization/i);
    await expect(connect({ servers: nats.url, user: 'sales', pass: 'wrong' })).rejects.toThrow(/Authorization/i);
  });

  it("a service publishes its own area's events through its outbox, and its consumer reads them", async () => {
    const integration = await as('integration-42');
    const seen: Msg[] = [];
    integration.subscribe('sales.*.*.42', {
      callback: (_e, m) => {
        seen.push(m);
      },
    });
    await integration.flush();
    const res = await note(42, 'for organisation 42');
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: number };
    await eventually(async () => seen.length === 1, 5000);
    expect(seen[0].subject).toBe('sales.probe.noted.42');
    expect(seen[0].json<{ orgid: string; data: { note_id: number } }>()).toMatchObject({ orgid: '42', data: { note_id: id } });
    // the probe's own durable consumer applied it: JetStream consumers and acks work under the permissions
    const effects = async () =>
      (await (await fetch(`${probe.url}/v1/effects`, { headers: { [INTERNAL_HEADERS.orgId]: '42', [INTERNAL_HEADERS.scopes]: 'admin' } })).json()) as Array<{ note_id: number }>;
    await eventually(async () => (await effects()).some((e) => e.note_id === id), 5000);
  });

  it("refuses another area's subject: purchase cannot forge sales.invoice.posted.5", async () => {
    const jsm = await jetstreamManager(await as('sales'));
    const before = (await jsm.streams.info('SALES')).state.messages;
    const purchase = await as('purchase');
    const refused = nextPermissionError(purchase);
    purchase.publish('sales.invoice.posted.5', JSON.stringify({ specversion: '1.0', id: 'forged', orgid: '5', data: {} }));
    expect(await withTimeout(refused, 5000, 'permission error')).toMatch(/Permissions Violation for Publish to "sales\.invoice\.posted\.5"/);
    // nothing reached the stream
    await purchase.flush();
    const after = await jsm.streams.info('SALES', { subjects_filter: 'sales.invoice.posted.>' });
    expect(after.state.messages).toBe(before);
    expect(after.state.subjects ?? {}).toEqual({});
  });

  it("the integration user receives organisation 42's events and cannot subscribe to organisation 43's or to all", async () => {
    const integration = await as('integration-42');
    for (const subject of ['sales.*.*.43', 'sales.>', 'settings.*.*.42']) {
      const refused = new Promise<string>((resolve) => integration.subscribe(subject, {
        callback: (err) => {
          if (err) resolve(String(err));
        },
      }));
      expect(await withTimeout(refused, 5000, `refusal of ${subject}`)).toMatch(/Permissions Violation for Subscription/);
    }
    // and it cannot publish anything, not even its own organisation's subjects
    const refused = nextPermissionError(integration);
    integration.publish('sales.invoice.posted.42', '{}');
    expect(await withTimeout(refused, 5000, 'publish refusal')).toMatch(/Permissions Violation for Publish/);
  });

  it('request-reply: finance may ask sales about an organisation, purchase may not, and the answer goes to the asker only', async () => {
    const log = createLogger('test', 'error');
    const busOf = async (user: User) => {
      const bus = await EventBus.connect(
        {
          NATS_URL: nats.url,
          NATS_SUBJECT_PREFIX: '',
          NATS_USER: user,
          NATS_PASSWORD: password(user),
          NATS_INBOX_PREFIX: `_INBOX_${user}`,
          NATS_STREAM_REPLICAS: 1,
          NATS_STREAM_MAX_AGE: 0,
          NATS_STREAM_MAX_BYTES: -1,
        },
        `test-${user}`,
        log,
      );
      open.push(bus.nc);
      return bus;
    };
    const sales = await busOf('sales');
    const [responder] = startResponders(
      [{ subject: 'rpc.sales.document.lookup', handle: async (_em, data, orgId) => ({ asked: data, orgId }) }],
      probe.deps.orm,
      sales,
      log,
      'test-sales',
    );
    await sales.nc.flush();
    const finance = await busOf('finance');
    expect(await requestReply(finance, 'rpc.sales.document.lookup', 42, { type: 'sales_invoice', id: 1 })).toEqual({ asked: { type: 'sales_invoice', id: 1 }, orgId: 42 });
    const purchase = await busOf('purchase');
    await expect(requestReply(purchase, 'rpc.sales.document.lookup', 42, { type: 'sales_invoice', id: 1 }, 1000)).rejects.toMatchObject({ status: 503 });
    // another client cannot listen to finance's replies
    const integration = await as('integration-42');
    const refused = new Promise<string>((resolve) => integration.subscribe('_INBOX_finance.>', {
        callback: (err) => {
          if (err) resolve(String(err));
        },
      }));
    expect(await withTimeout(refused, 5000, 'inbox refusal')).toMatch(/Permissions Violation for Subscription/);
    responder.unsubscribe();
  });
});
