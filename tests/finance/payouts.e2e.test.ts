import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { parseEventData } from '@ledgerline/contracts';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { apiOf, expectProblem, vendorCreditBody } from '../purchase/fixtures.js';
import { secondOrganisation, watchBus, type SeenEvent } from './support.js';

let stack: Stack;
const api = apiOf(() => stack);
let nc: NatsConnection;
let seen: SeenEvent[];
let credit: any;

beforeAll(async () => {
  stack = await startStack({ services: ['purchase', 'finance'] });
  ({ nc, seen } = await watchBus(stack, ['finance']));
  // A vendor credit of 100.00 that the payment platform refunds to us.
  credit = await (await api('/v1/purchase/vendor-credits', { method: 'POST', json: vendorCreditBody({ items: [{ qty: 1, rate: 100 }] }) })).json();
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

const FEE = { amount: -5, description: 'Platform fee', gl_account: { number: '568', name: 'Bank and platform fees' } };
const payout = (overrides: Record<string, unknown> = {}) => ({
  currency: 'CZK',
  date_issued: '2026-04-01',
  description: 'Payout April',
  psp_object_id: 'po_1001',
  total_amount: 95,
  lines: [{ amount: 100, description: 'Refund of ACME credit', paid_record: { type: 'purchase_vendor_credit', id: credit.id } }, FEE],
  ...overrides,
});
const send = (method: string, path: string, json: unknown) => api(path, { method, json });
async function creditState() {
  const page = await (await api(`/v1/purchase/vendor-credits?search=${credit.no}`)).json();
  return page.entities[0];
}

describe('payouts', () => {
  let created: any;

  it('accepts lines of 100.00 and −5.00 (fee on 568) with total 95.00 and matches the paid line', async () => {
    const res = await send('POST', '/v1/finance/payouts', payout());
    expect(res.status).toBe(200);
    created = await res.json();
    expect(created).toMatchObject({ currency: 'CZK', total_amount: 95, psp_object_id: 'po_1001', version: 1, is_locked: false });
    expect(created.lines).toHaveLength(2);
    expect(created.lines[0]).toMatchObject({
      amount: 100,
      match_status: 'matched',
      matched_document: { type: 'purchase_vendor_credit', id: credit.id, no: credit.no, amount: 100 },
    });
    expect(created.lines[1]).toMatchObject({ amount: -5, match_status: 'none', gl_account: { number: '568' } });
    await eventually(async () => (await creditState()).payment_status === 'paid');
    expect(await creditState()).toMatchObject({ total_amount: 100, amount_paid: 100, amount_due: 0 });
    const posted = seen.find((e) => e.subject === 'finance.payout.posted' && e.envelope.data.id === created.id);
    expect(posted?.envelope.data).toEqual({ ...created, replaces_version: null });
    expect(() => parseEventData('finance.payout.posted', posted!.envelope.data)).not.toThrow();
    expect((await (await api(`/v1/finance/payouts/${created.id}`)).json())).toEqual(created);
  });

  it('refuses a total that is not the sum of the lines (422) and an empty currency (400)', async () => {
    const wrong = await expectProblem(await send('POST', '/v1/finance/payouts', payout({ total_amount: 1000 })), 422, 'payout_total_mismatch');
    expect(wrong.errors![0].path).toBe('total_amount');
    const empty = await expectProblem(await send('POST', '/v1/finance/payouts', payout({ currency: '' })), 400, 'validation_error');
    expect(empty.errors!.map((e) => e.path)).toContain('currency');
    const missing = await expectProblem(await send('PUT', `/v1/finance/payouts/${created.id}`, payout({ currency: undefined })), 400);
    expect(missing.errors!.map((e) => e.path)).toContain('currency');
    await expectProblem(await send('PUT', `/v1/finance/payouts/${created.id}`, payout({ currency: '' })), 400);
    await expectProblem(await send('PUT', `/v1/finance/payouts/${created.id}`, payout({ total_amount: 1000 })), 422, 'payout_total_mismatch');
  });

  it('lists by psp_object_id (repeatable), search, sort and paging', async () => {
    const other = await (await send('POST', '/v1/finance/payouts', payout({ psp_object_id: 'po_2002', description: 'Payout May', lines: [FEE], total_amount: -5 }))).json();
    const one = await (await api('/v1/finance/payouts?psp_object_id=po_1001')).json();
    expect(one.total).toBe(1);
    expect(one.entities.map((p: any) => p.id)).toEqual([created.id]);
    const both = await (await api('/v1/finance/payouts?psp_object_id=po_1001&psp_object_id=po_2002&sort=-id')).json();
    expect(both.entities.map((p: any) => p.id)).toEqual([other.id, created.id]);
    const searched = await (await api('/v1/finance/payouts?search=may')).json();
    expect(searched.entities.map((p: any) => p.id)).toEqual([other.id]);
    const paged = await (await api('/v1/finance/payouts?from=1&take=1&sort=id')).json();
    expect(paged).toMatchObject({ total: 2, from: 1, take: 1 });
    expect(paged.entities[0].id).toBe(other.id);
    await expectProblem(await api('/v1/finance/payouts?sort=size'), 400, 'validation_error');
  });

  it('replaces a payout: version +1, previous matches compensated, new ones applied', async () => {
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const res = await send('PUT', `/v1/finance/payouts/${created.id}`, payout({
      total_amount: 55,
      lines: [{ amount: 60, paid_record: { type: 'purchase_vendor_credit', id: credit.id } }, FEE],
    }));
    expect(res.status).toBe(200);
    const replaced = await res.json();
    expect(replaced).toMatchObject({ id: created.id, uid: created.uid, version: 2, total_amount: 55 });
    // a sync since before the replacement reads its new version, and no payout left alone
    const changed = await (await api(`/v1/finance/payouts?updated_since=${encodeURIComponent(since)}`)).json();
    expect(changed.entities.map((p: any) => [p.id, p.version])).toEqual([[created.id, 2]]);
    expect(replaced.lines[0]).toMatchObject({ amount: 60, match_status: 'matched' });
    await eventually(async () => (await creditState()).amount_paid === 60);
    expect(await creditState()).toMatchObject({ amount_paid: 60, amount_due: 40, payment_status: 'partially_paid' });

    const matched = seen.filter((e) => e.subject === 'finance.payment.matched' && e.envelope.data.payout_id === created.id).map((e) => e.envelope.data);
    expect(matched.map((m) => [m.payout_version, m.amount])).toEqual([
      [1, 100],
      [1, -100],
      [2, 60],
    ]);
    const versions = seen.filter((e) => e.subject === 'finance.payout.posted' && e.envelope.data.id === created.id).map((e) => e.envelope.data.version);
    expect(versions).toEqual([1, 2]);
    const v2 = seen.find((e) => e.subject === 'finance.payout.posted' && e.envelope.data.id === created.id && e.envelope.data.version === 2)!;
    expect(v2.envelope.data.replaces_version).toBe(1);
    for (const m of matched) expect(() => parseEventData('finance.payment.matched', m)).not.toThrow();
    expect((await (await api(`/v1/finance/payouts/${created.id}`)).json()).version).toBe(2);
  });

  it('answers 503 and stores nothing when a paid line cannot be looked up', async () => {
    const count = async () => ((await stack.services.finance!.deps.orm.em.getConnection().execute('select count(*)::int as n from payouts')) as any[])[0].n;
    const before = await count();
    await stack.stopService('purchase');
    try {
      await expectProblem(await send('POST', '/v1/finance/payouts', payout({ psp_object_id: 'po_503' })), 503, 'service_unavailable');
      expect(await count()).toBe(before);
    } finally {
      await stack.restartService('purchase');
    }
  });

  it('unknown id → 404; a payout replaced with is_locked: true is final → 409 document_locked, unchanged', async () => {
    await expectProblem(await send('PUT', '/v1/finance/payouts/999999', payout()), 404, 'payout_not_found');
    await expectProblem(await api('/v1/finance/payouts/999999'), 404, 'payout_not_found');
    // another organisation's payout is unknown to it, for reading and for replacing
    const other = await secondOrganisation(stack);
    await expectProblem(await api(`/v1/finance/payouts/${created.id}`, { key: other.key }), 404, 'payout_not_found');
    await expectProblem(await api(`/v1/finance/payouts/${created.id}`, { method: 'PUT', key: other.key, json: payout() }), 404, 'payout_not_found');
    const locked = await send('PUT', `/v1/finance/payouts/${created.id}`, payout({ is_locked: true }));
    expect(locked.status).toBe(200);
    expect(await locked.json()).toMatchObject({ version: 3, is_locked: true });
    await expectProblem(await send('PUT', `/v1/finance/payouts/${created.id}`, payout()), 409, 'document_locked');
    await expectProblem(await send('PUT', `/v1/finance/payouts/${created.id}`, payout({ is_locked: false })), 409, 'document_locked');
    expect((await (await api(`/v1/finance/payouts/${created.id}`)).json())).toMatchObject({ version: 3, is_locked: true });
  });

  it('a payout created with is_locked: true cannot be replaced', async () => {
    const res = await send('POST', '/v1/finance/payouts', payout({ psp_object_id: 'po_locked', is_locked: true }));
    expect(res.status).toBe(200);
    const p = await res.json();
    expect(p).toMatchObject({ version: 1, is_locked: true });
    await expectProblem(await send('PUT', `/v1/finance/payouts/${p.id}`, payout()), 409, 'document_locked');
  });
});
