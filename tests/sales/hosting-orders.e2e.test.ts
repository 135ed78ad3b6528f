import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { accountBalances, expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';

/*
 * The hosting integration (issue 75, part 5) through the gateway: with `create_invoice_after:
 * "payment"` an order gets a proforma asking for the money, and the payment that pays it in full
 * brings the invoice that deducts it (dated the payment's day); with another setting the order is
 * invoiced at once. An order is recorded once per (integration, order id).
 */

let stack: Stack;
const VAT21 = { tax_code: 'S21', tax_name: 'DPH 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
const CUSTOMER = { id: 9101, business_name: 'Pekárna U Mlýna s.r.o.', vat_no: 'CZ26168685', address: { city: 'Tábor', country: 'CZ' } };

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (p: string, json: unknown, key?: string) => ok(await stack.api(p, { method: 'POST', json, key }));
const get = async (p: string, key?: string) => ok(await stack.api(p, { key }));
const integrate = async (id: string, createInvoiceAfter: string, key?: string) =>
  ok(await stack.api(`/v1/settings/integrations/cz/hosting/${id}`, { method: 'PUT', key, json: { source: 'MARKETPLACE', name: id, config: { create_invoice_after: createInvoiceAfter } } }));
const order = (integrationId: string, orderId: string, over: Record<string, unknown> = {}) => ({
  integration_id: integrationId,
  order_id: orderId,
  customer: CUSTOMER,
  currency: 'CZK',
  date_issued: '2026-11-02',
  date_due: '2026-11-09',
  bank_account: { account_number: '19-2000145399/0800' },
  items: [{ title: 'Webhosting Business, 12 měsíců', qty: 1, rate: 2400, taxes: [VAT21] }],
  ...over,
});

describe('hosting orders (issue 75, part 5)', () => {
  it('create_invoice_after payment: a proforma on order, the invoice deducting it once it is paid in full', async () => {
    await integrate('webhosting', 'payment');
    const placed = await post('/v1/sales/hosting-orders', order('webhosting', 'OBJ-2026-0042'));
    expect(placed).toMatchObject({
      integration_id: 'webhosting',
      order_id: 'OBJ-2026-0042',
      create_invoice_after: 'payment',
      status: 'awaiting_payment',
      proforma: { status: 'unpaid', total_amount: 2904, amount_due: 2904 },
      invoice: null,
    });
    const proforma = await get(`/v1/sales/proforma-invoices/${placed.proforma.id}`);
    expect(proforma).toMatchObject({ order_reference: 'OBJ-2026-0042', variable_symbol: placed.proforma.variable_symbol });
    // the provider retries: the same order, no second proforma
    expect(await post('/v1/sales/hosting-orders', order('webhosting', 'OBJ-2026-0042'))).toEqual(placed);
    expect((await get('/v1/sales/proforma-invoices')).entities).toHaveLength(1);
    expect(await get(`/v1/sales/hosting-orders/${placed.id}`)).toEqual(placed);

    // a part paid: still awaiting
    await post('/v1/finance/bank/transactions', { amount: 1000, currency: 'CZK', date_transaction: '2026-11-04', paid_record: { type: 'sales_proforma', id: placed.proforma.id } });
    await eventually(async () => (await get(`/v1/sales/proforma-invoices/${placed.proforma.id}`)).status === 'partially_paid', 10_000);
    expect(await get(`/v1/sales/hosting-orders/${placed.id}`)).toMatchObject({ status: 'awaiting_payment', invoice: null });
    // the rest: the invoice, dated the payment's day, deducting all that was paid
    await post('/v1/finance/bank/transactions', { amount: 1904, currency: 'CZK', date_transaction: '2026-11-06', paid_record: { type: 'sales_proforma', id: placed.proforma.id } });
    const invoiced = await eventually(async () => {
      const o = await get(`/v1/sales/hosting-orders/${placed.id}`);
      return o.status === 'invoiced' ? o : null;
    }, 10_000);
    expect(invoiced.proforma.status).toBe('settled');
    const invoice = await get(`/v1/sales/invoices/${invoiced.invoice.id}`);
    expect(invoice).toMatchObject({
      no: invoiced.invoice.no,
      date_issued: '2026-11-06',
      order_reference: 'OBJ-2026-0042',
      total_amount: 2904,
      tax_amount: 504,
      advance_amount: 2904,
      amount_due: 0,
      advances: [expect.objectContaining({ proforma_id: placed.proforma.id, amount: 2904, taxes: [expect.objectContaining({ tax_base: 2400, tax_amount: 504 })] })],
    });
    // the ledger: 324 cleared, 311 nothing owed, 343 the supply's VAT once
    await eventually(async () => (await accountBalances(stack, '[2026-11-01;2026-11-30]'))['324'] === '0.00' && (await accountBalances(stack, '[2026-11-01;2026-11-30]'))['311'] === '0.00', 10_000);
    expect(await accountBalances(stack, '[2026-11-01;2026-11-30]')).toMatchObject({ '221': '2904.00', '343': '-504.00', '604': '-2400.00' });
  });

  it('another setting invoices the order at once', async () => {
    await integrate('domains', 'order');
    const placed = await post('/v1/sales/hosting-orders', order('domains', 'D-77', { items: [{ title: 'Doména ledgerline.cz', qty: 1, rate: 250, taxes: [VAT21] }] }));
    expect(placed).toMatchObject({ create_invoice_after: 'order', status: 'invoiced', proforma: null });
    expect(await get(`/v1/sales/invoices/${placed.invoice.id}`)).toMatchObject({ total_amount: 302.5, amount_due: 302.5, order_reference: 'D-77' });
    // the same order id through another integration is another order
    const other = await post('/v1/sales/hosting-orders', order('webhosting', 'D-77'));
    expect(other.id).not.toBe(placed.id);
  });

  it('refuses an unknown integration, a bad body, another organisation, a reader', async () => {
    const before = (await get('/v1/sales/proforma-invoices')).entities.length;
    const body = await expectProblem(await stack.api('/v1/sales/hosting-orders', { method: 'POST', json: order('nowhere', 'X-1') }), 422, 'hosting_integration_not_found');
    expect(body.errors?.[0].path).toBe('integration_id');
    await expectProblem(await stack.api('/v1/sales/hosting-orders', { method: 'POST', json: order('webhosting', '') }), 400);
    await expectProblem(await stack.api('/v1/sales/hosting-orders', { method: 'POST', json: order('webhosting', 'X-2', { items: [] }) }), 400);
    await expectProblem(await stack.api('/v1/sales/hosting-orders', { method: 'POST', json: { ...order('webhosting', 'X-3'), advances: [{ proforma_id: 1 }] } }), 400);
    expect((await get('/v1/sales/proforma-invoices')).entities).toHaveLength(before);
    const other = await secondOrganisation(stack, 'Hosting Druhý s.r.o.');
    await expectProblem(await stack.api('/v1/sales/hosting-orders/1', { key: other.key }), 404, 'hosting_order_not_found');
    // their integration of the same name is theirs: the order is theirs
    await expectProblem(await stack.api('/v1/sales/hosting-orders', { method: 'POST', key: other.key, json: order('webhosting', 'OBJ-2026-0042') }), 422, 'hosting_integration_not_found');
    const reader = (await post('/v1/settings/security/api-keys', { name: 'reader', scopes: ['sales:read'] })).key;
    await expectProblem(await stack.api('/v1/sales/hosting-orders', { method: 'POST', key: reader, json: order('webhosting', 'X-4') }), 403);
    expect((await get('/v1/sales/hosting-orders/1', reader)).order_id).toBe('OBJ-2026-0042');
  });
});
