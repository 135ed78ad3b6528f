import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { readEvents } from '../support/assertions.js';
import { CUSTOMER, VAT21, invoiceBody } from './helpers.js';

/*
 * Group commit through the gateway (issue 15): concurrent documents of one series share commits,
 * yet every answered document has its own consecutive number and exactly one event, and a
 * document refused inside a group takes no number and fails none of its neighbours.
 */

let stack: Stack;
beforeAll(async () => {
  // 500 writers at once are this test's subject: the admission gate is opened to take them all
  // together, as an operator would for a bulk importer (with the default 64, the rest queue and a
  // slow machine refuses some with 503, decision 243)
  stack = await startStack({ services: ['sales'], env: { MAX_CONCURRENT_REQUESTS: '1000' } });
}, 60_000);
afterAll(async () => stack?.close());

const post = (path: string, json: unknown, headers: Record<string, string> = {}) => stack.api(path, { method: 'POST', json, headers });

describe('group commit of numbered documents', () => {
  it('500 concurrent invoices get 500 consecutive numbers and one event each', async () => {
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) => post('/v1/sales/invoices', invoiceBody({ date_issued: '2029-02-01', items: [{ title: `Line ${i}`, qty: 1, rate: 10 + i, taxes: [VAT21] }] }))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(500).fill(200));
    const invoices = await Promise.all(results.map((r) => r.json()));
    expect(invoices.map((i) => i.no).sort()).toEqual(Array.from({ length: 500 }, (_, i) => `INV2029${String(i + 1).padStart(5, '0')}`));
    // each answer is its own document: its figures, its number in its event
    for (const inv of invoices) expect(inv.items[0].title).toBe(`Line ${inv.items[0].rate - 10}`);
    const events = await eventually(async () => {
      const seen = (await readEvents(stack, 'sales', 'SALES', 'sales.invoice.posted')).filter((e) => e.data.date_issued === '2029-02-01');
      return seen.length >= 500 ? seen : null;
    }, 20_000);
    expect(events).toHaveLength(500);
    const byId = new Map(events.map((e) => [e.data.id, e.data.no]));
    for (const inv of invoices) expect(byId.get(inv.id)).toBe(inv.no);
  }, 120_000);

  it('credit notes refused inside a group (the invoice fully credited) take no number and fail no neighbour', async () => {
    const invoice = await (await post('/v1/sales/invoices', invoiceBody({ date_issued: '2029-03-01', items: [{ title: 'Work', qty: 1, rate: 1000, taxes: [] }] }))).json();
    // 120 credit notes of 10 against an invoice of 1000: exactly 100 fit
    const results = await Promise.all(
      Array.from({ length: 120 }, () =>
        post('/v1/sales/credit-notes', { customer: CUSTOMER, currency: 'CZK', date_issued: '2029-03-02', credited_doc_id: invoice.id, items: [{ title: 'Refund', qty: 1, rate: 10, taxes: [] }] }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 422)).toHaveLength(20);
    const bodies = await Promise.all(results.map((r) => r.json()));
    for (const b of bodies.filter((_, i) => statuses[i] === 422)) expect(b.code).toBe('credit_exceeds_invoice');
    expect(bodies.filter((_, i) => statuses[i] === 200).map((c) => c.no).sort()).toEqual(Array.from({ length: 100 }, (_, i) => `CN2029${String(i + 1).padStart(5, '0')}`));
    const next = await (await post('/v1/sales/credit-notes', { customer: CUSTOMER, currency: 'CZK', date_issued: '2029-03-03', items: [{ title: 'Goodwill', qty: 1, rate: 5, taxes: [] }] })).json();
    expect(next.no).toBe('CN202900101');
  }, 120_000);

  it('an Idempotency-Key retried while its first request waits in a group is answered once, with one document', async () => {
    const body = invoiceBody({ date_issued: '2029-04-01' });
    const key = 'group-retry-1';
    const crowd = Array.from({ length: 40 }, () => post('/v1/sales/invoices', invoiceBody({ date_issued: '2029-04-01' })));
    const first = post('/v1/sales/invoices', body, { 'idempotency-key': key });
    const second = post('/v1/sales/invoices', body, { 'idempotency-key': key });
    const [a, b] = await Promise.all([first, second]);
    await Promise.all(crowd);
    const answered = [a, b].filter((r) => r.status === 200);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    for (const r of [a, b].filter((x) => x.status !== 200)) expect(r.status).toBe(409);
    const replay = await post('/v1/sales/invoices', body, { 'idempotency-key': key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const ids = new Set([...(await Promise.all(answered.map((r) => r.json()))).map((x) => x.id), (await replay.json()).id]);
    expect(ids.size).toBe(1);
  }, 60_000);
});
