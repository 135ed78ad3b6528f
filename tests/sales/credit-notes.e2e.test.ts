import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { startStack, type Stack } from '../support/stack.js';
import { CUSTOMER, VAT21, expectProblem, invoiceBody } from './helpers.js';
import { apiOf } from './helpers.js';
import { secondOrganisation } from '../finance/support.js';

let stack: Stack;
const api = apiOf(() => stack);
let invoice: any;
beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
  invoice = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
});
afterAll(async () => {
  await stack?.close();
});

const post = (json: unknown) => api('/v1/sales/credit-notes', { method: 'POST', json });
const creditNote = (over: Record<string, unknown> = {}) => ({
  customer: CUSTOMER,
  currency: 'CZK',
  date_issued: '2026-11-22',
  credited_doc_id: invoice.id,
  items: [{ title: 'Refund consulting', qty: 1, rate: 100, taxes: [VAT21] }],
  ...over,
});
const total = async () => (await (await api('/v1/sales/credit-notes')).json()).total;

describe('sales credit notes', () => {
  it('a credit note of 1 × 100 at 21 % against the invoice answers 121.00 and carries its number', async () => {
    expect(invoice.total_amount).toBe(298);
    const res = await post(creditNote({ credited_doc_no: 'ignored' }));
    expect(res.status).toBe(200);
    const cn = await res.json();
    expect(cn).toMatchObject({
      total_amount: 121,
      subtotal_amount: 100,
      amount_due: 121,
      payment_status: 'unpaid',
      credited_doc_id: invoice.id,
      credited_doc_no: invoice.no,
      no: 'CN202600001',
    });
    expect(cn.taxes[0]).toMatchObject({ tax_base: 100, tax_amount: 21 });
    expect(await (await api(`/v1/sales/credit-notes/${cn.id}`)).json()).toEqual(cn);
    // issuing it changes nothing on the invoice
    const inv = await (await api(`/v1/sales/invoices/${invoice.id}`)).json();
    expect(inv).toMatchObject({ amount_paid: 0, amount_due: 298, payment_status: 'unpaid' });
    // an invoice id is not a credit note id
    await expectProblem(await api(`/v1/sales/credit-notes/${invoice.id}`), 404);
    await expectProblem(await api(`/v1/sales/invoices/${cn.id}`), 404);
  });

  it('credit notes above the invoice total are 422 and write nothing', async () => {
    const before = await total();
    // 121 already credited; 2 × 100 at 21 % = 242 would make 363 > 298
    const body = await expectProblem(await post(creditNote({ items: [{ qty: 2, rate: 100, taxes: [VAT21] }] })), 422, 'credit_exceeds_invoice');
    expect(body.detail).toContain('177.00');
    expect(await total()).toBe(before);
    // exactly the rest is fine: 298 − 121 = 177
    const rest = await post(creditNote({ items: [{ qty: 1, rate: 177, taxes: [] }] }));
    expect(rest.status).toBe(200);
    await expectProblem(await post(creditNote({ items: [{ qty: 1, rate: 0.01, taxes: [] }] })), 422, 'credit_exceeds_invoice');
  });

  it('an unknown credited invoice, another customer or a wrong type is 422', async () => {
    const before = await total();
    const unknown = await expectProblem(await post(creditNote({ credited_doc_id: 987654 })), 422, 'credited_invoice_not_found');
    expect(unknown.errors![0].path).toBe('credited_doc_id');
    const other = await expectProblem(await post(creditNote({ customer: { id: 9, business_name: 'Other' } })), 422, 'customer_mismatch');
    expect(other.errors![0].path).toBe('customer');
    await expectProblem(await post(creditNote({ credited_doc_id: 'abc' })), 400, 'validation_error');
    expect(await total()).toBe(before);
  });

  it('a credit note without an invoice, explicit numbers and GET /v1/sales/credit-notes/check-no', async () => {
    const free = await (await post(creditNote({ credited_doc_id: null, no: 'CN-MANUAL-7' }))).json();
    expect(free).toMatchObject({ no: 'CN-MANUAL-7', credited_doc_id: null, total_amount: 121 });
    await expectProblem(await post(creditNote({ credited_doc_id: null, no: 'CN-MANUAL-7' })), 409, 'duplicate_number');
    // the same number on an invoice is a different document type
    expect((await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ no: 'CN-MANUAL-7' }) })).status).toBe(200);

    const check = async (qs: string) => (await api(`/v1/sales/credit-notes/check-no?${qs}`)).json();
    expect(await check('no=CN-MANUAL-7')).toEqual({ exists: true, ids: [free.id] });
    expect(await check(`no=CN-MANUAL-7&exclude_id=${free.id}`)).toEqual({ exists: false, ids: [] });
    expect(await check(`no=CN-MANUAL-7&exclude_id=1&exclude_id=${free.id}`)).toEqual({ exists: false, ids: [] });
    expect(await check('no=NOPE')).toEqual({ exists: false, ids: [] });
    await expectProblem(await api('/v1/sales/credit-notes/check-no?exclude_id=x'), 400, 'validation_error');
    // another organisation may use the same number; each sees only its own
    const other = await secondOrganisation(stack);
    const theirs = await (await api('/v1/sales/credit-notes', { method: 'POST', key: other.key, json: creditNote({ credited_doc_id: null, no: 'CN-MANUAL-7' }) })).json();
    expect(theirs.id).not.toBe(free.id);
    expect(await check('no=CN-MANUAL-7')).toEqual({ exists: true, ids: [free.id] });
    expect(await (await api('/v1/sales/credit-notes/check-no?no=CN-MANUAL-7', { key: other.key })).json()).toEqual({ exists: true, ids: [theirs.id] });
  });

  it('concurrent credit notes against one invoice never exceed its total', async () => {
    const inv = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json(); // 298.00
    // ten parallel credit notes of 121.00: only two fit (242 ≤ 298 < 363)
    const results = await Promise.all(Array.from({ length: 10 }, () => post(creditNote({ credited_doc_id: inv.id }))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 422, 422, 422, 422, 422, 422, 422, 422]);
    const nos = (await Promise.all(results.filter((r) => r.status === 200).map((r) => r.json()))).map((c: any) => c.no);
    expect(new Set(nos).size).toBe(2);
  });

  it('lists credit notes only', async () => {
    const list = await (await api('/v1/sales/credit-notes?sort=no')).json();
    expect(list.entities.every((e: any) => e.no.startsWith('CN'))).toBe(true);
    expect(list.total).toBe(5);
  });

  it('stores a large body and its event compressed with LZ4, and reads them back whole', async () => {
    // twelve lines make a body and an envelope well past the 2 KB where Postgres compresses them (decision 83: with LZ4)
    const items = Array.from({ length: 12 }, (_, i) => ({ title: `Returned part ${i + 1} ${'ř'.repeat(40)}`, qty: 1, rate: 10 + i, taxes: [VAT21] }));
    const res = await post(creditNote({ credited_doc_id: null, items }));
    expect(res.status).toBe(200);
    const cn = await res.json();
    const em = stack.services.sales!.deps.orm.em.fork();
    const [doc] = await sqlRows<{ method: string; bytes: number }>(em, 'select pg_column_compression(body) as method, octet_length(body::text) as bytes from sales_documents where id = ?', [cn.id]);
    expect(doc.bytes).toBeGreaterThan(4000);
    expect(doc.method).toBe('lz4');
    const [event] = await sqlRows<{ method: string; envelope: string }>(
      em,
      "select pg_column_compression(envelope) as method, envelope from kit_outbox where type like '%credit_note.posted%' order by id desc limit 1",
    );
    expect(event.method).toBe('lz4');
    expect(JSON.parse(event.envelope).data).toMatchObject({ id: cn.id, no: cn.no });
    for (const item of items) expect(event.envelope).toContain(item.title);
    expect((await (await api(`/v1/sales/credit-notes/${cn.id}`)).json()).items.map((i: any) => i.title)).toEqual(items.map((i) => i.title));
  });

  it('an invoice named by its number alone is the invoice: linked, its customer, currency and total checked; a number of none stays a reference', async () => {
    const inv = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json(); // 298.00
    const byNo = await post(creditNote({ credited_doc_id: null, credited_doc_no: inv.no }));
    expect(byNo.status, await byNo.clone().text()).toBe(200);
    expect(await byNo.json()).toMatchObject({ credited_doc_id: inv.id, credited_doc_no: inv.no, total_amount: 121 });
    // the credits by number count against the invoice's total as those by id do: 121 + 121 + 121 > 298
    expect((await post(creditNote({ credited_doc_id: inv.id }))).status).toBe(200);
    const before = await total();
    const over = await expectProblem(await post(creditNote({ credited_doc_id: null, credited_doc_no: ` ${inv.no} ` })), 422, 'credit_exceeds_invoice');
    expect(over.detail).toContain('56.00');
    await expectProblem(await post(creditNote({ credited_doc_id: null, credited_doc_no: inv.no, customer: { id: 9, business_name: 'Other' } })), 422, 'customer_mismatch');
    await expectProblem(await post(creditNote({ credited_doc_id: null, credited_doc_no: inv.no, currency: 'EUR', fx_rate: 25 })), 422, 'currency_mismatch');
    expect(await total()).toBe(before);
    // a number no invoice here has (one issued before the books moved here) is kept as the reference it is
    const outside = await (await post(creditNote({ credited_doc_id: null, credited_doc_no: 'FV-2019-0042' }))).json();
    expect(outside).toMatchObject({ credited_doc_id: null, credited_doc_no: 'FV-2019-0042', total_amount: 121 });
    // another organisation's invoice number is none of this one's
    const other = await secondOrganisation(stack);
    const theirs = await (await api('/v1/sales/credit-notes', { method: 'POST', key: other.key, json: creditNote({ credited_doc_id: null, credited_doc_no: inv.no }) })).json();
    expect(theirs).toMatchObject({ credited_doc_id: null, credited_doc_no: inv.no });
    // a number that is no text a document could carry is refused at the door, naming the field, and writes nothing
    const count = await total();
    for (const bad of [`${inv.no}\u0000`, '\ud800', 'x'.repeat(65), 42, [inv.no], { no: inv.no }]) {
      const problem = await expectProblem(await post(creditNote({ credited_doc_id: null, credited_doc_no: bad })), 400);
      expect(problem.errors!.map((e) => e.path), JSON.stringify(bad)).toContain('credited_doc_no');
    }
    expect(await total()).toBe(count);
  });
});

