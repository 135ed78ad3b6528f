import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { invoiceBody } from '../sales/helpers.js';
import { Receiver } from '../support/webhook-receiver.js';

/*
 * Issue 52, point 3: one organisation's endpoints that never answer must not delay another's
 * deliveries. Organisation B fills its allowance of endpoints (20) with receivers that hang past
 * the sender's 10 s time limit; organisation A's deliveries still arrive within 2 s each. The
 * sender used to wait for a batch of 16 attempts to end, so A waited out B's time limits
 * (48–74 s measured).
 */

const receiver = new Receiver();
let stack: Stack;
let b: { orgId: number; key: string };

beforeAll(async () => {
  await receiver.start();
  // the defaults an operator runs with: a 10 s time limit, 20 endpoints per organisation
  stack = await startStack({ services: ['sales'], env: { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '60s' } });
  b = await secondOrganisation(stack, 'Hanging receivers');
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await receiver.stop();
});

const hook = (key: string, path: string) => stack.api('/v1/settings/webhooks', { method: 'POST', key, json: { url: `${receiver.url}${path}`, events: ['sales.invoice.posted'] } });

describe('webhook deliveries between organisations', () => {
  it('an organisation has at most 20 endpoints; the 21st is 422', async () => {
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => hook(b.key, `/hang/b${i}`)));
    expect(made.map((r) => r.status)).toEqual(Array(20).fill(200));
    await expectProblem(await hook(b.key, '/hang/b20'), 422, 'webhook_limit_reached');
    expect((await (await stack.api('/v1/settings/webhooks?take=0', { key: b.key })).json()).total).toBe(20);
  });

  it("another organisation's hanging endpoints do not delay this one's deliveries: every one within 2 s", async () => {
    const mine = await hook(stack.adminKey, '/ok/a');
    expect(mine.status).toBe(200);
    // B's invoices: 20 hanging attempts each, far more than the sender has in flight at once
    for (let i = 0; i < 5; i++) expect((await stack.api('/v1/sales/invoices', { method: 'POST', key: b.key, json: invoiceBody() })).status).toBe(200);
    await eventually(async () => receiver.hits.filter((h) => h.path.startsWith('/hang/')).length >= 8, 10_000);

    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      const posted = Date.now();
      const invoice = await (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
      const hit = await eventually(async () => receiver.at('/ok/a').find((h) => h.body.includes(`"no":"${invoice.no}"`)), 20_000, 20);
      waits.push(hit.at - posted);
    }
    waits.sort((x, y) => x - y);
    expect(waits.at(-1), `waits ${waits.join(', ')} ms`).toBeLessThan(2000);
    // meanwhile B's endpoints were being tried, no more than the organisation's share at once
    expect(receiver.hits.filter((h) => h.path.startsWith('/hang/')).length).toBeGreaterThanOrEqual(8);
  }, 90_000);
});
