import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { apiOf, VAT12, VAT21, billBody, expectProblem } from '../purchase/fixtures.js';

let stack: Stack;
const api = apiOf(() => stack);
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance'] });
});
afterAll(async () => {
  await stack?.close();
});

const CUSTOMER = { id: 701, business_name: 'Initech s.r.o.', vat_no: 'CZ11223344' };
async function newInvoice(items?: unknown[]) {
  const res = await api('/v1/sales/invoices', {
    method: 'POST',
    json: {
      customer: CUSTOMER,
      currency: 'CZK',
      date_issued: '2026-11-20',
      date_due: '2026-12-04',
      items: items ?? [
        { title: 'Consulting', qty: 2, rate: 100, taxes: [VAT21] },
        { title: 'Book', qty: 1, rate: 50, taxes: [VAT12] },
      ],
    },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}
const invoice = async (id: number) => (await api(`/v1/sales/invoices/${id}`)).json();
const record = (json: Record<string, unknown>) =>
  api('/v1/finance/bank/transactions', {
    method: 'POST',
    json: { account_number: '2400123456/2010', currency: 'CZK', date_transaction: '2026-11-25', ...json },
  });

describe('payments matched to sales invoices', () => {
  it('a bank transaction of 298.00 paying an invoice of 298.00 turns it paid with amount_due 0', async () => {
    const inv = await newInvoice();
    expect(inv.total_amount).toBe(298);
    const bt = await (await record({ amount: 298, statement_id: 1, order: 1, paid_record: { type: 'sales_invoice', id: inv.id } })).json();
    expect(bt).toMatchObject({
      match_status: 'matched',
      matched_document: { type: 'sales_invoice', id: inv.id, no: inv.no, amount: 298 },
      paid_record: { no: inv.no, contact: { id: CUSTOMER.id, business_name: CUSTOMER.business_name } },
    });
    await eventually(async () => (await invoice(inv.id)).payment_status === 'paid');
    expect(await invoice(inv.id)).toMatchObject({ amount_paid: 298, amount_due: 0 });
  });

  it('paying 100.00 turns it partially_paid; the same transaction twice → 409 and amount_paid unchanged', async () => {
    const inv = await newInvoice();
    const line = { amount: 100, statement_id: 2, order: 1, paid_record: { type: 'sales_invoice', no: inv.no } };
    expect((await record(line)).status).toBe(200);
    await eventually(async () => (await invoice(inv.id)).payment_status === 'partially_paid');
    await expectProblem(await record(line), 409, 'duplicate_bank_transaction');
    await new Promise((r) => setTimeout(r, 500));
    expect(await invoice(inv.id)).toMatchObject({ amount_paid: 100, amount_due: 198, payment_status: 'partially_paid' });
  });

  it('a payout line pays an invoice, its fee goes to 568, and a replacement moves the payment', async () => {
    const inv = await newInvoice([{ title: 'Subscription', qty: 1, rate: 100 }]);
    const body = {
      currency: 'CZK',
      psp_object_id: 'po_sales_1',
      total_amount: 95,
      lines: [
        { amount: 100, paid_record: { type: 'sales_invoice', id: inv.id } },
        { amount: -5, gl_account: { number: '568' } },
      ],
    };
    const res = await api('/v1/finance/payouts', { method: 'POST', json: body });
    expect(res.status).toBe(200);
    const p = await res.json();
    expect(p.lines[0]).toMatchObject({ match_status: 'matched', matched_document: { type: 'sales_invoice', id: inv.id, amount: 100 } });
    await eventually(async () => (await invoice(inv.id)).payment_status === 'paid');

    const put = await api(`/v1/finance/payouts/${p.id}`, {
      method: 'PUT',
      json: { ...body, total_amount: 35, lines: [{ amount: 40, paid_record: { type: 'sales_invoice', id: inv.id } }, body.lines[1]] },
    });
    expect(put.status).toBe(200);
    await eventually(async () => (await invoice(inv.id)).amount_paid === 40);
    expect(await invoice(inv.id)).toMatchObject({ amount_due: 60, payment_status: 'partially_paid' });
  });

  it('an unknown sales invoice is recorded unmatched', async () => {
    const bt = await (await record({ amount: 10, paid_record: { type: 'sales_invoice', id: 999999 } })).json();
    expect(bt.match_status).toBe('unmatched');
  });

  it("each service applies the payments of its own documents and passes over the other's unread", async () => {
    const passedOver = async (service: 'sales' | 'purchase') => {
      const text = await (await fetch(`${stack.services[service]!.url}/metrics`)).text();
      const consumer = `${service}-finance-payment-matched`;
      return Number(new RegExp(`ledgerline_consumer_messages_total\\{consumer="${consumer}",outcome="irrelevant"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    };
    const claimed = async (service: 'sales' | 'purchase') =>
      (
        (await stack.services[service]!.deps.orm.em
          .getConnection()
          .execute(`select event_id from kit_inbox where consumer = '${service}-finance-payment-matched'`)) as Array<{ event_id: string }>
      ).map((r) => r.event_id);
    const [salesBefore, purchaseBefore] = [await passedOver('sales'), await passedOver('purchase')];
    const purchaseClaims = (await claimed('purchase')).length;

    const inv = await newInvoice();
    const billRes = await api('/v1/purchase/bills', { method: 'POST', json: billBody({ vendor_doc_no: 'PASS-OVER-1' }) });
    expect(billRes.status, await billRes.clone().text()).toBe(200);
    const bill = await billRes.json();
    expect((await record({ amount: 298, statement_id: 81, order: 1, paid_record: { type: 'sales_invoice', id: inv.id } })).status).toBe(200);
    expect((await record({ amount: -bill.total_amount, statement_id: 81, order: 2, paid_record: { type: 'purchase_bill', id: bill.id } })).status).toBe(200);

    await eventually(async () => (await invoice(inv.id)).payment_status === 'paid');
    const billNow = async () => (await (await api(`/v1/purchase/bills?search=${encodeURIComponent(bill.no)}`)).json()).entities?.[0];
    await eventually(async () => (await billNow())?.payment_status === 'paid');
    // the invoice's payment never entered purchase's inbox, nor the bill's sales'
    await eventually(async () => (await passedOver('purchase')) === purchaseBefore + 1 && (await passedOver('sales')) === salesBefore + 1);
    expect((await claimed('purchase')).length).toBe(purchaseClaims + 1);
    expect(await claimed('sales')).not.toContain((await claimed('purchase')).at(-1));
  });
});
