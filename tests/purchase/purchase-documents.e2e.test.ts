import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import { positional, requestReply } from '@ledgerline/service-kit';
import { creditedDocumentStatement } from '@ledgerline/posted-documents';
import { CREDITED_BILL } from '../../apps/purchase/src/vendor-credits/vendor-credit-kind.js';
import { parseEventData, splitTenantSubject } from '@ledgerline/contracts';
import { DATABASE_URL, NATS_URL, eventually, startStack, type Stack } from '../support/stack.js';
import { rowCopies } from '../support/bulk-copy.js';
import { apiOf, ACME, GLOBEX, VAT21, billBody, expectProblem, vendorCreditBody } from './fixtures.js';

let stack: Stack;
const api = apiOf(() => stack);
let nc: NatsConnection;
let orgId: number;
const seen: Array<{ subject: string; envelope: any }> = [];

beforeAll(async () => {
  stack = await startStack({ services: ['purchase'] });
  nc = await connect({ servers: NATS_URL });
  const prefix = stack.env.NATS_SUBJECT_PREFIX;
  const sub = nc.subscribe(`${prefix}purchase.>`);
  (async () => {
    for await (const m of sub) {
      const published = m.subject.slice(prefix.length);
      seen.push({ subject: splitTenantSubject(published)?.subject ?? published, envelope: JSON.parse(m.string()) });
    }
  })();
  await nc.flush();
  orgId = (await (await api('/v1/settings/organisation')).json()).id;
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

const post = (path: string, json: unknown) => api(path, { method: 'POST', json });

describe('vendor credits', () => {
  it('a vendor credit of 1 × 1000 at 21 % answers total 1210.00, numbered from its own series, and is announced', async () => {
    const res = await post('/v1/purchase/vendor-credits', vendorCreditBody());
    expect(res.status).toBe(200);
    const vc = await res.json();
    expect(vc).toMatchObject({
      subtotal_amount: 1000,
      total_amount: 1210,
      amount_paid: 0,
      amount_due: 1210,
      payment_status: 'unpaid',
      currency: 'CZK',
      no: 'VC202600001',
      vendor_doc_no: 'ACME-CR-7',
      is_locked: false,
      precision: 2,
      taxes_included: false,
      type: { id: 1, name: 'purchase' },
      vendor: ACME,
      credited_doc_id: null,
    });
    expect(vc.taxes).toEqual([
      expect.objectContaining({ tax_code: 'S21', tax_rate: 21, tax_base: 1000, tax_amount: 210, tax_base_leg: 1000, tax_amount_leg: 210 }),
    ]);
    expect(vc.items[0]).toMatchObject({ qty: 1, rate: 1000, amount: 1000, tax_deduction_ratio: 1, net_deduction_ratio: 1, description: 'Returned goods' });
    expect(vc.items[0].taxes[0]).toMatchObject({ tax_base: 1000, tax_amount: 210 });
    expect(vc.uid).toMatch(/^[0-9a-f-]{36}$/);

    const ev = await eventually(async () => seen.find((e) => e.subject === 'purchase.vendor_credit.posted' && e.envelope.data.id === vc.id));
    expect(ev.envelope).toMatchObject({ specversion: '1.0', type: 'com.ledgerline.purchase.vendor_credit.posted.v1', orgid: String(orgId) });
    expect(ev.envelope.data).toEqual(vc);
    expect(() => parseEventData('purchase.vendor_credit.posted', ev.envelope.data)).not.toThrow();

    const rows = (await stack.services.purchase!.deps.orm.em
      .getConnection()
      .execute('select total_amount, subtotal_amount, tax_amount from purchase_documents where id = ?', [vc.id])) as any[];
    expect(rows[0]).toEqual({ total_amount: '1210.0000', subtotal_amount: '1000.0000', tax_amount: '210.0000' });
  });

  it('a bill and a vendor credit read back by id as they were answered; another kind or organisation is 404', async () => {
    const bill = await (await post('/v1/purchase/bills', billBody({ vendor_doc_no: 'READ-BACK-1' }))).json();
    const vc = await (await post('/v1/purchase/vendor-credits', vendorCreditBody({ vendor_doc_no: 'READ-BACK-CR-1', credited_doc_id: bill.id, items: [{ description: 'Returned', qty: 1, rate: 10, taxes: [VAT21] }] }))).json();
    const readBill = await api(`/v1/purchase/bills/${bill.id}`);
    expect(readBill.status).toBe(200);
    expect(await readBill.json()).toEqual(bill);
    expect(await (await api(`/v1/purchase/vendor-credits/${vc.id}`)).json()).toEqual(vc);
    await expectProblem(await api(`/v1/purchase/bills/${vc.id}`), 404, 'bill_not_found');
    await expectProblem(await api(`/v1/purchase/vendor-credits/${bill.id}`), 404, 'vendor_credit_not_found');
    await expectProblem(await api('/v1/purchase/bills/9007199254740991'), 404, 'bill_not_found');
    await expectProblem(await api('/v1/purchase/bills/0'), 400);
    const other = await (await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Readers elsewhere', country: 'CZ', legal_currency: 'CZK' } })).json();
    await expectProblem(await api(`/v1/purchase/bills/${bill.id}`, { key: other.admin_key.key }), 404, 'bill_not_found');
  });

  it('refuses a vendor credit without type with 400 naming type', async () => {
    const { type: _t, ...body } = vendorCreditBody();
    const problem = await expectProblem(await post('/v1/purchase/vendor-credits', body), 400, 'validation_error');
    expect(problem.errors!.map((e) => e.path)).toContain('type');
  });

  it('names each failing field of a broken body', async () => {
    const problem = await expectProblem(
      await post('/v1/purchase/vendor-credits', vendorCreditBody({ currency: 'XYZ1', items: [{ qty: 1, rate: 'ten' }] })),
      400,
    );
    expect(problem.errors!.map((e) => e.path)).toEqual(expect.arrayContaining(['currency', 'items[0].rate']));
  });

  it('credits a bill of the same vendor (credited_doc_no filled); another vendor or an unknown bill → 422', async () => {
    const bill = await (await post('/v1/purchase/bills', billBody({ items: [{ qty: 1, rate: 2000, taxes: [VAT21] }] }))).json();
    const res = await post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_id: bill.id }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ credited_doc_id: bill.id, credited_doc_no: bill.no, total_amount: 1210 });

    const other = await expectProblem(
      await post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_id: bill.id, vendor: GLOBEX })),
      422,
      'invalid_credited_document',
    );
    expect(other.errors![0].path).toBe('credited_doc_id');
    await expectProblem(await post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_id: 999999 })), 422, 'invalid_credited_document');
    await expectProblem(
      await post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_id: bill.id, items: [{ qty: 1, rate: 5000, taxes: [VAT21] }] })),
      422,
      'credit_exceeds_document',
    );
  });

  it("a vendor credit naming the vendor's invoice number alone credits the bill that recorded it; another vendor's number, or one of two bills, stays a reference", async () => {
    const bill = await (await post('/v1/purchase/bills', billBody({ vendor_doc_no: 'ACME-FV-815', items: [{ qty: 1, rate: 2000, taxes: [VAT21] }] }))).json(); // 2420.00
    const res = await post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_no: 'ACME-FV-815' }));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ credited_doc_id: bill.id, credited_doc_no: bill.no, total_amount: 1210 });
    // counted against the bill as the credits by id are: 1210 + 1210 fits 2420, a third does not
    expect((await post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_id: bill.id }))).status).toBe(200);
    await expectProblem(await post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_no: ' ACME-FV-815 ' })), 422, 'credit_exceeds_document');
    // the same number from another vendor is that vendor's invoice, not this bill
    const globex = await (await post('/v1/purchase/vendor-credits', vendorCreditBody({ vendor: GLOBEX, credited_doc_no: 'ACME-FV-815' }))).json();
    expect(globex).toMatchObject({ credited_doc_id: null, credited_doc_no: 'ACME-FV-815' });
    // two bills of the vendor recorded under one number: which one is meant cannot be told
    for (let i = 0; i < 2; i++) expect((await post('/v1/purchase/bills', billBody({ vendor_doc_no: 'ACME-TWICE' }))).status).toBe(200);
    const twice = await (await post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_no: 'ACME-TWICE' }))).json();
    expect(twice).toMatchObject({ credited_doc_id: null, credited_doc_no: 'ACME-TWICE' });
  });

  it('a vendor credit reads its bill and the bill’s earlier credits from a few pages, however many documents the organisation has', async () => {
    const bill = await (await post('/v1/purchase/bills', billBody({ items: [{ qty: 1, rate: 500, taxes: [VAT21] }] }))).json();
    const client = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}purchase`) });
    await client.connect();
    try {
      // 6 000 bills and as many vendor credits of an organisation of their own, copied from the
      // bill in short transactions (a long one would hold back other tests' index clean-up)
      const insert = await rowCopies(client, 'purchase_documents', {
        replaced: {
          id: '$2::bigint + g',
          org_id: '777',
          uid: 'gen_random_uuid()',
          kind: '$1::text',
          no: '$1::text || g',
          credited_doc_id: "case when $1::text = 'vendor_credit' then 5000000 + g end",
        },
        source: 'd.id = $3',
        series: '$4::int, $4::int + 499',
      });
      for (const [kind, base] of [['bill', 5_000_000], ['vendor_credit', 6_000_000]] as const) {
        for (let from = 1; from <= 6000; from += 500) await client.query(insert, [kind, base, bill.id, from]);
      }
      await client.query('analyze purchase_documents');
      const { text } = positional(creditedDocumentStatement(CREDITED_BILL));
      const [{ 'QUERY PLAN': [plan] }] = (await client.query(`explain (analyze, buffers, format json) ${text}`, ['vendor_credit', 777, 5_000_123, 'bill'])).rows;
      expect(plan.Plan['Actual Rows']).toBe(1);
      expect((plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0)).toBeLessThan(30);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('all credits of a bill together stay within its total, also when sent at once; the currency is the bill’s', async () => {
    const bill = await (await post('/v1/purchase/bills', billBody({ items: [{ qty: 1, rate: 2000, taxes: [VAT21] }] }))).json();
    expect(bill.total_amount).toBe(2420);
    const credit = (rate: number, extra: Record<string, unknown> = {}) =>
      post('/v1/purchase/vendor-credits', vendorCreditBody({ credited_doc_id: bill.id, items: [{ qty: 1, rate, taxes: [VAT21] }], ...extra }));
    expect((await credit(1000)).status).toBe(200); // 1210 of 2420
    const over = await expectProblem(await credit(1000.01), 422, 'credit_exceeds_document'); // 1210.01 > the 1210 left
    expect(over.detail).toContain('at most 1210.00 can still be credited');
    expect(over.errors![0].path).toBe('total_amount');
    await expectProblem(await credit(100, { currency: 'EUR', tax_fx_rate: 25 }), 422, 'currency_mismatch');

    // 1210 left: of five concurrent credits of 400 + 84 VAT = 484, exactly two fit (968); the bill's lock serialises them
    const answers = await Promise.all(Array.from({ length: 5 }, () => credit(400)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 422, 422, 422]);
    const list = await (await api(`/v1/purchase/vendor-credits?take=100`)).json();
    const ofBill = list.entities.filter((vc: { credited_doc_id: number | null }) => vc.credited_doc_id === bill.id);
    expect(ofBill.map((vc: { total_amount: number }) => vc.total_amount).sort()).toEqual([1210, 484, 484].sort());
  });
});

describe('strict=true on purchase documents', () => {
  it('a vendor credit whose sent total differs → 422 derived_figures_mismatch, nothing stored; a bill that agrees passes', async () => {
    const count = async () => (await (await api('/v1/purchase/vendor-credits?take=0')).json()).total;
    const before = await count();
    const res = await post('/v1/purchase/vendor-credits?strict=true', vendorCreditBody({ total_amount: 1200, items: [{ qty: 1, rate: 1000, amount: 1000, taxes: [{ ...VAT21, tax_amount: 210 }] }] }));
    const problem = await expectProblem(res, 422, 'derived_figures_mismatch');
    expect(problem.errors).toEqual([{ path: 'total_amount', message: 'sent 1200, computed 1210.00', code: 'figure_mismatch' }]);
    expect(await count()).toBe(before);
    const bill = await post('/v1/purchase/bills?strict=1', billBody({ subtotal_amount: 250, total_amount: 298 }));
    expect(bill.status).toBe(200);
  });
});

describe('vendor bills', () => {
  it('computes a bill of 2 × 100 at 21 % and 1 × 50 at 12 % to 298.00 and numbers bills gap-free', async () => {
    const a = await (await post('/v1/purchase/bills', billBody())).json();
    const b = await (await post('/v1/purchase/bills', billBody())).json();
    expect(a).toMatchObject({ subtotal_amount: 250, total_amount: 298, amount_due: 298, payment_status: 'unpaid', vendor_doc_no: 'ACME-2026-0042' });
    expect(a.taxes.map((t: any) => [t.tax_rate, t.tax_base, t.tax_amount])).toEqual([
      [21, 200, 42],
      [12, 50, 6],
    ]);
    expect(a.credited_doc_id).toBeUndefined();
    const n = (no: string) => Number(no.slice(-5));
    expect(a.no).toMatch(/^BILL2026\d{5}$/);
    expect(n(b.no)).toBe(n(a.no) + 1);
    const ev = await eventually(async () => seen.find((e) => e.subject === 'purchase.bill.posted' && e.envelope.data.id === b.id));
    expect(() => parseEventData('purchase.bill.posted', ev.envelope.data)).not.toThrow();
    // the answer is the event's view, its number in place, and what the list shows
    expect(ev.envelope.data).toEqual(b);
    const listed = (await (await api('/v1/purchase/bills?take=100&sort=-id')).json()).entities.find((e: { id: number }) => e.id === b.id);
    expect(listed).toEqual(b);
  });

  it('takes an explicit number and refuses it twice (409 duplicate_number)', async () => {
    const manual = await post('/v1/purchase/bills', billBody({ no: 'B-MANUAL-1' }));
    expect(manual.status).toBe(200);
    const bill = await manual.json();
    expect(bill.no).toBe('B-MANUAL-1');
    const ev = await eventually(async () => seen.find((e) => e.subject === 'purchase.bill.posted' && e.envelope.data.id === bill.id));
    expect(ev.envelope.data).toEqual(bill);
    await expectProblem(await post('/v1/purchase/bills', billBody({ no: 'B-MANUAL-1' })), 409, 'duplicate_number');
  });

  it('copy_from_id starts from the copied document, overridden by the body', async () => {
    const src = await (await post('/v1/purchase/bills', billBody({ description: 'Monthly paper', payment_reference: '778899' }))).json();
    const res = await post('/v1/purchase/bills', {
      type: { id: 1, name: 'purchase' },
      copy_from_id: src.id,
      date_issued: '2026-04-15',
      items: [{ description: 'Paper', qty: 3, rate: 100, taxes: [VAT21] }],
    });
    expect(res.status).toBe(200);
    const copy = await res.json();
    expect(copy).toMatchObject({
      copy_from_id: src.id,
      vendor: ACME,
      description: 'Monthly paper',
      payment_reference: '778899',
      date_issued: '2026-04-15',
      total_amount: 363,
    });
    expect(copy.no).not.toBe(src.no);
    await expectProblem(await post('/v1/purchase/bills', { type: { id: 1 }, copy_from_id: 987654 }), 422, 'copy_source_not_found');
    const noType = await expectProblem(await post('/v1/purchase/bills', { copy_from_id: src.id }), 400);
    expect(noType.errors!.map((e) => e.path)).toContain('type');
  });

  it('lists bills with paging, search and sort', async () => {
    const list = await (await api('/v1/purchase/bills?take=2&sort=-id')).json();
    expect(list.take).toBe(2);
    expect(list.entities).toHaveLength(2);
    expect(list.entities[0].id).toBeGreaterThan(list.entities[1].id);
    expect(list.total).toBeGreaterThanOrEqual(5);
    const found = await (await api('/v1/purchase/bills?search=b-manual')).json();
    expect(found.entities.map((d: any) => d.no)).toEqual(['B-MANUAL-1']);
    await expectProblem(await api('/v1/purchase/bills?sort=colour'), 400, 'validation_error');
    const vcs = await (await api('/v1/purchase/vendor-credits')).json();
    expect(vcs.entities.every((d: any) => d.no.startsWith('VC'))).toBe(true);
  });
});

describe('document lookup responder (rpc.purchase.document.lookup)', () => {
  it('answers a bill of the organisation by id or number, and not for another organisation', async () => {
    const bill = await (await post('/v1/purchase/bills', billBody({ vendor: GLOBEX }))).json();
    const bus = stack.services.purchase!.deps.bus;
    const byId = await requestReply<any>(bus, 'rpc.purchase.document.lookup', orgId, { type: 'purchase_bill', id: bill.id });
    expect(byId).toEqual({
      found: true,
      type: 'purchase_bill',
      id: bill.id,
      no: bill.no,
      total_amount: 298,
      amount_due: 298,
      currency: 'CZK',
      contact: { id: GLOBEX.id, business_name: GLOBEX.business_name },
      fx_rate: 1,
      currency_coef: 1,
      total_amount_leg: 298,
    });
    const byNo = await requestReply<any>(bus, 'rpc.purchase.document.lookup', orgId, { type: 'purchase_bill', no: bill.no });
    expect(byNo.id).toBe(bill.id);
    const wrongType = await requestReply<any>(bus, 'rpc.purchase.document.lookup', orgId, { type: 'purchase_vendor_credit', id: bill.id });
    expect(wrongType.found).toBe(false);
    const otherOrg = await requestReply<any>(bus, 'rpc.purchase.document.lookup', orgId + 1000, { type: 'purchase_bill', id: bill.id });
    expect(otherOrg).toMatchObject({ found: false, contact: null });
  });
});
