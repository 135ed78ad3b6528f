import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { startStack, type Stack } from '../support/stack.js';
import { CUSTOMER, VAT12, VAT21, expectProblem, invoiceBody, untilAdmitted } from './helpers.js';
import { apiOf } from './helpers.js';

let stack: Stack;
const api = apiOf(() => stack);
beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
});
afterAll(async () => {
  await stack?.close();
});

async function post(path: string, json: unknown, headers: Record<string, string> = {}) {
  return api(path, { method: 'POST', json, headers });
}
async function total(path: string): Promise<number> {
  return (await (await api(path)).json()).total;
}

describe('sales invoices: arithmetic and shape', () => {
  it('2 × 100 at 21 % and 1 × 50 at 12 %: figures to the cent, default series number', async () => {
    const res = await post('/v1/sales/invoices', invoiceBody({ total_amount: 1, subtotal_amount: 5, amount_due: 0, payment_status: 'paid' }));
    expect(res.status).toBe(200);
    const inv = await res.json();
    expect(inv).toMatchObject({
      subtotal_amount: 250,
      total_amount: 298,
      amount_paid: 0,
      amount_due: 298,
      payment_status: 'unpaid',
      currency: 'CZK',
      precision: 2,
      taxes_included: false,
      is_locked: false,
      no: 'INV202600001',
      date_issued: '2026-11-20',
      customer: CUSTOMER,
    });
    expect(inv.taxes.map((t: any) => [t.tax_code, t.tax_rate, t.tax_base, t.tax_amount])).toEqual([
      ['S21', 21, 200, 42],
      ['S12', 12, 50, 6],
    ]);
    expect(inv.items[0]).toMatchObject({ qty: 2, rate: 100, amount: 200, rate_discounted: 100, unit: { code: 'h', name: 'hour' } });
    expect(inv.items[0].taxes[0]).toMatchObject({ tax_base: 200, tax_amount: 42, tax_base_leg: 200, currency_leg: 'CZK' });
    expect(inv.items[1].variant).toEqual({ id: 7, name: 'Hardcover' });
    expect(inv.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof inv.counter_id).toBe('number');

    const read = await (await api(`/v1/sales/invoices/${inv.id}`)).json();
    expect(read).toEqual(inv);
  });

  it('three lines of 0.07 at 21 %: tax rounded on the sum', async () => {
    const inv = await (await post('/v1/sales/invoices', invoiceBody({ items: [1, 2, 3].map(() => ({ qty: 1, rate: 0.07, taxes: [VAT21] })) }))).json();
    expect(inv.taxes).toHaveLength(1);
    expect(inv.taxes[0]).toMatchObject({ tax_base: 0.21, tax_amount: 0.04 });
    expect(inv.total_amount).toBe(0.25);
  });

  it('a 121.00 gross line with taxes_included: base 100.00, tax 21.00', async () => {
    const inv = await (await post('/v1/sales/invoices', invoiceBody({ taxes_included: true, items: [{ qty: 1, rate: 121, taxes: [VAT21] }] }))).json();
    expect(inv.taxes[0]).toMatchObject({ tax_base: 100, tax_amount: 21 });
    expect(inv).toMatchObject({ subtotal_amount: 100, total_amount: 121 });
  });

  it('a 100 EUR line at fx 25: legal-currency figures in CZK', async () => {
    const inv = await (await post('/v1/sales/invoices', invoiceBody({ currency: 'EUR', fx_rate: 25, items: [{ qty: 1, rate: 100, taxes: [VAT21] }] }))).json();
    expect(inv.taxes[0]).toMatchObject({ tax_base: 100, tax_amount: 21, tax_base_leg: 2500, tax_amount_leg: 525, currency_leg: 'CZK' });
    expect(inv).toMatchObject({ fx_rate: 25, currency_leg: 'CZK', total_amount_leg: 3025 });
  });

  it('shipping charges and document discounts', async () => {
    const inv = await (
      await post(
        '/v1/sales/invoices',
        invoiceBody({
          items: [{ qty: 1, rate: 100, taxes: [VAT21] }],
          shipping_charges: [{ title: 'Post', amount: 10, taxes: [VAT21] }],
          discounts: [{ title: '10 %', value: 10, value_type: 'percentage', allocation_method: 'each', target_type: 'line_item' }],
        }),
      )
    ).json();
    expect(inv.items[0]).toMatchObject({ discount_implicit: 10, amount: 90 });
    expect(inv.shipping_charges[0]).toMatchObject({ title: 'Post', amount: 10 });
    expect(inv.discounts[0]).toMatchObject({ title: '10 %', amount: 10, value: 10 });
    expect(inv.total_amount).toBe(121);
  });
});

describe('sales invoices: validation writes nothing', () => {
  it('wrong types, a 3-letter country, a bad currency and precision are named by path', async () => {
    const before = await total('/v1/sales/invoices');
    const body = await expectProblem(
      await post(
        '/v1/sales/invoices',
        invoiceBody({
          currency: 'XYZ',
          precision: 7,
          billing_address: { country: 'CZE' },
          items: [{ qty: 'two', rate: 100, taxes: [{ tax_rate: 21 }] }, { qty: 1, rate: 1e300 }],
        }),
      ),
      400,
      'validation_error',
    );
    const paths = body.errors!.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['currency', 'precision', 'billing_address.country', 'items[0].qty', 'items[1].rate']));
    await expectProblem(await post('/v1/sales/invoices', { ...invoiceBody(), items: [] }), 400, 'validation_error');
    // no fx_rate, and the organisation's exchange-rate table has no EUR rate: 422 naming the field
    const noRate = await expectProblem(await post('/v1/sales/invoices', invoiceBody({ currency: 'EUR' })), 422, 'fx_rate_required');
    expect(noRate.errors!.map((e) => e.path)).toEqual(['fx_rate']);
    expect(await total('/v1/sales/invoices')).toBe(before);
  });

  it('a due date before the issue date is 400 naming date_due, and uses no number; due on the day of issue is fine', async () => {
    const before = await total('/v1/sales/invoices');
    const refused = await expectProblem(await post('/v1/sales/invoices', invoiceBody({ date_issued: '2026-11-20', date_due: '2025-11-30' })), 400, 'validation_error');
    expect(refused.errors).toEqual([{ path: 'date_due', code: 'due_before_issue', message: 'is before date_issued (2026-11-20)' }]);
    const credit = await post('/v1/sales/credit-notes', invoiceBody({ date_issued: '2026-11-20', date_due: '2026-11-19' }));
    expect((await expectProblem(credit, 400, 'validation_error')).errors!.map((e) => e.path)).toEqual(['date_due']);
    expect(await total('/v1/sales/invoices')).toBe(before);
    const sameDay = await post('/v1/sales/invoices', invoiceBody({ date_issued: '2026-11-20', date_due: '2026-11-20' }));
    expect(sameDay.status).toBe(200);
    const last = await (await api('/v1/sales/invoices?sort=-id&take=1')).json();
    expect(Number((await sameDay.json()).no.slice(-5))).toBe(Number(last.entities[0].no.slice(-5)));
  });

  it('a duplicate explicit number is 409 duplicate_number', async () => {
    const ok = await post('/v1/sales/invoices', invoiceBody({ no: 'MANUAL-1' }));
    expect(ok.status).toBe(200);
    const before = await total('/v1/sales/invoices');
    await expectProblem(await post('/v1/sales/invoices', invoiceBody({ no: 'MANUAL-1' })), 409, 'duplicate_number');
    expect(await total('/v1/sales/invoices')).toBe(before);
  });

  it('an unknown counter_id is 422', async () => {
    await expectProblem(await post('/v1/sales/invoices', invoiceBody({ counter_id: 999999 })), 422, 'unknown_counter');
  });

  it('strict=true: sent figures that disagree → 422 naming each, nothing stored, no number used; agreeing ones pass', async () => {
    const before = await total('/v1/sales/invoices');
    const wrong = invoiceBody({
      subtotal_amount: 250,
      total_amount: 297.99,
      taxes: [{ tax_code: 'S21', tax_rate: 21, tax_base: 200, tax_amount: 42.01 }],
    });
    const body = await expectProblem(await post('/v1/sales/invoices?strict=true', wrong), 422, 'derived_figures_mismatch');
    expect(body.errors).toEqual([
      { path: 'total_amount', message: 'sent 297.99, computed 298.00', code: 'figure_mismatch' },
      { path: 'taxes[0].tax_amount', message: 'sent 42.01, computed 42.00', code: 'figure_mismatch' },
    ]);
    expect(await total('/v1/sales/invoices')).toBe(before);

    // without strict the same figures are ignored and the computed ones stored
    const lax = await (await post('/v1/sales/invoices', wrong)).json();
    expect(lax.total_amount).toBe(298);
    const ok = await post('/v1/sales/invoices?strict=true', invoiceBody({ subtotal_amount: 250, total_amount: 298, amount_due: 298, taxes: [{ tax_code: 'S12', tax_rate: 12, tax_base: 50, tax_amount: 6 }] }));
    expect(ok.status).toBe(200);
    const strictDoc = await ok.json();
    // gap-free: the refused request used no number
    expect(Number(strictDoc.no.slice(-5))).toBe(Number(lax.no.slice(-5)) + 1);
    await expectProblem(await post('/v1/sales/invoices?strict=maybe', invoiceBody()), 400, 'validation_error');
  });
});

describe('numbering', () => {
  it('50 parallel creations get 50 distinct consecutive numbers', async () => {
    const before = (await (await api('/v1/sales/invoices?sort=-no&take=1&search=INV2027')).json()).entities;
    expect(before).toHaveLength(0);
    // wider than the service's 16 at once: on a loaded machine some may be shed with 503 and
    // sent again; a shed request takes no number, so the numbers are still 1 to 50
    const results = await Promise.all(
      Array.from({ length: 50 }, () => untilAdmitted(() => post('/v1/sales/invoices', invoiceBody({ date_issued: '2027-01-05', items: [{ qty: 1, rate: 1, taxes: [VAT21] }] })))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    const nos = (await Promise.all(results.map((r) => r.json()))).map((i) => i.no).sort();
    expect(nos).toEqual(Array.from({ length: 50 }, (_, i) => `INV2027${String(i + 1).padStart(5, '0')}`));
  });
});

describe('lists', () => {
  it('pages, searches, sorts and filters', async () => {
    await post('/v1/sales/invoices', invoiceBody({ customer: { ...CUSTOMER, id: 777, business_name: 'Zebra Findable Ltd' }, date_issued: '2025-03-01', notes: 'special' }));
    const all = await (await api('/v1/sales/invoices?take=2')).json();
    expect(all).toMatchObject({ from: 0, take: 2, aggregations: [] });
    expect(all.entities).toHaveLength(2);
    expect(all.total).toBeGreaterThan(50);

    const found = await (await api('/v1/sales/invoices?search=zebra%20FINDABLE')).json();
    expect(found.total).toBe(1);
    expect(found.entities[0].customer.business_name).toBe('Zebra Findable Ltd');

    const ranged = await (await api('/v1/sales/invoices?date_issued=[2025-01-01;2025-12-31]')).json();
    expect(ranged.entities.map((e: any) => e.date_issued)).toEqual(['2025-03-01']);
    // what is overdue on a day: unpaid or partly paid, due before it (the 2025 invoice fell due on 2025-03-15)
    const overdue = await (await api('/v1/sales/invoices?payment_status=unpaid&payment_status=partially_paid&date_due=[;2025-12-31]')).json();
    expect(overdue.entities.map((e: any) => [e.date_due, e.payment_status])).toEqual([['2025-03-15', 'unpaid']]);
    expect(overdue.entities[0].overdue_days).toBeGreaterThan(600);
    expect((await (await api('/v1/sales/invoices?date_due=[2025-03-16;2025-12-31]')).json()).total).toBe(0);
    await expectProblem(await api('/v1/sales/invoices?date_due=[2025-02-30;]'), 400);

    const byTotal = await (await api('/v1/sales/invoices?sort=-total_amount&take=3')).json();
    const totals = byTotal.entities.map((e: any) => e.total_amount);
    expect([...totals].sort((a, b) => b - a)).toEqual(totals);

    const unpaid = await (await api('/v1/sales/invoices?payment_status=paid&payment_status=overpaid')).json();
    expect(unpaid.total).toBe(0);

    const since = await (await api(`/v1/sales/invoices?updated_since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).json();
    expect(since.total).toBe(0);

    await expectProblem(await api('/v1/sales/invoices?sort=colour'), 400, 'validation_error');
    await expectProblem(await api('/v1/sales/invoices?take=1001'), 400, 'validation_error');
    await expectProblem(await api('/v1/sales/invoices?date_issued=[2025-13-01;]'), 400);
    await expectProblem(await api('/v1/sales/invoices/999999'), 404);
  });

  it("a day's list is counted from an index, not by reading every document of the organisation", async () => {
    // the plan the list's count gets when the table is large (sequential scans priced out, as
    // they are past a few thousand documents): one that read every invoice took 33 ms at 12,000
    const em = stack.services.sales!.deps.orm.em.fork();
    const plan = await em.transactional(async (tem) => {
      await sqlRows(tem, 'set local enable_seqscan = off');
      return sqlRows<{ 'QUERY PLAN': string }>(tem, "explain select count(*) from sales_documents where org_id = 1 and doc_type = 'sales_invoice' and date_issued = '2025-03-01'");
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Only Scan using sales_documents_issued/);
  });
});
