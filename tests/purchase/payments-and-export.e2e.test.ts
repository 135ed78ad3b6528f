import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { NATS_URL, eventually, startStack, type Stack } from '../support/stack.js';
import { apiOf, GLOBEX, VAT21, billBody, expectProblem, vendorCreditBody } from './fixtures.js';

let stack: Stack;
const api = apiOf(() => stack);
let nc: NatsConnection;
let orgId: number;
const docs: Record<string, any> = {};
let paymentSeq = 0;

beforeAll(async () => {
  stack = await startStack({ services: ['purchase'] });
  nc = await connect({ servers: NATS_URL });
  orgId = (await (await api('/v1/settings/organisation')).json()).id;
  const post = async (path: string, json: unknown) => (await api(path, { method: 'POST', json })).json();
  docs.paper = await post('/v1/purchase/bills', billBody({ description: 'Paper, "A4", 80 g' }));
  docs.globex = await post('/v1/purchase/bills', billBody({ vendor: GLOBEX, items: [{ qty: 1, rate: 100, taxes: [VAT21] }] }));
  docs.credit = await post('/v1/purchase/vendor-credits', vendorCreditBody());
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

/** Publishes a finance.payment.matched event onto the real stream, the way finance's outbox relay does. */
async function publishMatched(id: string, document: { type: string; id: number; no?: string }, amount: number, org = orgId) {
  const envelope = {
    specversion: '1.0',
    id,
    source: '/ledgerline/finance',
    type: 'com.ledgerline.finance.payment.matched.v1',
    subject: String(document.id),
    time: new Date().toISOString(),
    datacontenttype: 'application/json',
    orgid: String(org),
    data: { payment_id: ++paymentSeq, source: 'bank_transaction', document, amount, currency: 'CZK', date: '2026-03-30' },
  };
  await jetstream(nc).publish(`${stack.env.NATS_SUBJECT_PREFIX}finance.payment.matched.${org}`, JSON.stringify(envelope));
}

async function bill(no: string) {
  const page = await (await api(`/v1/purchase/bills?search=${encodeURIComponent(no)}`)).json();
  return page.entities.find((d: any) => d.no === no);
}

describe('finance.payment.matched consumer', () => {
  it('applies a payment once, however often it is delivered, across a consumer restart', async () => {
    const ref = { type: 'purchase_bill', id: docs.paper.id, no: docs.paper.no };
    const first = randomUUID();
    await publishMatched(first, ref, 100);
    await eventually(async () => (await bill(docs.paper.no))?.payment_status === 'partially_paid');
    expect(await bill(docs.paper.no)).toMatchObject({ amount_paid: 100, amount_due: 198, payment_status: 'partially_paid' });

    // The same event again (a redelivery after the 2-minute dedup window would look like this).
    await publishMatched(first, ref, 100);
    await stack.restartService('purchase');
    await publishMatched(first, ref, 100);
    // A distinct payment settles the rest; it is processed after the repeats, so they are done by then.
    await publishMatched(randomUUID(), ref, 198);
    await eventually(async () => (await bill(docs.paper.no))?.payment_status === 'paid');
    expect(await bill(docs.paper.no)).toMatchObject({ amount_paid: 298, amount_due: 0, payment_status: 'paid' });

    const rows = (await stack.services.purchase!.deps.orm.em
      .getConnection()
      .execute('select amount from payment_applications where document_id = ? order by id', [docs.paper.id])) as any[];
    expect(rows.map((r) => r.amount)).toEqual(['100.0000', '198.0000']);
  });

  it('reverses with a negative amount, and ignores another organisation and sales documents', async () => {
    const ref = { type: 'purchase_bill', id: docs.globex.id, no: docs.globex.no };
    await publishMatched(randomUUID(), ref, 121, orgId + 1000); // not this tenant's bill
    await publishMatched(randomUUID(), { type: 'sales_invoice', id: docs.globex.id }, 121); // not a purchase document
    await publishMatched(randomUUID(), ref, 150);
    await eventually(async () => (await bill(docs.globex.no))?.payment_status === 'overpaid');
    expect(await bill(docs.globex.no)).toMatchObject({ amount_paid: 150, amount_due: -29 });
    await publishMatched(randomUUID(), ref, -150);
    await eventually(async () => (await bill(docs.globex.no))?.payment_status === 'unpaid');
    expect(await bill(docs.globex.no)).toMatchObject({ amount_paid: 0, amount_due: 121 });
  });
});

describe('inventory-in export', () => {
  it('returns bills and vendor credits as one paged json list', async () => {
    const res = await api('/v1/inventory/in/export/json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toMatchObject({ total: 3, from: 0, take: 100, aggregations: [] });
    expect(body.entities.map((e: any) => e.document_type)).toEqual(['purchase_bill', 'purchase_bill', 'purchase_vendor_credit']);
    expect(body.entities[2]).toEqual({
      document_type: 'purchase_vendor_credit',
      id: docs.credit.id,
      no: docs.credit.no,
      vendor_doc_no: 'ACME-CR-7',
      vendor_name: 'ACME Supplies s.r.o.',
      vendor_vat_no: 'CZ12345678',
      date_issued: '2026-03-20',
      date_taxable: null,
      date_due: null,
      currency: 'CZK',
      subtotal_amount: 1000,
      tax_amount: 210,
      total_amount: 1210,
      amount_paid: 0,
      amount_due: 1210,
      payment_status: 'unpaid',
    });
  });

  it('filters by payment_status (repeatable), searches, sorts and pages', async () => {
    const q = async (qs: string) => (await (await api(`/v1/inventory/in/export/json?${qs}`)).json()) as any;
    expect((await q('payment_status=paid')).entities.map((e: any) => e.id)).toEqual([docs.paper.id]);
    expect((await q('payment_status=paid&payment_status=unpaid')).total).toBe(3);
    expect((await q('payment_status=overpaid')).total).toBe(0);
    expect((await q('search=globex')).entities.map((e: any) => e.id)).toEqual([docs.globex.id]);
    expect((await q('search=acme-cr')).entities.map((e: any) => e.id)).toEqual([docs.credit.id]);
    expect((await q('sort=-total_amount')).entities.map((e: any) => e.total_amount)).toEqual([1210, 298, 121]);
    const page2 = await q('sort=id&from=1&take=1');
    expect(page2).toMatchObject({ total: 3, from: 1, take: 1 });
    expect(page2.entities.map((e: any) => e.id)).toEqual([docs.globex.id]);
    await expectProblem(await api('/v1/inventory/in/export/json?payment_status=lost'), 400, 'validation_error');
    await expectProblem(await api('/v1/inventory/in/export/json?sort=weight'), 400, 'validation_error');
  });

  it('writes csv with a header row and one row per document, with the same filters', async () => {
    const res = await api('/v1/inventory/in/export/csv?sort=id', { headers: { accept: 'text/csv' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'document_type,id,no,vendor_doc_no,vendor_name,vendor_vat_no,date_issued,date_taxable,date_due,currency,subtotal_amount,tax_amount,total_amount,amount_paid,amount_due,payment_status',
    );
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe(
      `purchase_bill,${docs.paper.id},${docs.paper.no},ACME-2026-0042,ACME Supplies s.r.o.,CZ12345678,2026-03-15,,2026-03-29,CZK,250.00,48.00,298.00,298.00,0.00,paid`,
    );
    const unpaid = (await (await api('/v1/inventory/in/export/csv?payment_status=unpaid&search=acme-cr')).text()).trimEnd().split('\r\n');
    expect(unpaid).toHaveLength(2);
    expect(unpaid[1]).toMatch(/^purchase_vendor_credit,/);
  });

  it('refuses an unknown format with 400', async () => {
    const problem = await expectProblem(await api('/v1/inventory/in/export/xml'), 400, 'validation_error');
    expect(problem.errors![0].path).toBe('format');
  });
});
