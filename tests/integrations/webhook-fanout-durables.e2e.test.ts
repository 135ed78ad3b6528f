import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { settingsService } from '../../apps/settings/src/service.js';
import type { SettingsResources } from '../../apps/settings/src/resources.js';
import type { RunningService } from '@ledgerline/service-kit';
import { eventually, startStack, startTestService, type Stack } from '../support/stack.js';
import { invoiceBody } from '../sales/helpers.js';
import { Receiver } from '../support/webhook-receiver.js';

/*
 * The webhook fan-out's durables exist only while an enabled endpoint selects their subject
 * (decision 179): none on a system without endpoints, one opened before an endpoint is answered
 * (so the next event reaches it), followed by another replica, and retired once nothing selects it.
 */

const receiver = new Receiver();
let stack: Stack;
let second: RunningService<any>;

const durable = (subject: string) => `settings-webhooks-${subject.replace(/[._]/g, '-')}`;

async function durableExists(subject: string): Promise<boolean> {
  const bus = stack.services.settings!.deps.bus;
  const stream = bus.streamName(subject.split('.')[0]!.toUpperCase() as never);
  return (await bus.jsm.consumers.info(stream, bus.durableName(durable(subject))).catch(() => null)) !== null;
}

const consuming = (service: RunningService<any>, subject: string) =>
  service.consumers.find((c) => c.durableName === service.deps.bus.durableName(durable(subject)))!.consuming;

async function createWebhook(path: string, events: string[]) {
  const res = await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: `${receiver.url}${path}`, events } });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

async function postInvoice() {
  const res = await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() });
  expect(res.status).toBe(200);
  return res.json();
}

beforeAll(async () => {
  await receiver.start();
  stack = await startStack({ services: ['sales'], env: { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '50', WEBHOOK_FANOUT_SWEEP_MS: '100' } });
  // a second settings replica on the same database and bus, which the gateway does not call
  second = await startTestService(settingsService, { ...stack.env, WEBHOOK_FANOUT_SWEEP_MS: '100' });
}, 60_000);
afterAll(async () => {
  await second?.close();
  await stack?.close();
  await receiver.stop();
});

describe('webhook fan-out durables', () => {
  it('makes none while no endpoint exists: posted documents cost the fan-out nothing', async () => {
    await postInvoice();
    for (const subject of ['sales.invoice.posted', 'sales.credit_note.posted', 'accounting.transaction.posted', 'settings.organisation.updated']) {
      expect(await durableExists(subject)).toBe(false);
      expect(consuming(stack.services.settings!, subject)).toBe(false);
    }
  });

  it('opens the durable before the endpoint is answered, so the next invoice is delivered; another replica follows it', async () => {
    const hook = await createWebhook('/opened', ['sales.invoice.posted']);
    // no wait: the durable was made in the request
    expect(await durableExists('sales.invoice.posted')).toBe(true);
    expect(await durableExists('sales.credit_note.posted')).toBe(false);
    const invoice = await postInvoice();
    await eventually(async () => receiver.at('/opened').some((h) => JSON.parse(h.body).subject === String(invoice.id)), 10_000);
    await eventually(async () => consuming(second, 'sales.invoice.posted'));
    expect(consuming(second, 'sales.credit_note.posted')).toBe(false);
    const del = await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
  });

  it('opens every subject a pattern selects', async () => {
    const hook = await createWebhook('/pattern', ['sales.>']);
    for (const subject of ['sales.invoice.posted', 'sales.credit_note.posted', 'sales.credit_allocation.recorded', 'sales.invoice.compliance_evaluated']) {
      expect(await durableExists(subject)).toBe(true);
    }
    expect(await durableExists('purchase.bill.posted')).toBe(false);
    await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'DELETE' });
  });

  it('retires a durable on every replica once no enabled endpoint selects it, and opens it again when one does', async () => {
    const hook = await createWebhook('/toggle', ['sales.invoice.posted']);
    await eventually(async () => consuming(second, 'sales.invoice.posted'));
    const off = await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'PUT', json: { status: 'disabled' } });
    expect(off.status).toBe(200);
    await eventually(async () => !(await durableExists('sales.invoice.posted')) && !consuming(stack.services.settings!, 'sales.invoice.posted') && !consuming(second, 'sales.invoice.posted'), 10_000);
    // an invoice posted while nothing selects its subject is delivered to nobody
    const unheard = await postInvoice();

    const on = await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'PUT', json: { status: 'enabled' } });
    expect(on.status).toBe(200);
    expect(await durableExists('sales.invoice.posted')).toBe(true);
    const heard = await postInvoice();
    await eventually(async () => receiver.at('/toggle').some((h) => JSON.parse(h.body).subject === String(heard.id)), 10_000);
    expect(receiver.at('/toggle').some((h) => JSON.parse(h.body).subject === String(unheard.id))).toBe(false);
    await eventually(async () => consuming(second, 'sales.invoice.posted'));

    // changing an enabled endpoint's events opens the new subject's durable at once
    const changed = await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'PUT', json: { events: ['sales.credit_note.posted'] } });
    expect(changed.status).toBe(200);
    expect(await durableExists('sales.credit_note.posted')).toBe(true);
    await eventually(async () => !(await durableExists('sales.invoice.posted')), 10_000);
    await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'DELETE' });
    await eventually(async () => !(await durableExists('sales.credit_note.posted')), 10_000);
  });

  it('makes a selected subject\'s missing durable again from the oldest selecting endpoint, so the events published meanwhile are delivered', async () => {
    const before = await postInvoice();
    await new Promise((r) => setTimeout(r, 20));
    const hook = await createWebhook('/missing', ['sales.invoice.posted']);
    await eventually(async () => consuming(second, 'sales.invoice.posted'));
    // deleted behind the service's back (as when a new version adds a subject that endpoints'
    // patterns already select, published by a service deployed first)
    const bus = stack.services.settings!.deps.bus;
    await bus.jsm.consumers.delete(bus.streamName('SALES'), bus.durableName(durable('sales.invoice.posted')));
    expect(await durableExists('sales.invoice.posted')).toBe(false);
    const meanwhile = await postInvoice();
    await eventually(async () => receiver.at('/missing').some((h) => JSON.parse(h.body).subject === String(meanwhile.id)), 10_000);
    await eventually(async () => consuming(stack.services.settings!, 'sales.invoice.posted') && consuming(second, 'sales.invoice.posted'), 10_000);
    // not from before the endpoint existed
    expect(receiver.at('/missing').some((h) => JSON.parse(h.body).subject === String(before.id))).toBe(false);
    expect(receiver.at('/missing').filter((h) => JSON.parse(h.body).subject === String(meanwhile.id))).toHaveLength(1);
    await stack.api(`/v1/settings/webhooks/${hook.id}`, { method: 'DELETE' });
    await eventually(async () => !(await durableExists('sales.invoice.posted')), 10_000);
  });

  it('an endpoint saved while a selected subject\'s durable is missing makes it from the oldest other endpoint, not from now', async () => {
    const durablesOf = (service: RunningService<any>) => (service.deps.resources as SettingsResources).webhooks.durables;
    const first = await createWebhook('/first', ['sales.invoice.posted']);
    await eventually(async () => consuming(second, 'sales.invoice.posted'));
    // no sweep runs: the endpoint's write alone must make the durable right
    await durablesOf(stack.services.settings!).stop();
    await durablesOf(second).stop();
    try {
      const bus = stack.services.settings!.deps.bus;
      await bus.jsm.consumers.delete(bus.streamName('SALES'), bus.durableName(durable('sales.invoice.posted')));
      const meanwhile = await postInvoice();
      const later = await createWebhook('/later', ['sales.invoice.posted']);
      await eventually(async () => receiver.at('/first').some((h) => JSON.parse(h.body).subject === String(meanwhile.id)), 10_000);
      await stack.api(`/v1/settings/webhooks/${later.id}`, { method: 'DELETE' });
    } finally {
      durablesOf(stack.services.settings!).start(100);
      durablesOf(second).start(100);
    }
    await stack.api(`/v1/settings/webhooks/${first.id}`, { method: 'DELETE' });
    await eventually(async () => !(await durableExists('sales.invoice.posted')), 10_000);
  });

  it('retires a durable whose endpoint never committed (a write that failed or a process killed after opening it)', async () => {
    const res = await stack.api('/v1/settings/webhooks', { method: 'POST', json: { url: `${receiver.url}/never`, events: ['finance.payout.posted'], description: 'x'.repeat(501) } });
    expect(res.status).toBe(400);
    // the opening a request makes before its commit, without the endpoint's row
    await (stack.services.settings!.deps.resources as SettingsResources).webhooks.durables.switchOf('finance.payout.posted').open();
    expect(await durableExists('finance.payout.posted')).toBe(true);
    await eventually(async () => !(await durableExists('finance.payout.posted')) && !consuming(stack.services.settings!, 'finance.payout.posted'), 10_000);
  });

  it('retires a durable at once after opening it, while its consumption is still subscribing', async () => {
    const sw = (stack.services.settings!.deps.resources as SettingsResources).webhooks.durables.switchOf('finance.bank_transaction.recorded');
    for (let i = 0; i < 5; i++) {
      await sw.open();
      await sw.retire();
      expect(sw.consuming).toBe(false);
      expect(await durableExists('finance.bank_transaction.recorded')).toBe(false);
    }
  });

  it('retires, after a restart, a durable an older version kept for a subject nobody selects', async () => {
    const bus = stack.services.settings!.deps.bus;
    const subject = 'purchase.bill.posted';
    const stream = await bus.ensureStream('PURCHASE');
    await bus.jsm.consumers.add(stream, {
      durable_name: bus.durableName(durable(subject)),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: bus.subject(`${subject}.*`),
    });
    expect(await durableExists(subject)).toBe(true);
    await stack.restartService('settings');
    await eventually(async () => !(await durableExists(subject)), 10_000);
  });
});
