import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceSchema, creditNoteSchema } from '@ledgerline/contracts';
import { buildEnvelope, requestReply } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { CUSTOMER, VAT21, expectProblem, invoiceBody, publishPaymentMatched, readEvents, salesBus } from './helpers.js';
import { apiOf } from './helpers.js';

let stack: Stack;
const api = apiOf(() => stack);
let orgA: number;
let orgB: { id: number; key: string };
beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
  orgA = (await (await api('/v1/settings/organisation')).json()).id;
  await api('/v1/settings/organisation', { method: 'PUT', json: { name: 'Alpha a.s.', vat_no: 'CZ999', address: { city: 'Brno', country: 'CZ' } } });
  const res = await api('/v1/admin/organisations', {
    method: 'POST',
    key: stack.operatorToken,
    json: { name: 'Beta s.r.o.', country: 'SK', legal_currency: 'EUR' },
  });
  expect(res.status).toBe(200);
  const created = await res.json();
  orgB = { id: created.organisation.id, key: created.admin_key.key };
});
afterAll(async () => {
  await stack?.close();
});

const postInvoice = (json: unknown, init: { key?: string; headers?: Record<string, string> } = {}) =>
  api('/v1/sales/invoices', { method: 'POST', json, ...init });

describe('events through the outbox', () => {
  it('one sales.invoice.posted per invoice, also when the request is retried with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'retry-me-1' };
    const first = await postInvoice(invoiceBody({ notes: 'idempotent' }), { headers });
    expect(first.status).toBe(200);
    const body = await first.text();
    const replay = await postInvoice(invoiceBody({ notes: 'idempotent' }), { headers });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(body);
    await expectProblem(await postInvoice(invoiceBody({ notes: 'other body' }), { headers }), 422, 'idempotency_key_reused');
    const inv = JSON.parse(body);

    const events = await eventually(async () => {
      const evs = (await readEvents(stack, 'SALES', 'sales.invoice.posted')).filter((e) => e.subject === String(inv.id));
      return evs.length ? evs : null;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect((await readEvents(stack, 'SALES', 'sales.invoice.posted')).filter((e) => e.subject === String(inv.id))).toHaveLength(1);
    const ev = events[0];
    expect(ev).toMatchObject({ specversion: '1.0', type: 'com.ledgerline.sales.invoice.posted.v1', orgid: String(orgA) });
    expect(ev.data).toEqual(inv);
    expect(invoiceSchema.safeParse(ev.data).success).toBe(true);
    expect(await (await api('/v1/sales/invoices?search=idempotent')).json()).toMatchObject({ total: 1 });
  });

  it('sales.credit_note.posted carries the stored credit note', async () => {
    const inv = await (await postInvoice(invoiceBody())).json();
    const cn = await (
      await api('/v1/sales/credit-notes', {
        method: 'POST',
        json: { customer: CUSTOMER, currency: 'CZK', date_issued: '2026-11-22', credited_doc_id: inv.id, items: [{ qty: 1, rate: 100, taxes: [VAT21] }] },
      })
    ).json();
    const evs = await eventually(async () => {
      const found = (await readEvents(stack, 'SALES', 'sales.credit_note.posted')).filter((e) => e.subject === String(cn.id));
      return found.length ? found : null;
    });
    expect(evs).toHaveLength(1);
    expect(evs[0].data).toEqual(cn);
    expect(creditNoteSchema.safeParse(evs[0].data).success).toBe(true);
  });
});

describe('organisation replica and tenancy', () => {
  it('the issuer snapshot and legal currency come from the replicated organisation profile', async () => {
    const inv = await eventually(async () => {
      const i = await (await postInvoice(invoiceBody())).json();
      return i.org?.name === 'Alpha a.s.' ? i : null;
    });
    expect(inv.org).toMatchObject({ name: 'Alpha a.s.', vat_no: 'CZ999', address: { city: 'Brno', country: 'CZ' } });
    // org B keeps its books in EUR: an EUR invoice needs no fx rate there, its legal figures are EUR
    const invB = await eventually(async () => {
      const res = await postInvoice(invoiceBody({ currency: 'EUR', items: [{ qty: 1, rate: 100, taxes: [VAT21] }] }), { key: orgB.key });
      return res.status === 200 ? res.json() : null;
    });
    expect(invB).toMatchObject({ currency_leg: 'EUR', fx_rate: 1, total_amount: 121, no: 'INV202600001', org: { name: 'Beta s.r.o.' } });
  });

  it("an invoice of organisation A is 404 for organisation B and absent from B's lists", async () => {
    const inv = await (await postInvoice(invoiceBody({ notes: 'tenant-a-only' }))).json();
    await expectProblem(await api(`/v1/sales/invoices/${inv.id}`, { key: orgB.key }), 404);
    expect((await (await api('/v1/sales/invoices?search=tenant-a-only', { key: orgB.key })).json()).total).toBe(0);
    expect((await api(`/v1/sales/invoices/${inv.id}`)).status).toBe(200);
    // B may not credit A's invoice
    const cn = await api('/v1/sales/credit-notes', {
      method: 'POST',
      key: orgB.key,
      json: { customer: CUSTOMER, currency: 'CZK', fx_rate: 0.04, date_issued: '2026-11-22', credited_doc_id: inv.id, items: [{ qty: 1, rate: 1 }] },
    });
    await expectProblem(cn, 422, 'credited_invoice_not_found');
  });
});

describe('payments (finance.payment.matched) and the lookup responder', () => {
  it('a 298.00 payment makes the invoice paid, a 100.00 one partially paid; a repeated event changes nothing', async () => {
    const a = await (await postInvoice(invoiceBody())).json();
    const b = await (await postInvoice(invoiceBody())).json();
    expect([a.total_amount, b.total_amount]).toEqual([298, 298]);

    const evA = await publishPaymentMatched(stack, orgA, { payment_id: 1, document: { type: 'sales_invoice', id: a.id, no: a.no }, amount: 298, currency: 'CZK' });
    const evB = await publishPaymentMatched(stack, orgA, { payment_id: 2, document: { type: 'sales_invoice', id: b.id, no: b.no }, amount: 100, currency: 'CZK' });
    await eventually(async () => (await (await api(`/v1/sales/invoices/${a.id}`)).json()).payment_status === 'paid');
    await eventually(async () => (await (await api(`/v1/sales/invoices/${b.id}`)).json()).payment_status === 'partially_paid');
    expect(await (await api(`/v1/sales/invoices/${a.id}`)).json()).toMatchObject({ amount_paid: 298, amount_due: 0, payment_status: 'paid' });
    expect(await (await api(`/v1/sales/invoices/${b.id}`)).json()).toMatchObject({ amount_paid: 100, amount_due: 198, payment_status: 'partially_paid' });

    // the same events again, past JetStream's de-duplication (no Nats-Msg-Id): the inbox absorbs them
    await publishPaymentMatched(stack, orgA, evB.data as any, { id: evB.id, msgId: false });
    await publishPaymentMatched(stack, orgA, evA.data as any, { id: evA.id, msgId: false });
    // a marker event after them proves they were consumed
    const c = await (await postInvoice(invoiceBody())).json();
    await publishPaymentMatched(stack, orgA, { payment_id: 3, document: { type: 'sales_invoice', id: c.id }, amount: 300, currency: 'CZK' });
    await eventually(async () => (await (await api(`/v1/sales/invoices/${c.id}`)).json()).payment_status === 'overpaid');
    expect(await (await api(`/v1/sales/invoices/${b.id}`)).json()).toMatchObject({ amount_paid: 100, amount_due: 198 });
    expect(await (await api(`/v1/sales/invoices/${a.id}`)).json()).toMatchObject({ amount_paid: 298, amount_due: 0 });

    // incremental sync sees the documents a payment touched
    const since = encodeURIComponent(new Date(Date.parse(a.created_at) + 1).toISOString());
    const touched = await (await api(`/v1/sales/invoices?updated_since=${since}&sort=updated_at`)).json();
    expect(touched.entities.map((e: any) => e.id)).toEqual(expect.arrayContaining([a.id, b.id, c.id]));

    // a reversal undoes it
    await publishPaymentMatched(stack, orgA, { payment_id: 2, document: { type: 'sales_invoice', id: b.id }, amount: -100, currency: 'CZK' });
    await eventually(async () => (await (await api(`/v1/sales/invoices/${b.id}`)).json()).payment_status === 'unpaid');
    const list = await (await api('/v1/sales/invoices?payment_status=paid&payment_status=overpaid')).json();
    expect(list.entities.map((e: any) => e.id).sort()).toEqual([a.id, c.id].sort());
  });

  it('applies a payment event with fields it does not know (a later release may add them) and passes over another version of it', async () => {
    const d = await (await postInvoice(invoiceBody())).json();
    // a later release's v2 (say its amount came to mean the legal currency's), published beside
    // v1: its data even fits v1's schema, but it is not for this reader, which would apply it twice
    const bus = salesBus(stack);
    const v2 = buildEnvelope('finance', {
      subject: 'finance.payment.matched',
      orgId: orgA,
      resource: '22',
      data: { payment_id: 22, source: 'bank_transaction', document: { type: 'sales_invoice', id: d.id }, amount: 298, currency: 'CZK', date: '2026-11-21' },
    });
    await bus.js.publish(bus.subject(`finance.payment.matched.${orgA}`), JSON.stringify({ ...v2, type: 'com.ledgerline.finance.payment.matched.v2' }), { msgID: v2.id });
    // v1 with fields a later release added
    const data = { payment_id: 21, document: { type: 'sales_invoice', id: d.id }, amount: 100, currency: 'CZK', bank_reference: 'VS 2026-21', channel: { kind: 'sepa' } };
    await publishPaymentMatched(stack, orgA, data as Parameters<typeof publishPaymentMatched>[2]);
    await eventually(async () => (await (await api(`/v1/sales/invoices/${d.id}`)).json()).payment_status === 'partially_paid');
    await new Promise((r) => setTimeout(r, 300));
    expect(await (await api(`/v1/sales/invoices/${d.id}`)).json()).toMatchObject({ amount_paid: 100, amount_due: 198 });
  });

  it("a payment naming another organisation's document never touches it", async () => {
    const a = await (await postInvoice(invoiceBody())).json();
    await publishPaymentMatched(stack, orgB.id, { payment_id: 10, document: { type: 'sales_invoice', id: a.id }, amount: 298, currency: 'CZK' });
    const marker = await (await postInvoice(invoiceBody())).json();
    await publishPaymentMatched(stack, orgA, { payment_id: 11, document: { type: 'sales_invoice', id: marker.id }, amount: 1, currency: 'CZK' });
    await eventually(async () => (await (await api(`/v1/sales/invoices/${marker.id}`)).json()).amount_paid === 1);
    expect(await (await api(`/v1/sales/invoices/${a.id}`)).json()).toMatchObject({ amount_paid: 0, payment_status: 'unpaid' });
  });

  it('rpc.sales.document.lookup finds documents of the asking organisation only', async () => {
    const inv = await (await postInvoice(invoiceBody())).json();
    const bus = salesBus(stack);
    const found = await requestReply<any>(bus, 'rpc.sales.document.lookup', orgA, { type: 'sales_invoice', id: inv.id });
    expect(found).toEqual({
      found: true,
      type: 'sales_invoice',
      id: inv.id,
      no: inv.no,
      total_amount: 298,
      amount_due: 298,
      currency: 'CZK',
      contact: { id: CUSTOMER.id, business_name: CUSTOMER.business_name },
      fx_rate: 1,
      currency_coef: 1,
      total_amount_leg: 298,
    });
    expect(await requestReply<any>(bus, 'rpc.sales.document.lookup', orgA, { type: 'sales_invoice', no: inv.no })).toMatchObject({ found: true, id: inv.id });
    expect(await requestReply<any>(bus, 'rpc.sales.document.lookup', orgB.id, { type: 'sales_invoice', id: inv.id })).toMatchObject({ found: false, contact: null });
    expect(await requestReply<any>(bus, 'rpc.sales.document.lookup', orgA, { type: 'sales_credit_note', id: inv.id })).toMatchObject({ found: false });
  });
});
