import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Webhook } from 'standardwebhooks';
import { DATABASE_URL, eventually, startStack, type Stack } from '../support/stack.js';
import { expectProblem, readEvents } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { invoiceBody } from '../sales/helpers.js';
import { Receiver } from '../support/webhook-receiver.js';

/*
 * Webhooks against a real HTTP receiver: Standard Webhooks signatures (verified with the
 * `standardwebhooks` package), retries on the configured backoff, disabling after the schedule,
 * two-tenant isolation, secret rotation with both secrets valid during the overlap, and SSRF
 * refusals when saving and when connecting.
 */

const receiver = new Receiver();
let stack: Stack;
let other: { orgId: number; key: string };

beforeAll(async () => {
  await receiver.start();
  stack = await startStack({
    services: ['sales'],
    env: { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '300ms,700ms', WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_SECRET_OVERLAP: '1h' },
  });
  other = await secondOrganisation(stack);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await receiver.stop();
});

async function createWebhook(path: string, events: string[], key?: string) {
  const res = await stack.api('/v1/settings/webhooks', { method: 'POST', key, json: { url: `${receiver.url}${path}`, events, description: `receiver ${path}` } });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

async function postInvoice(key?: string) {
  const res = await stack.api('/v1/sales/invoices', { method: 'POST', key, json: invoiceBody() });
  expect(res.status).toBe(200);
  return res.json();
}

async function deliveries(webhookId: number, key?: string) {
  return (await (await stack.api(`/v1/settings/webhooks/${webhookId}/deliveries`, { key })).json()).entities;
}

describe('webhooks', () => {
  it('delivers an invoice event as a signed CloudEvent that standardwebhooks verifies; the secret is shown once', async () => {
    const hook = await createWebhook('/ok/first', ['sales.invoice.*']);
    expect(hook).toMatchObject({ url: `${receiver.url}/ok/first`, events: ['sales.invoice.*'], status: 'enabled', disabled_reason: null });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const read = await (await stack.api(`/v1/settings/webhooks/${hook.id}`)).json();
    expect(read).not.toHaveProperty('secret');
    expect(JSON.stringify(await (await stack.api('/v1/settings/webhooks')).json())).not.toContain(hook.secret);

    const invoice = await postInvoice();
    const [hit] = await eventually(async () => (receiver.at('/ok/first').length ? receiver.at('/ok/first') : null), 10_000);
    const verified = new Webhook(hook.secret).verify(hit.body, hit.headers) as { id: string; type: string; orgid: string; data: { id: number; no: string; total_amount: number } };
    expect(verified).toMatchObject({ type: 'com.ledgerline.sales.invoice.posted.v1', orgid: '1', data: { id: invoice.id, no: invoice.no, total_amount: invoice.total_amount } });
    expect(hit.headers['webhook-id']).toBe(verified.id);
    expect(hit.headers['content-type']).toBe('application/json');
    // a tampered body or another secret does not verify
    expect(() => new Webhook(hook.secret).verify(hit.body.replace(invoice.no, 'X'), hit.headers)).toThrow();
    expect(() => new Webhook('whsec_' + Buffer.alloc(24, 1).toString('base64')).verify(hit.body, hit.headers)).toThrow();

    const [d] = await eventually(async () => {
      const list = await deliveries(hook.id);
      return list[0]?.status === 'succeeded' ? list : null;
    });
    expect(d).toMatchObject({ webhook_id: hook.id, event_id: verified.id, event_type: 'com.ledgerline.sales.invoice.posted.v1', attempts: 1, last_status_code: 204, last_error: null, next_attempt_at: null });
    expect(d.last_duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('a credit note applied to an invoice, and taken back, reaches an endpoint listening for allocations, signed', async () => {
    const hook = await createWebhook('/ok/allocations', ['sales.credit_allocation.*']);
    const invoice = await postInvoice();
    const cnRes = await stack.api('/v1/sales/credit-notes', {
      method: 'POST',
      json: { customer: invoice.customer, currency: 'CZK', date_issued: invoice.date_issued, credited_doc_id: invoice.id, items: [{ title: 'Refund', qty: 1, rate: 10 }] },
    });
    expect(cnRes.status, await cnRes.clone().text()).toBe(200);
    const cn = await cnRes.json();
    const allocation = await (await stack.api(`/v1/sales/credit-notes/${cn.id}/allocations`, { method: 'POST', json: { invoice_id: invoice.id } })).json();
    expect(allocation.amount).toBe(10);
    const removed = await (await stack.api(`/v1/sales/credit-notes/${cn.id}/allocations/${allocation.id}`, { method: 'DELETE' })).json();
    const hits = await eventually(async () => (receiver.at('/ok/allocations').length >= 2 ? receiver.at('/ok/allocations') : null), 10_000);
    const verified = hits.map((h) => new Webhook(hook.secret).verify(h.body, h.headers) as { type: string; data: unknown });
    // one subject and one resource: delivered in the order they happened, and nothing else (no invoice or credit note)
    expect(verified.map((v) => [v.type, v.data])).toEqual([
      ['com.ledgerline.sales.credit_allocation.recorded.v1', allocation],
      ['com.ledgerline.sales.credit_allocation.recorded.v1', removed],
    ]);
  });

  it("an organisation's endpoints receive only its own events, and another organisation cannot see them", async () => {
    const mine = await createWebhook('/ok/org1', ['sales.>']);
    const theirs = await createWebhook('/org2', ['sales.invoice.posted'], other.key);
    await postInvoice(other.key);
    await eventually(async () => receiver.at('/org2').length === 1, 10_000);
    await postInvoice();
    await eventually(async () => receiver.at('/ok/org1').length === 1, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.at('/org2')).toHaveLength(1);
    expect(JSON.parse(receiver.at('/org2')[0].body).orgid).toBe(String(other.orgId));
    expect(receiver.at('/ok/org1').map((h) => JSON.parse(h.body).orgid)).toEqual(['1']);

    await expectProblem(await stack.api(`/v1/settings/webhooks/${mine.id}`, { key: other.key }), 404, 'webhook_not_found');
    await expectProblem(await stack.api(`/v1/settings/webhooks/${mine.id}/deliveries`, { key: other.key }), 404, 'webhook_not_found');
    await expectProblem(await stack.api(`/v1/settings/webhooks/${mine.id}/rotate-secret`, { method: 'POST', key: other.key }), 404);
    await expectProblem(await stack.api(`/v1/settings/webhooks/${mine.id}`, { method: 'DELETE', key: other.key }), 404);
    const listed = await (await stack.api('/v1/settings/webhooks', { key: other.key })).json();
    expect(listed.entities.map((w: { id: number }) => w.id)).toEqual([theirs.id]);
  });

  it('retries a 500 on the backoff schedule and succeeds on the third attempt', async () => {
    const hook = await createWebhook('/flaky/2', ['sales.invoice.posted']);
    await postInvoice();
    const hits = await eventually(async () => (receiver.at('/flaky/2').length === 3 ? receiver.at('/flaky/2') : null), 10_000);
    // the schedule is 300 ms then 700 ms (polling adds a little)
    expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(280);
    expect(hits[2].at - hits[1].at).toBeGreaterThanOrEqual(680);
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
    const [d] = await eventually(async () => {
      const list = await deliveries(hook.id);
      return list[0]?.status === 'succeeded' ? list : null;
    });
    expect(d).toMatchObject({ attempts: 3, last_status_code: 200, last_response: 'ok' });
  });

  it('after the whole schedule fails, the endpoint is disabled with an event; it can be re-enabled and the delivery retried', async () => {
    const hook = await createWebhook('/down', ['sales.invoice.posted']);
    await postInvoice();
    const [d] = await eventually(async () => {
      const list = await deliveries(hook.id);
      return list[0]?.status === 'failed' ? list : null;
    }, 10_000);
    expect(receiver.at('/down')).toHaveLength(3);
    expect(d).toMatchObject({ attempts: 3, last_status_code: 500, last_error: 'HTTP 500', next_attempt_at: null });
    // at most 1 KB of the answer is kept (the 5 KB body cut on a character boundary)
    expect(Buffer.byteLength(d.last_response)).toBeLessThanOrEqual(1024);
    expect(d.last_response).toMatch(/^é+$/);

    const disabled = await (await stack.api(`/v1/settings/webhooks/${hook.id}`)).json();
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: expect.stringMatching(/3 attempts failed; the last: HTTP 500/) });
    const events = await eventually(async () => {
      const list = await readEvents(stack, 'settings', 'SETTINGS', 'settings.webhook.disabled');
      return list.find((e) => e.data.webhook_id === hook.id) ? list : null;
    });
    expect(events.find((e) => e.data.webhook_id === hook.id)).toMatchObject({ orgid: '1', data: { url: `${receiver.url}/down` } });

    // a disabled endpoint gets nothing new, and a retry waits for it to be enabled
    await postInvoice();
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.at('/down')).toHaveLength(3);
    await expectProblem(await stack.api(`/v1/settings/webhooks/${hook.id}/deliveries/${d.id}/retry`, { method: 'POST' }), 409, 'webhook_disabled');
    const enabled = await (await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'PUT', json: { status: 'enabled' } })).json();
    expect(enabled).toMatchObject({ status: 'enabled', disabled_reason: null });
    const retried = await (await stack.api(`/v1/settings/webhooks/${hook.id}/deliveries/${d.id}/retry`, { method: 'POST' })).json();
    expect(retried).toMatchObject({ id: d.id, status: 'pending' });
    await eventually(async () => receiver.at('/down').length === 4, 5000);
  });

  it('does not follow a redirect: the signed body goes only to the registered URL', async () => {
    const hook = await createWebhook('/redirect', ['sales.invoice.posted']);
    await postInvoice();
    await eventually(async () => receiver.at('/redirect').length === 1, 10_000);
    const [d] = await eventually(async () => {
      const list = await deliveries(hook.id);
      return list[0]?.last_status_code === 302 ? list : null;
    });
    expect(d.last_error).toBe('HTTP 302 redirect (not followed)');
    expect(receiver.at('/ok/redirected')).toHaveLength(0);
    await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'DELETE' });
  });

  it('keeps the order of one resource per endpoint: a later event waits while an earlier one is retried', async () => {
    const hook = await createWebhook('/flaky/1/org', ['settings.organisation.updated']);
    // two updates of the same resource (the organisation); the first delivery fails once
    expect((await stack.api('/v1/settings/organisation', { method: 'PUT', json: { website: 'https://one.example' } })).status).toBe(200);
    expect((await stack.api('/v1/settings/organisation', { method: 'PUT', json: { website: 'https://two.example' } })).status).toBe(200);
    const hits = await eventually(async () => (receiver.at('/flaky/1/org').length === 3 ? receiver.at('/flaky/1/org') : null), 10_000);
    const sites = hits.map((h) => JSON.parse(h.body).data.website);
    expect(sites).toEqual(['https://one.example', 'https://one.example', 'https://two.example']);
    await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'DELETE' });
  });

  it('reads no envelope of an organisation without a matching endpoint: passed over unread there, read where one listens', async () => {
    await createWebhook('/ok/unread', ['sales.invoice.posted']);
    const ownOrg = Number((await (await stack.api('/v1/settings/organisation')).json()).id);
    const invoice = await postInvoice();
    // the relay names the resource in the header the fan-out orders by, unread
    const bus = stack.services.sales!.deps.bus;
    const stream = bus.streamName('SALES');
    await eventually(async () => {
      const { state } = await bus.jsm.streams.info(stream);
      const headers: Array<string | undefined> = [];
      for (let seq = state.last_seq; seq >= state.first_seq && seq > 0; seq--) {
        const m = await bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
        if (m?.subject === bus.subject(`sales.invoice.posted.${ownOrg}`)) headers.push(m.header?.get('ce-subject'));
      }
      return headers.includes(String(invoice.id));
    });
    await eventually(async () => receiver.at('/ok/unread').some((h) => JSON.parse(h.body).subject === String(invoice.id)));

    // Bytes no envelope parser accepts, on the subject of an organisation nobody listens for and
    // on the own one's: the first is acknowledged unread, the second is read and dead-lettered.
    const settings = stack.services.settings!;
    const consumer = 'settings-webhooks-sales-invoice-posted';
    const irrelevant = async () => {
      const text = await (await fetch(`${settings.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('ledgerline_consumer_messages_total{') && l.includes(`consumer="${consumer}"`) && l.includes('outcome="irrelevant"'));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = await irrelevant();
    const nobody = 987_654_321;
    const dlq = (org: number) => settings.deps.bus.nc.subscribe(bus.subject(`dlq.settings.sales.invoice.posted.${org}`), { max: 1 });
    const ownDlq = dlq(ownOrg);
    const nobodyDlq = dlq(nobody);
    const garbage = async (org: number) => {
      const h = natsHeaders();
      h.set('ce-subject', 'garbage');
      await bus.js.publish(bus.subject(`sales.invoice.posted.${org}`), 'not an envelope {', { headers: h, msgID: randomUUID() });
    };
    await garbage(nobody);
    await garbage(ownOrg);
    const first = async (sub: typeof ownDlq, ms: number) =>
      Promise.race([(async () => { for await (const m of sub) return m; })(), new Promise<null>((r) => setTimeout(() => r(null), ms))]);
    const dead = await first(ownDlq, 10_000);
    expect(dead?.headers?.get('x-dead-letter-reason')).toMatch(/unusable envelope/);
    await eventually(async () => (await irrelevant()) === before + 1);
    expect(await first(nobodyDlq, 500)).toBeNull();
  });

  it('gives up an attempt that gets no answer within the time limit, and retries it', async () => {
    const hook = await createWebhook('/hang', ['sales.invoice.posted']);
    await postInvoice();
    // Each attempt waits out the 2 s limit, then the next waits for its place in the schedule
    // (300 ms, 700 ms). The whole schedule is awaited rather than the state after the first
    // attempt, which lasts only 300 ms and a slow poll can miss.
    const [d] = await eventually(async () => {
      const list = await deliveries(hook.id);
      return list[0]?.status === 'failed' ? list : null;
    }, 20_000);
    expect(d).toMatchObject({ status: 'failed', attempts: 3, last_status_code: null, last_error: 'no answer within 2000 ms', next_attempt_at: null });
    expect(d.last_duration_ms).toBeGreaterThanOrEqual(1900);
    const hits = receiver.at('/hang');
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
    expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(1900 + 280);
    expect(hits[2].at - hits[1].at).toBeGreaterThanOrEqual(1900 + 680);
    await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'DELETE' });
  }, 40_000);

  it('a rotated secret: both the new and the old one verify during the overlap', async () => {
    const hook = await createWebhook('/ok/rotate', ['sales.invoice.posted']);
    const rotated = await (await stack.api(`/v1/settings/webhooks/${hook.id}/rotate-secret`, { method: 'POST' })).json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    await postInvoice();
    const [hit] = await eventually(async () => (receiver.at('/ok/rotate').length ? receiver.at('/ok/rotate') : null), 10_000);
    expect(hit.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(rotated.secret).verify(hit.body, hit.headers)).toBeTruthy();
    expect(new Webhook(hook.secret).verify(hit.body, hit.headers)).toBeTruthy();
  });

  it('a settings:read key may list webhooks but not create, change, rotate or retry them', async () => {
    const created = await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['settings:read'] } });
    expect(created.status).toBe(200);
    const reader = (await created.json()).key as string;
    const before = (await (await stack.api('/v1/settings/webhooks')).json()).total;
    expect((await stack.api('/v1/settings/webhooks', { key: reader })).status).toBe(200);
    await expectProblem(await stack.api('/v1/settings/webhooks', { method: 'POST', key: reader, json: { url: `${receiver.url}/ok`, events: ['sales.>'] } }), 403, 'insufficient_scope');
    await expectProblem(await stack.api('/v1/settings/webhooks/1', { method: 'PUT', key: reader, json: { status: 'disabled' } }), 403, 'insufficient_scope');
    await expectProblem(await stack.api('/v1/settings/webhooks/1/rotate-secret', { method: 'POST', key: reader }), 403, 'insufficient_scope');
    await expectProblem(await stack.api('/v1/settings/webhooks/1/deliveries/1/retry', { method: 'POST', key: reader }), 403, 'insufficient_scope');
    expect((await (await stack.api('/v1/settings/webhooks')).json()).total).toBe(before);
  });

  it('refuses bad input with problems and changes nothing', async () => {
    const before = (await (await stack.api('/v1/settings/webhooks')).json()).total;
    await expectProblem(await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: 'not a url', events: ['sales.>'] } }), 400);
    await expectProblem(await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: `${receiver.url}/ok`, events: [] } }), 400);
    await expectProblem(await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: `${receiver.url}/ok`, events: ['purchase.invoice.*'] } }), 400);
    await expectProblem(await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: `${receiver.url}/ok`, events: ['sales.>.x'] } }), 400);
    await expectProblem(await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: `${receiver.url}/ok`, events: ['settings.api_key.revoked'] } }), 400);
    await expectProblem(await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: `ftp://example.com/x`, events: ['sales.>'] } }), 422, 'webhook_url_not_allowed');
    await expectProblem(await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: `http://user:pw@127.0.0.1/x`, events: ['sales.>'] } }), 422, 'webhook_url_not_allowed');
    await expectProblem(await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: `${receiver.url}/ok\u0000`, events: ['sales.>'] } }), 400);
    await expectProblem(await stack.api('/v1/settings/webhooks/999999', { method: 'PUT', json: { status: 'disabled' } }), 404, 'webhook_not_found');
    await expectProblem(await stack.api('/v1/settings/webhooks/1/deliveries/999999/retry', { method: 'POST' }), 404);
    expect((await (await stack.api('/v1/settings/webhooks')).json()).total).toBe(before);
  });
});

describe('webhook addresses (SSRF), without WEBHOOKS_ALLOW_PRIVATE', () => {
  let strict: Stack;
  beforeAll(async () => {
    strict = await startStack({ env: { WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '60s' } });
  }, 60_000);
  afterAll(async () => strict?.close());

  it('refuses loopback, private, link-local and metadata addresses when saving', async () => {
    for (const url of [
      `${receiver.url}/ok`,
      'http://localhost/x',
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://0.0.0.0/',
      'http://192.168.1.1/',
      'http://[fd00:ec2::254]/',
      // issue 52: IPv4 inside IPv6 forms (translated, compatible, NAT64, local NAT64, 6to4, Teredo)
      'http://[::ffff:0:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[64:ff9b:1::a00:1]/',
      'http://[2002:7f00:1::1]/',
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    ]) {
      const res = await strict.api('/v1/settings/webhooks', { method: 'POST', json: { url, events: ['settings.organisation.updated'] } });
      const problem = await expectProblem(res, 422, 'webhook_url_not_allowed');
      expect(problem.detail, url).toMatch(/loopback, private, link-local or reserved/);
      // a name is refused without telling what it resolves to
      if (url.includes('localhost')) expect(problem.detail).toBe('localhost resolves to a loopback, private, link-local or reserved address, which webhooks may not reach');
    }
    expect((await (await strict.api('/v1/settings/webhooks')).json()).total).toBe(0);
  });

  it('checks again when connecting: a name that now resolves to loopback is not reached (DNS rebinding)', async () => {
    // saved while its address was public, then the name moves to 127.0.0.1
    const hook = await (await strict.api('/v1/settings/webhooks', { method: 'POST', json: { url: 'http://93.184.216.34/hook', events: ['settings.organisation.updated'] } })).json();
    expect(hook.status).toBe('enabled');
    const port = new URL(receiver.url).port;
    const db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${strict.env.DATABASE_PREFIX}settings`) });
    await db.connect();
    await db.query('update webhook_endpoints set url = $1 where id = $2', [`http://localhost:${port}/ok/rebound`, hook.id]);
    await db.end();
    expect((await strict.api('/v1/settings/organisation', { method: 'PUT', json: { website: 'https://example.com' } })).status).toBe(200);
    const [d] = await eventually(async () => {
      const list = (await (await strict.api(`/v1/settings/webhooks/${hook.id}/deliveries`)).json()).entities;
      return list[0]?.attempts >= 1 && list[0]?.status === 'pending' ? list : null;
    }, 10_000);
    expect(d.last_error).toBe('localhost resolves to a loopback, private, link-local or reserved address, which webhooks may not reach');
    expect(d.last_status_code).toBeNull();
    expect(receiver.at('/ok/rebound')).toHaveLength(0);
  });
});
