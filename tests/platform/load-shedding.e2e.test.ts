import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * Early load shedding (issue 79, part 3; decision 243) through the gateway: a sales service that
 * works on two requests at once, with a short queue, is sent far more than it can take at once.
 * What it cannot take soon is refused with 503 service_unavailable and Retry-After before
 * anything is done (no invoice, no number, no event, no ledger entry); what it answered 200 is
 * there exactly once, numbered without a gap; none is a 500; and once the burst is over it takes
 * requests again.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    services: ['sales', 'accounting'],
    env: { MAX_CONCURRENT_REQUESTS: '2', REQUEST_QUEUE_LIMIT: '20', REQUEST_QUEUE_TARGET_MS: '20', REQUEST_QUEUE_INTERVAL_MS: '50', REQUEST_QUEUE_MAX_WAIT_MS: '200' },
  });
}, 60_000);
afterAll(async () => stack?.close());

describe('early load shedding', () => {
  it('refuses what a busy service cannot take soon, before doing anything, and posts the rest exactly once', async () => {
    const day = '2030-05-02';
    const answers = await Promise.all(
      Array.from({ length: 150 }, async (_, i) => {
        const res = await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ date_issued: day, items: [{ title: `Burst ${i}`, qty: 1, rate: 100 + i }] }) });
        return { status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type'), body: (await res.json()) as Record<string, any> };
      }),
    );
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    const refused = answers.filter((a) => a.status === 503);
    const accepted = answers.filter((a) => a.status === 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(accepted.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.type).toContain('application/problem+json');
      expect(r.retryAfter).toBe('1');
      expect(r.body).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(r.body.detail).toMatch(/^sales: overloaded/);
    }
    // nothing of the refused was made: the day's invoices are the accepted ones, numbered 1..n without a gap
    const listed = await (await stack.api(`/v1/sales/invoices?date_issued=${day}&take=500`)).json();
    expect(listed.entities.map((d: any) => d.id).sort()).toEqual(accepted.map((a) => a.body.id).sort());
    const numbers = accepted.map((a) => Number(String(a.body.no).slice(-5))).sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: accepted.length }, (_, i) => i + 1));
    // and the ledger holds each accepted invoice once
    await eventually(async () => (await (await stack.api(`/v1/accounting/transactions?date_posting=${day}&take=0&exact_total=true`)).json()).total === accepted.length, 20_000);
    // the service counted why it refused
    const metrics = await (await fetch(`${stack.services.sales!.url}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_shed_total\{[^}]*reason="(queue_full|standing_queue|waited_too_long)"[^}]*\} [1-9]/);

    // the burst over, requests are taken again (the gateway's limit climbs back as answers succeed)
    await eventually(async () => (await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ date_issued: '2030-05-03' }) })).status === 200, 10_000);
  }, 60_000);

  it("leaves the process's own reads alone: a replacement's audit record reads the state before while the gate is full", async () => {
    const proformas = [];
    for (let i = 0; i < 6; i++) {
      const res = await stack.api('/v1/sales/proforma-invoices', { method: 'POST', json: invoiceBody({ date_issued: '2030-05-04', items: [{ title: `Záloha ${i}`, qty: 1, rate: 1000 }] }) });
      expect(res.status).toBe(200);
      proformas.push((await res.json()) as { id: number });
    }
    // each replacement reads its proforma as it stood through the app; 40 invoices keep both slots busy meanwhile
    const [replaced] = await Promise.all([
      Promise.all(proformas.map((p, i) => stack.api(`/v1/sales/proforma-invoices/${p.id}`, { method: 'PUT', json: invoiceBody({ date_issued: '2030-05-04', items: [{ title: `Záloha ${i}`, qty: 1, rate: 2000 }] }) }))),
      Promise.all(Array.from({ length: 40 }, (_, i) => stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ date_issued: '2030-05-04', items: [{ title: `Busy ${i}`, qty: 1, rate: 100 + i }] }) }))),
    ]);
    expect(replaced.map((r) => r.status).filter((s) => s !== 200 && s !== 503)).toEqual([]);
    const done = proformas.filter((_, i) => replaced[i].status === 200);
    expect(done.length).toBeGreaterThan(0);
    const records = await (await stack.api('/v1/audit-events?service=sales&operation=updateProformaInvoice&take=100')).json();
    for (const p of done) {
      const record = records.entities.find((e: any) => e.resource.id === String(p.id));
      expect(record?.before?.total_amount).toBe(1000);
      expect(record?.after?.total_amount).toBe(2000);
    }
  });
});
