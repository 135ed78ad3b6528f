import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectProblem, readEvents } from '../support/assertions.js';
import { invoiceBody } from '../sales/helpers.js';
import { Receiver } from '../support/webhook-receiver.js';

/*
 * Issue 52, point 2: a webhook carries read data of its events' areas, so it may be set up only by
 * a credential that may read them, and delivers only while that credential (its owner) still
 * may. A settings:write key used to receive every invoice and ledger entry through `events: [">"]`.
 * Also point 7: an answer far larger than the delivery log keeps is not read to its end.
 */

const receiver = new Receiver();
let stack: Stack;

beforeAll(async () => {
  await receiver.start();
  stack = await startStack({ services: ['sales'], env: { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '60s' } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await receiver.stop();
});

async function key(scopes: string[]): Promise<{ id: number; key: string }> {
  const res = await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: `scopes ${scopes.join(' ')}`, scopes } });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}
const create = (k: string, path: string, events: string[]) => stack.api('/v1/settings/webhooks', { method: 'POST', key: k, json: { url: `${receiver.url}${path}`, events } });
const deliveriesOf = async (id: number) => (await (await stack.api(`/v1/settings/webhooks/${id}/deliveries?take=100`)).json()).entities as Array<{ event_type: string; status: string; last_error: string | null }>;

describe('webhooks and the scopes of who set them up', () => {
  it('creating one needs the read scope of every area its events come from; a wildcard needs them all', async () => {
    const writer = await key(['settings:write']);
    const before = (await (await stack.api('/v1/settings/webhooks?take=0')).json()).total;
    const everything = await expectProblem(await create(writer.key, '/ok/everything', ['>']), 403, 'insufficient_scope');
    expect(everything.errors!.map((e) => e.message)).toEqual([
      'events of sales need sales:read',
      'events of purchase need purchase:read',
      'events of finance need finance:read',
      'events of accounting need accounting:read',
      'events of settings need settings:read',
      'events of contacts need contacts:read',
    ]);
    await expectProblem(await create(writer.key, '/ok/invoices', ['sales.invoice.*']), 403, 'insufficient_scope');
    await expectProblem(await create(writer.key, '/ok/posted', ['*.*.posted']), 403, 'insufficient_scope');
    expect((await (await stack.api('/v1/settings/webhooks?take=0')).json()).total).toBe(before);

    const salesReader = await key(['settings:write', 'sales:read']);
    const made = await create(salesReader.key, '/ok/sales-only', ['sales.invoice.*']);
    expect(made.status, await made.clone().text()).toBe(200);
    expect(await made.json()).toMatchObject({ owner: `key:${salesReader.id}`, withheld_reason: null });
    await expectProblem(await create(salesReader.key, '/ok/more', ['sales.>', 'accounting.transaction.posted']), 403, 'insufficient_scope');
  });

  it("changing where a webhook goes or what it selects takes the changer's scopes, and makes it the owner; a description or a disabling does not", async () => {
    const admins = await (await create(stack.adminKey, '/ok/admins', ['>'])).json();
    const writer = await key(['settings:write', 'settings:read']);
    const put = (json: unknown) => stack.api(`/v1/settings/webhooks/${admins.id}`, { method: 'PUT', key: writer.key, json });
    // redirecting an admin's webhook to one's own receiver would hand over everything it selects
    await expectProblem(await put({ url: `${receiver.url}/ok/stolen` }), 403, 'insufficient_scope');
    await expectProblem(await put({ events: ['sales.>'] }), 403, 'insufficient_scope');
    const described = await put({ description: 'noted' });
    expect(described.status).toBe(200);
    expect(await described.json()).toMatchObject({ owner: 'key:1', url: `${receiver.url}/ok/admins` });
    const disabled = await put({ status: 'disabled' });
    expect(await disabled.json()).toMatchObject({ status: 'disabled', owner: 'key:1' });
    await expectProblem(await put({ status: 'enabled' }), 403, 'insufficient_scope');
    // narrowed to what the writer reads, it may take it over
    const taken = await put({ events: ['settings.organisation.updated'], status: 'enabled' });
    expect(await taken.json()).toMatchObject({ status: 'enabled', owner: `key:${writer.id}`, events: ['settings.organisation.updated'] });
  });

  it('a narrowed owner stops receiving what it can no longer read, with the reason; a revoked one disables the webhook', async () => {
    const owner = await key(['settings:write', 'settings:read', 'sales:read']);
    const hook = await (await create(owner.key, '/ok/narrowed', ['sales.invoice.posted', 'settings.organisation.updated'])).json();
    expect(hook.owner).toBe(`key:${owner.id}`);
    const invoiceDelivered = async (no: string) => receiver.at('/ok/narrowed').some((h) => h.body.includes(`"no":"${no}"`));

    const first = await (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
    await eventually(() => invoiceDelivered(first.no), 10_000);

    // the key loses sales:read: invoices are withheld, the organisation's changes still arrive
    const narrowed = await stack.api(`/v1/settings/security/api-keys/${owner.id}`, { method: 'PUT', json: { scopes: ['settings:write', 'settings:read'] } });
    expect(narrowed.status, await narrowed.clone().text()).toBe(200);
    const read = await (await stack.api(`/v1/settings/webhooks/${hook.id}`)).json();
    expect(read).toMatchObject({ status: 'enabled', owner: `key:${owner.id}` });
    expect(read.withheld_reason).toBe(`API key ${owner.id}, which set up this webhook, no longer holds sales:read: events of sales are not delivered`);
    const second = await (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
    expect((await stack.api('/v1/settings/organisation', { method: 'PUT', json: { website: 'https://narrowed.example' } })).status).toBe(200);
    await eventually(async () => receiver.at('/ok/narrowed').some((h) => h.body.includes('narrowed.example')), 10_000);
    // the invoice's event was read by the fan-out by now or soon: give it the time, then look
    await new Promise((r) => setTimeout(r, 1000));
    expect(await invoiceDelivered(second.no)).toBe(false);

    // the key is revoked: the next event disables the webhook, saying why, and tells the bus
    expect((await stack.api(`/v1/settings/security/api-keys/${owner.id}/revoke`, { method: 'POST' })).status).toBe(200);
    const hits = receiver.at('/ok/narrowed').length;
    expect((await stack.api('/v1/settings/organisation', { method: 'PUT', json: { website: 'https://revoked.example' } })).status).toBe(200);
    const disabled = await eventually(async () => {
      const w = await (await stack.api(`/v1/settings/webhooks/${hook.id}`)).json();
      return w.status === 'disabled' ? w : null;
    }, 10_000);
    expect(disabled.disabled_reason).toBe(`API key ${owner.id}, which set up this webhook, was revoked or has expired; a credential that reads its events must enable it again`);
    expect(receiver.at('/ok/narrowed').length).toBe(hits);
    const events = await eventually(async () => {
      const all = await readEvents(stack, 'settings', 'SETTINGS', 'settings.webhook.disabled');
      return all.some((e) => e.data.webhook_id === hook.id) ? all : null;
    }, 10_000);
    expect(events.find((e) => e.data.webhook_id === hook.id)!.data.reason).toMatch(/was revoked or has expired/);
  });

  it('a delivery queued before its owner lost the scope is not sent again, and says why', async () => {
    const owner = await key(['settings:write', 'sales:read']);
    // the receiver fails the first attempt; the retry waits a minute
    const hook = await (await create(owner.key, '/down/queued', ['sales.invoice.posted'])).json();
    await (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
    const [first] = await eventually(async () => {
      const list = await (await stack.api(`/v1/settings/webhooks/${hook.id}/deliveries`)).json();
      return list.entities[0]?.status === 'pending' && list.entities[0].attempts === 1 ? list.entities : null;
    }, 10_000);
    expect(receiver.at('/down/queued')).toHaveLength(1);
    expect((await stack.api(`/v1/settings/security/api-keys/${owner.id}`, { method: 'PUT', json: { scopes: ['settings:write'] } })).status).toBe(200);
    // sent again now: the owner no longer reads sales, so nothing goes out
    expect((await stack.api(`/v1/settings/webhooks/${hook.id}/deliveries/${first.id}/retry`, { method: 'POST' })).status).toBe(200);
    const [d] = await eventually(async () => {
      const list = await deliveriesOf(hook.id);
      return list[0]?.status === 'failed' ? list : null;
    }, 10_000);
    expect(d.last_error).toBe(`not sent: API key ${owner.id}, which set up this webhook, no longer holds sales:read`);
    expect(receiver.at('/down/queued')).toHaveLength(1);
  });
});

describe('an answer larger than the delivery log keeps (issue 52, point 7)', () => {
  it('is read only as far as the log keeps: the attempt ends, the receiver sees its reader go', async () => {
    const hook = await (await create(stack.adminKey, '/huge/answer', ['settings.organisation.updated'])).json();
    expect((await stack.api('/v1/settings/organisation', { method: 'PUT', json: { website: 'https://huge.example' } })).status).toBe(200);
    const [d] = await eventually(async () => {
      const list = await deliveriesOf(hook.id);
      return list[0]?.status === 'succeeded' ? list : null;
    }, 15_000);
    expect(d).toMatchObject({ status: 'succeeded' });
    const full = (await (await stack.api(`/v1/settings/webhooks/${hook.id}/deliveries`)).json()).entities[0];
    expect(full.last_status_code).toBe(200);
    expect(Buffer.byteLength(full.last_response)).toBeLessThanOrEqual(1024);
    expect(full.last_response).toMatch(/^x+$/);
    // far less than the 200 MB it offered was taken (socket buffers hold a few MB at most)
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.hugeSent).toBeLessThan(32 * 1024 * 1024);
  });
});
