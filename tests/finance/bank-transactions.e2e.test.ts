import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { parseEventData } from '@ledgerline/contracts';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { apiOf, billBody, expectProblem, vendorCreditBody, VAT21 } from '../purchase/fixtures.js';
import { secondOrganisation, watchBus, type SeenEvent } from './support.js';

let stack: Stack;
const api = apiOf(() => stack);
let nc: NatsConnection;
let seen: SeenEvent[];
let orgId: number;

beforeAll(async () => {
  stack = await startStack({ services: ['purchase', 'finance'] });
  ({ nc, seen } = await watchBus(stack, ['finance', 'purchase']));
  orgId = (await (await api('/v1/settings/organisation')).json()).id;
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

const post = (path: string, json: unknown, key?: string) => api(path, { method: 'POST', json, key });
async function newBill(overrides: Record<string, unknown> = {}, key?: string) {
  const res = await post('/v1/purchase/bills', billBody(overrides), key);
  expect(res.status).toBe(200);
  return res.json();
}
async function bill(no: string, key?: string) {
  const page = await (await api(`/v1/purchase/bills?search=${encodeURIComponent(no)}`, { key })).json();
  return page.entities.find((d: any) => d.no === no);
}
const payment = (overrides: Record<string, unknown> = {}) => ({
  account_number: '2400123456/2010',
  amount: -298,
  currency: 'CZK',
  date_transaction: '2026-03-30',
  description: 'Payment to ACME',
  partner_name: 'ACME Supplies s.r.o.',
  ...overrides,
});

describe('bank transactions paying purchase documents', () => {
  it('a payment of 298.00 turns a bill of 298.00 paid with amount_due 0 within seconds', async () => {
    const b = await newBill();
    await new Promise((r) => setTimeout(r, 20));
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const res = await post('/v1/finance/bank/transactions', payment({ statement_id: 1, order: 1, paid_record: { type: 'purchase_bill', id: b.id } }));
    expect(res.status).toBe(200);
    const bt = await res.json();
    expect(bt).toMatchObject({
      amount: -298,
      currency: 'CZK',
      statement_id: 1,
      order: 1,
      match_status: 'matched',
      matched_document: { type: 'purchase_bill', id: b.id, no: b.no, amount: 298, currency: 'CZK' },
      paid_record: { type: 'purchase_bill', id: b.id, no: b.no, contact: { id: 501, business_name: 'ACME Supplies s.r.o.' } },
    });
    await eventually(async () => (await bill(b.no))?.payment_status === 'paid', 5000);
    expect(await bill(b.no)).toMatchObject({ amount_paid: 298, amount_due: 0, payment_status: 'paid' });
    // created before `since`, paid after it: a sync since then reads it again
    expect((await (await api(`/v1/purchase/bills?updated_since=${encodeURIComponent(since)}`)).json()).entities.map((d: any) => d.id)).toEqual([b.id]);

    const recorded = seen.find((e) => e.subject === 'finance.bank_transaction.recorded' && e.envelope.data.id === bt.id)!;
    expect(recorded.envelope.data).toEqual(bt);
    expect(() => parseEventData('finance.bank_transaction.recorded', recorded.envelope.data)).not.toThrow();
    // the organisation is the subject's last token, so subscribers and permissions can select it
    expect(recorded.published).toBe(`finance.bank_transaction.recorded.${orgId}`);
    const matched = seen.find((e) => e.subject === 'finance.payment.matched' && e.envelope.data.payment_id === bt.id)!;
    expect(matched.published).toBe(`finance.payment.matched.${orgId}`);
    // written together at the request's commit, in the order they were announced
    expect(seen.indexOf(recorded)).toBeLessThan(seen.indexOf(matched));
    expect(matched.envelope).toMatchObject({
      orgid: String(orgId),
      data: { source: 'bank_transaction', document: { type: 'purchase_bill', id: b.id, no: b.no }, amount: 298, currency: 'CZK', date: '2026-03-30' },
    });
    expect(() => parseEventData('finance.payment.matched', matched.envelope.data)).not.toThrow();
  });

  it('a recorded transaction, its events and its audit record are written by one transaction: none of them without the others', async () => {
    const b = await newBill();
    const res = await post('/v1/finance/bank/transactions', payment({ statement_id: 1, order: 77, paid_record: { type: 'purchase_bill', id: b.id } }));
    expect(res.status, await res.clone().text()).toBe(200);
    const bt = await res.json();
    const em = stack.services.finance!.deps.orm.em.fork();
    // now() is the transaction's start, to the microsecond: rows stamped with it by their defaults
    // are of one transaction (xmin would not do: the relay and the chainer update these rows after)
    const events = await sqlRows<{ at: string; type: string }>(em, 'select created_at::text as at, type from kit_outbox where resource = ? order by id', [String(bt.id)]);
    const [record] = await sqlRows<{ at: string; resource_id: string; after: { id: number; amount: number } }>(
      em,
      "select recorded_at::text as at, resource_id, after from kit_audit_events where operation = 'recordBankTransaction' and resource_id = ?",
      [String(bt.id)],
    );
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining([expect.stringContaining('bank_transaction.recorded')]));
    // the events went in the write's own statement (decision 123); the record of the write, with
    // the answer as the state after it, with them (decision 255)
    for (const e of events) expect(e.at).toBe(events[0].at);
    expect(record).toMatchObject({ at: events[0].at, resource_id: String(bt.id), after: { id: bt.id, amount: -298 } });
    // masked as every record is: the account is personal data
    expect(record.after).toMatchObject({ account_number: '***', statement_id: 1, order: 77, match_status: 'matched' });
  });

  it('paying 100.00 of it turns it partially_paid', async () => {
    const b = await newBill();
    await post('/v1/finance/bank/transactions', payment({ amount: -100, statement_id: 2, order: 1, paid_record: { type: 'purchase_bill', no: b.no } }));
    await eventually(async () => (await bill(b.no))?.payment_status === 'partially_paid');
    expect(await bill(b.no)).toMatchObject({ amount_paid: 100, amount_due: 198 });
  });

  it('recording the same bank transaction twice changes nothing twice: 409 and amount_paid unchanged', async () => {
    const b = await newBill();
    const line = payment({ amount: -100, statement_id: 3, order: 7, paid_record: { type: 'purchase_bill', id: b.id } });
    expect((await post('/v1/finance/bank/transactions', line)).status).toBe(200);
    await eventually(async () => (await bill(b.no))?.amount_paid === 100);
    await expectProblem(await post('/v1/finance/bank/transactions', line), 409, 'duplicate_bank_transaction');
    await expectProblem(await post('/v1/finance/bank/transactions', { ...line, amount: -5 }), 409, 'duplicate_bank_transaction');
    // The same line number on another statement is another transaction.
    expect((await post('/v1/finance/bank/transactions', { ...line, statement_id: 4, paid_record: null })).status).toBe(200);
    // The bank's own reference is unique per account too, whatever line it comes on.
    const referenced = { ...line, statement_id: 5, order: 1, bank_reference: 'REF-DUP-7', paid_record: null };
    expect((await post('/v1/finance/bank/transactions', referenced)).status).toBe(200);
    await expectProblem(await post('/v1/finance/bank/transactions', { ...referenced, statement_id: 6 }), 409, 'duplicate_bank_transaction');
    await expectProblem(await post('/v1/finance/bank/transactions', { ...referenced, statement_id: null, order: null }), 409, 'duplicate_bank_transaction');
    expect((await post('/v1/finance/bank/transactions', { ...referenced, statement_id: 6, account_number: '1111111111/0100' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(await bill(b.no)).toMatchObject({ amount_paid: 100, amount_due: 198, payment_status: 'partially_paid' });
    const rows = (await stack.services.finance!.deps.orm.em
      .getConnection()
      .execute('select count(*)::int as n from bank_transactions where statement_id = 3 and line_order = 7')) as any[];
    expect(rows[0].n).toBe(1);
  });

  it('money in from a vendor pays a vendor credit', async () => {
    const vc = await (await post('/v1/purchase/vendor-credits', vendorCreditBody())).json();
    const bt = await (await post('/v1/finance/bank/transactions', payment({ amount: 1210, paid_record: { type: 'purchase_vendor_credit', id: vc.id } }))).json();
    expect(bt.matched_document).toMatchObject({ amount: 1210 });
    await eventually(async () => {
      const page = await (await api(`/v1/purchase/vendor-credits?search=${vc.no}`)).json();
      return page.entities[0]?.payment_status === 'paid';
    });
  });

  it('an unknown document, or another organisation’s, is recorded unmatched and never applied', async () => {
    const other = await secondOrganisation(stack);
    const foreign = await newBill({ items: [{ qty: 1, rate: 10, taxes: [VAT21] }] }, other.key);
    const unknown = await (await post('/v1/finance/bank/transactions', payment({ paid_record: { type: 'purchase_bill', id: 987654 } }))).json();
    expect(unknown).toMatchObject({ match_status: 'unmatched', matched_document: null, paid_record: { type: 'purchase_bill', id: 987654 } });
    const res = await post('/v1/finance/bank/transactions', payment({ amount: -12.1, paid_record: { type: 'purchase_bill', id: foreign.id } }));
    expect(res.status).toBe(200);
    const cross = await res.json();
    expect(cross.match_status).toBe('unmatched');
    await new Promise((r) => setTimeout(r, 500));
    expect(await bill(foreign.no, other.key)).toMatchObject({ amount_paid: 0, payment_status: 'unpaid' });
    expect(seen.some((e) => e.subject === 'finance.payment.matched' && [unknown.id, cross.id].includes(e.envelope.data.payment_id))).toBe(false);
    const recorded = seen.find((e) => e.subject === 'finance.bank_transaction.recorded' && e.envelope.data.id === cross.id);
    expect(recorded?.envelope.data.match_status).toBe('unmatched');
    // The other organisation does not see this organisation's transactions.
    const theirs = await (await api('/v1/finance/bank/transactions', { key: other.key })).json();
    expect(theirs.total).toBe(0);
  });

  it('a payment in another currency than the document is unmatched unless payment_amount gives the document amount', async () => {
    const b = await newBill({ items: [{ qty: 1, rate: 100 }] });
    // no rate for EUR: the CZK bill cannot give one, so the payment is refused
    await expectProblem(await post('/v1/finance/bank/transactions', payment({ amount: -4, currency: 'EUR', paid_record: { type: 'purchase_bill', id: b.id } })), 422, 'fx_rate_required');
    const eur = await (await post('/v1/finance/bank/transactions', payment({ amount: -4, currency: 'EUR', fx_rate: 25, paid_record: { type: 'purchase_bill', id: b.id } }))).json();
    expect(eur).toMatchObject({ match_status: 'unmatched', amount_leg: -100, settlement_amount_leg: null });
    const converted = await (
      await post('/v1/finance/bank/transactions', payment({ amount: -4, currency: 'EUR', payment_amount: -100, paid_record: { type: 'purchase_bill', id: b.id } }))
    ).json();
    // payment_amount in the legal currency (the bill's) is the payment's legal value
    expect(converted).toMatchObject({
      match_status: 'matched',
      matched_document: { amount: 100, currency: 'CZK' },
      fx_rate: 25,
      fx_rate_source: 'payment_amount',
      amount_leg: -100,
      settlement_amount_leg: -100,
    });
    await eventually(async () => (await bill(b.no))?.payment_status === 'paid');
  });

  it('replays a POST with the same Idempotency-Key instead of recording it twice', async () => {
    const b = await newBill();
    const send = () =>
      api('/v1/finance/bank/transactions', {
        method: 'POST',
        headers: { 'idempotency-key': `bt-${b.id}` },
        json: payment({ amount: -10, paid_record: { type: 'purchase_bill', id: b.id } }),
      });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    await eventually(async () => (await bill(b.no))?.amount_paid === 10);
    await new Promise((r) => setTimeout(r, 300));
    expect((await bill(b.no)).amount_paid).toBe(10);
  });

  it('a transaction without a paid record is recorded against its gl_account, match_status none', async () => {
    const res = await post('/v1/finance/bank/transactions', payment({ amount: -25.5, description: 'Account fee', gl_account: { number: '568', name: 'Bank fees' } }));
    expect(await res.json()).toMatchObject({ amount: -25.5, match_status: 'none', gl_account: { number: '568' }, paid_record: null });
  });

  it('validates the body: amount required and non-zero, currency, paid_record type', async () => {
    const p1 = await expectProblem(await post('/v1/finance/bank/transactions', { currency: 'CZK', date_transaction: '2026-03-30' }), 400);
    expect(p1.errors!.map((e) => e.path)).toContain('amount');
    const p2 = await expectProblem(await post('/v1/finance/bank/transactions', payment({ amount: 0, currency: 'czk' })), 400);
    expect(p2.errors!.map((e) => e.path)).toEqual(expect.arrayContaining(['amount', 'currency']));
    const p3 = await expectProblem(await post('/v1/finance/bank/transactions', payment({ paid_record: { id: 1 } })), 400);
    expect(p3.errors!.map((e) => e.path)).toContain('paid_record.type');
  });

  it('lists transactions with search, sort, date range and paging', async () => {
    const page = await (await api('/v1/finance/bank/transactions?search=account%20fee')).json();
    expect(page.entities.map((t: any) => t.description)).toEqual(['Account fee']);
    const sorted = await (await api('/v1/finance/bank/transactions?sort=-amount&take=1')).json();
    expect(sorted.entities[0].amount).toBe(1210);
    expect(sorted.take).toBe(1);
    const none = await (await api('/v1/finance/bank/transactions?date_transaction=[2027-01-01;]')).json();
    expect(none.total).toBe(0);
    await expectProblem(await api('/v1/finance/bank/transactions?date_transaction=[2027-13-01;]'), 400);
  });

  it("a day's or a month's transactions are found by an index, not by reading every transaction", async () => {
    const em = stack.services.finance!.deps.orm.em.fork();
    const plan = await em.transactional(async (tem) => {
      await sqlRows(tem, 'set local enable_seqscan = off'); // priced as on a large table
      return sqlRows<{ 'QUERY PLAN': string }>(tem, "explain select count(*) from bank_transactions where org_id = 1 and date_transaction between '2026-01-01' and '2026-01-31'");
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Only Scan using bank_transactions_dated/);
  });
});

describe('the payment saga over the real NATS', () => {
  it('a redelivered finance.payment.matched changes nothing, also after the purchase consumer restarts', async () => {
    const b = await newBill();
    const bt = await (await post('/v1/finance/bank/transactions', payment({ amount: -50, paid_record: { type: 'purchase_bill', id: b.id } }))).json();
    await eventually(async () => (await bill(b.no))?.amount_paid === 50);
    const matched = seen.find((e) => e.subject === 'finance.payment.matched' && e.envelope.data.payment_id === bt.id)!;
    const js = jetstream(nc);
    const subject = `${stack.env.NATS_SUBJECT_PREFIX}${matched.published}`;
    // Redelivery: the very same event published again (beyond the dedup window it reaches the consumer).
    await js.publish(subject, matched.raw);
    await stack.restartService('purchase');
    await js.publish(subject, matched.raw);
    // A later payment proves the consumer has processed everything before it.
    await post('/v1/finance/bank/transactions', payment({ amount: -48, paid_record: { type: 'purchase_bill', id: b.id } }));
    await eventually(async () => (await bill(b.no))?.amount_paid === 98);
    await new Promise((r) => setTimeout(r, 300));
    expect(await bill(b.no)).toMatchObject({ amount_paid: 98, amount_due: 200, payment_status: 'partially_paid' });
  });

  it('answers 503 and writes nothing while the document owner cannot be asked', async () => {
    const b = await newBill();
    const count = async () =>
      ((await stack.services.finance!.deps.orm.em.getConnection().execute('select count(*)::int as n from bank_transactions')) as any[])[0].n;
    const before = await count();
    await stack.stopService('purchase');
    try {
      const problem = await expectProblem(
        await post('/v1/finance/bank/transactions', payment({ statement_id: 9, order: 1, paid_record: { type: 'purchase_bill', id: b.id } })),
        503,
        'service_unavailable',
      );
      expect(problem.code).toBe('service_unavailable');
      expect(await count()).toBe(before);
    } finally {
      await stack.restartService('purchase');
    }
    // Once the owner is back, the same statement line is accepted (it was never written).
    const res = await post('/v1/finance/bank/transactions', payment({ statement_id: 9, order: 1, paid_record: { type: 'purchase_bill', id: b.id } }));
    expect(res.status).toBe(200);
    await eventually(async () => (await bill(b.no))?.payment_status === 'paid');
  });
});
