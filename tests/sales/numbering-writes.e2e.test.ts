import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditNoteSchema } from '@ledgerline/contracts';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { CUSTOMER, VAT12, VAT21, apiOf, expectProblem, invoiceBody, readEvents, untilAdmitted } from './helpers.js';

// The write path of sales documents: number, document row and event written by one statement
// under the series lock (decision 39). What users rely on: gap-free unique numbers, a
// number used by hand skipped, one event per document carrying exactly the stored document.

let stack: Stack;
const api = apiOf(() => stack);
beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
});
afterAll(async () => {
  await stack?.close();
});

const sql = async (query: string, params: unknown[] = []) =>
  (await stack.services.sales!.deps.orm.em.getConnection().execute(query, params, 'all')) as any[];
const post = (path: string, json: unknown, headers: Record<string, string> = {}) => api(path, { method: 'POST', json, headers });

function tenLines(over: Record<string, unknown> = {}) {
  return {
    customer: CUSTOMER,
    currency: 'CZK',
    date_issued: '2029-03-10',
    items: Array.from({ length: 10 }, (_, i) => ({
      title: `Line ${i + 1}`,
      qty: (i % 3) + 1,
      rate: 100 + i * 7.5,
      taxes: [i % 2 ? VAT12 : VAT21],
    })),
    ...over,
  };
}

describe('document writes', () => {
  it('a 10-line credit note: figures to the cent, the number in the answer, the stored row and its one event', async () => {
    const res = await post('/v1/sales/credit-notes', tenLines());
    expect(res.status).toBe(200);
    const cn = await res.json();
    // 21 % lines: 1×100 + 3×115 + 2×130 + 1×145 + 3×160 = 1330.00 → tax 279.30;
    // 12 % lines: 2×107.5 + 1×122.5 + 3×137.5 + 2×152.5 + 1×167.5 = 1222.50 → tax 146.70
    expect(cn.taxes.map((t: any) => [t.tax_rate, t.tax_base, t.tax_amount])).toEqual([
      [21, 1330, 279.3],
      [12, 1222.5, 146.7],
    ]);
    expect(cn).toMatchObject({ no: 'CN202900001', subtotal_amount: 2552.5, tax_amount: 426, total_amount: 2978.5, amount_due: 2978.5, payment_status: 'unpaid' });
    expect(await (await api(`/v1/sales/credit-notes/${cn.id}`)).json()).toEqual(cn);

    const [row] = await sql('select no, body, total_amount from sales_documents where id = ?', [cn.id]);
    expect(row.no).toBe('CN202900001');
    expect(row.body.no).toBe('CN202900001');
    expect(row.total_amount).toBe('2978.5000');

    const evs = await eventually(async () => {
      const found = (await readEvents(stack, 'SALES', 'sales.credit_note.posted')).filter((e) => e.subject === String(cn.id));
      return found.length ? found : null;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect((await readEvents(stack, 'SALES', 'sales.credit_note.posted')).filter((e) => e.subject === String(cn.id))).toHaveLength(1);
    expect(evs[0]).toMatchObject({ specversion: '1.0', type: 'com.ledgerline.sales.credit_note.posted.v1', source: '/ledgerline/sales' });
    expect(evs[0].data).toEqual(cn);
    expect(creditNoteSchema.safeParse(evs[0].data).success).toBe(true);
  });

  it('an overdue invoice: the event carries the answered view (overdue days), the row the stored body', async () => {
    const inv = await (await post('/v1/sales/invoices', invoiceBody({ date_issued: '2020-01-01', date_due: '2020-01-15' }))).json();
    expect(inv.overdue_days).toBeGreaterThan(365);
    const [row] = await sql('select body from sales_documents where id = ?', [inv.id]);
    expect(row.body).toMatchObject({ no: inv.no, overdue_days: 0, total_amount: 298 });
    const [out] = await sql(`select envelope from kit_outbox where subject = 'sales.invoice.posted' and envelope::jsonb->>'subject' = ?`, [String(inv.id)]);
    // stored as the text that is published, with the number in place
    expect(JSON.parse(out.envelope).data).toEqual(inv);
    expect(out.envelope).not.toContain('number-to-come');
  });

  it('a number used by hand is skipped; the series otherwise stays gap-free', async () => {
    const date = '2028-06-01';
    const manual = await post('/v1/sales/invoices', invoiceBody({ date_issued: date, no: 'INV202800002' }));
    expect(manual.status).toBe(200);
    const nos: string[] = [];
    for (let i = 0; i < 3; i++) nos.push((await (await post('/v1/sales/invoices', invoiceBody({ date_issued: date }))).json()).no);
    expect(nos).toEqual(['INV202800001', 'INV202800003', 'INV202800004']);
    const [counter] = await sql(
      `select c.last_value from number_series_counters c join number_series s on s.id = c.series_id
        where s.doc_type = 'sales_invoice' and s.is_default and c.period_key = '2028'`,
    );
    expect(Number(counter.last_value)).toBe(4);
  });

  it('a rejected document gives its number back', async () => {
    const date = '2030-02-02';
    const first = await (await post('/v1/sales/credit-notes', tenLines({ date_issued: date }))).json();
    expect(first.no).toBe('CN203000001');
    await expectProblem(await post('/v1/sales/credit-notes', tenLines({ date_issued: date, credited_doc_id: 999999 })), 422, 'credited_invoice_not_found');
    const next = await (await post('/v1/sales/credit-notes', tenLines({ date_issued: date }))).json();
    expect(next.no).toBe('CN203000002');
  });

  it('30 parallel credit notes, some with Idempotency-Keys and retried: distinct consecutive numbers, one event each', async () => {
    const date = '2031-07-07';
    // wider than the service's 16 at once: what a loaded machine sheds (503) is sent again, and takes no number
    const requests = Array.from({ length: 30 }, (_, i) =>
      untilAdmitted(() => post('/v1/sales/credit-notes', tenLines({ date_issued: date, notes: `parallel ${i}` }), i % 3 === 0 ? { 'idempotency-key': `par-${i}` } : {})),
    );
    const results = await Promise.all(requests);
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    const docs = await Promise.all(results.map((r) => r.json()));
    expect(docs.map((d) => d.no).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `CN2031${String(i + 1).padStart(5, '0')}`));
    expect(new Set(docs.map((d) => d.total_amount))).toEqual(new Set([2978.5]));

    // retries of the keyed ones replay the first answer and write nothing
    const replays = await Promise.all(
      [0, 3, 6].map((i) => untilAdmitted(() => post('/v1/sales/credit-notes', tenLines({ date_issued: date, notes: `parallel ${i}` }), { 'idempotency-key': `par-${i}` }))),
    );
    for (const r of replays) expect(r.headers.get('idempotent-replayed')).toBe('true');
    expect((await (await api(`/v1/sales/credit-notes?date_issued=${date}&take=100`)).json()).total).toBe(30);

    const ids = new Set(docs.map((d) => String(d.id)));
    const evs = await eventually(async () => {
      const found = (await readEvents(stack, 'SALES', 'sales.credit_note.posted')).filter((e) => ids.has(String(e.subject)));
      return found.length >= 30 ? found : null;
    });
    expect(evs).toHaveLength(30);
    const byId = new Map(docs.map((d) => [String(d.id), d]));
    for (const ev of evs) expect(ev.data).toEqual(byId.get(String(ev.subject)));
  });

  it('the same explicit number sent 5 times at once: one document, four 409 duplicate_number, one event', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => post('/v1/sales/credit-notes', tenLines({ no: 'CN-RACE-1' }))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) await expectProblem(r, 409, 'duplicate_number');
    const rows = await sql(`select id from sales_documents where no = 'CN-RACE-1'`);
    expect(rows).toHaveLength(1);
    const outbox = await sql(`select count(*)::int as n from kit_outbox where envelope::jsonb->>'subject' = ?`, [String(rows[0].id)]);
    expect(outbox[0].n).toBe(1);
    expect(await sql(`select count(*)::int as n from kit_outbox where envelope::jsonb->'data'->>'no' = 'CN-RACE-1'`)).toEqual([{ n: 1 }]);
  });

  it('a series mask with text after the counter and a counter wider than its mask', async () => {
    const [org] = await sql(`select org_id from sales_documents limit 1`);
    const [series] = await sql(
      `insert into number_series (org_id, doc_type, name, mask, is_default) values (?, 'sales_invoice', 'Branch', 'B{YY}{MM}-{##}/P', false) returning id`,
      [org.org_id],
    );
    const body = (over: Record<string, unknown> = {}) => invoiceBody({ date_issued: '2027-04-09', counter_id: series.id, ...over });
    expect((await (await post('/v1/sales/invoices', body())).json()).no).toBe('B2704-01/P');
    await sql(`update number_series_counters set last_value = 99 where series_id = ?`, [series.id]);
    const wide = await (await post('/v1/sales/invoices', body())).json();
    expect(wide).toMatchObject({ no: 'B2704-100/P', counter_id: series.id });
    // an explicit number with a series still names a series of ours
    await expectProblem(await post('/v1/sales/invoices', body({ counter_id: 987654, no: 'X-1' })), 422, 'unknown_counter');
  });
});
