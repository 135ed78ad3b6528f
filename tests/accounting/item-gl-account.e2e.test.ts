import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purchaseBillPostedEventSchema, salesInvoicePostedEventSchema } from '@ledgerline/contracts';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { secondOrganisation } from '../finance/support.js';

/**
 * architecture §6: an item's gl_account, when given, overrides 604 (sales) / 504 (purchase). A line that
 * names its account keeps it through the stored document and its event, and the ledger posts that
 * line's net amount to it; the other lines stay on the default account.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'accounting'] });
});
afterAll(async () => {
  await stack?.close();
});

const DAY = '2026-11-18';
const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21 };
const VAT12 = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12 };

interface Txn {
  no: string;
  type: string;
  rows: Array<{ debit: number; credit: number; gl_account: { number: string } }>;
  debit: number;
  credit: number;
}

async function post(path: string, json: unknown) {
  const res = await stack.api(path, { method: 'POST', json });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

const summary = (t: Txn) =>
  t.rows.map((r) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit.toFixed(2)}`)).sort();

const ledgerEntry = (no: string, type: string) =>
  eventually(async () => {
    const page = await (await stack.api(`/v1/accounting/transactions?date_posting=[${DAY};${DAY}]&take=1000`)).json();
    return (page.entities as Txn[]).find((t) => t.no === no && t.type === type);
  }, 15_000, 100);

describe('item gl_account overrides the default revenue and cost accounts', () => {
  it('a sales invoice line with gl_account 602 posts its net to 602, the rest to 604', async () => {
    const inv = await post('/v1/sales/invoices', {
      customer: { id: 3, business_name: 'Zákazník a.s.', address: { country: 'CZ' } },
      currency: 'CZK',
      date_issued: DAY,
      items: [
        { title: 'Consulting', qty: 3, rate: 333.33, taxes: [VAT21], gl_account: { number: '602' } },
        { title: 'Goods', qty: 2, rate: 10.05, taxes: [VAT21] },
        { title: 'Book', qty: 1, rate: 99.9, taxes: [VAT12] },
      ],
    });
    // 999.99 + 20.10 = 1020.09 at 21 % → 214.22; 99.90 at 12 % → 11.99
    expect(inv).toMatchObject({ subtotal_amount: 1119.99, total_amount: 1346.2 });
    expect(inv.items[0].gl_account).toMatchObject({ number: '602' });
    expect(inv.items[1].gl_account ?? null).toBeNull();
    const stored = await (await stack.api(`/v1/sales/invoices/${inv.id}`)).json();
    expect(stored.items[0].gl_account).toMatchObject({ number: '602' });
    expect(salesInvoicePostedEventSchema.parse(stored).items[0].gl_account?.number).toBe('602');

    const t = await ledgerEntry(inv.no, 'sales_invoice');
    expect(summary(t)).toEqual(['Cr 343 226.21', 'Cr 602 999.99', 'Cr 604 120.00', 'Dr 311 1346.20']);
    expect(t.debit).toBe(1346.2);
    expect(t.credit).toBe(1346.2);
  });

  it('a credit note line with gl_account 602 reverses to 602', async () => {
    const cn = await post('/v1/sales/credit-notes', {
      customer: { id: 3, business_name: 'Zákazník a.s.', address: { country: 'CZ' } },
      currency: 'CZK',
      date_issued: DAY,
      items: [{ title: 'Consulting refund', qty: 1, rate: 100, taxes: [VAT21], gl_account: { number: '602' } }],
    });
    const t = await ledgerEntry(cn.no, 'sales_credit_note');
    expect(summary(t)).toEqual(['Cr 311 121.00', 'Dr 343 21.00', 'Dr 602 100.00']);
  });

  it('a vendor bill line with gl_account 518 posts its net to 518, the rest to 504', async () => {
    const bill = await post('/v1/purchase/bills', {
      type: { id: 1, name: 'Purchase' },
      vendor: { id: 9, business_name: 'Dodavatel a.s.', vat_no: 'CZ11223344', address: { country: 'CZ' } },
      currency: 'CZK',
      date_issued: DAY,
      items: [
        { description: 'Cleaning service', qty: 1, rate: 1500.5, taxes: [VAT21], gl_account: { number: '518' } },
        { description: 'Stock', qty: 4, rate: 25.25, taxes: [VAT21] },
      ],
    });
    // 1500.50 + 101.00 = 1601.50 at 21 % → 336.32
    expect(bill).toMatchObject({ subtotal_amount: 1601.5, total_amount: 1937.82 });
    expect(bill.items[0].gl_account).toMatchObject({ number: '518' });
    // the answer is also the data of purchase.bill.posted, which the ledger reads
    expect(purchaseBillPostedEventSchema.parse(bill).items[0].gl_account?.number).toBe('518');
    const listed = await (await stack.api(`/v1/purchase/bills?search=${encodeURIComponent(bill.no)}`)).json();
    expect(listed.entities[0].items[0].gl_account).toMatchObject({ number: '518' });

    const t = await ledgerEntry(bill.no, 'purchase_bill');
    expect(summary(t)).toEqual(['Cr 321 1937.82', 'Dr 343 336.32', 'Dr 504 101.00', 'Dr 518 1500.50']);
    expect(t.debit).toBe(t.credit);
  });

  it('the trial balance carries the overriding accounts', async () => {
    const res = await stack.api(`/v1/reporting/financial/trial-balance/1/export/json?date_posting=[${DAY};${DAY}]`, { method: 'POST', json: [] });
    expect(res.status, await res.clone().text()).toBe(200);
    const rows = (await res.json()).rows as Array<{ gl_account: { number: string }; debit: number; credit: number }>;
    const acc = (n: string) => rows.find((r) => r.gl_account.number === n);
    expect(acc('602')).toMatchObject({ debit: 100, credit: 999.99 });
    expect(acc('518')).toMatchObject({ debit: 1500.5, credit: 0 });
    expect(acc('604')).toMatchObject({ debit: 0, credit: 120 });
    expect(acc('504')).toMatchObject({ debit: 101, credit: 0 });
  });

  it('a line naming a catalogue item takes the item’s account; its own account wins; unknown ids change nothing', async () => {
    const day = '2026-11-19';
    const item = await post('/v1/lists/items', { name: 'Licence', sku: 'LIC-1', sales_rate: 500, currency: 'CZK', tax_rate: 21, gl_account: { number: '602' } });
    const inv = await post('/v1/sales/invoices', {
      customer: { id: 3, business_name: 'Zákazník a.s.', address: { country: 'CZ' } },
      currency: 'CZK',
      date_issued: day,
      items: [
        { title: 'Licence', qty: 2, rate: 500, taxes: [VAT21], item: { id: item.id } },
        { title: 'Licence, own account', qty: 1, rate: 50, taxes: [VAT21], item: { id: item.id }, gl_account: { number: '648' } },
        { title: 'Client reference', qty: 1, rate: 30, taxes: [VAT21], item: { id: 987654321 } },
      ],
    });
    expect(inv.items.map((i: { gl_account: { number: string } | null }) => i.gl_account?.number ?? null)).toEqual(['602', '648', null]);
    const t = await eventually(async () => {
      const page = await (await stack.api(`/v1/accounting/transactions?date_posting=[${day};${day}]&take=1000`)).json();
      return (page.entities as Txn[]).find((x) => x.no === inv.no && x.type === 'sales_invoice');
    }, 15_000, 100);
    // 1000 + 50 + 30 = 1080 at 21 % → 226.80
    expect(summary(t)).toEqual(['Cr 343 226.80', 'Cr 602 1000.00', 'Cr 604 30.00', 'Cr 648 50.00', 'Dr 311 1306.80']);
  });

  it('a line naming another organisation’s catalogue item takes nothing from it', async () => {
    const other = await secondOrganisation(stack, 'Catalogue neighbour');
    const res = await stack.api('/v1/lists/items', { method: 'POST', key: other.key, json: { name: 'Theirs', sales_rate: 1, currency: 'CZK', gl_account: { number: '648' } } });
    expect(res.status, await res.clone().text()).toBe(200);
    const theirs = await res.json();
    const inv = await post('/v1/sales/invoices', {
      customer: { id: 3, business_name: 'Zákazník a.s.', address: { country: 'CZ' } },
      currency: 'CZK',
      date_issued: '2026-11-20',
      items: [{ title: 'Named by id only', qty: 1, rate: 40, taxes: [VAT21], item: { id: theirs.id } }],
    });
    expect(inv.items[0].gl_account ?? null).toBeNull();
    const t = await eventually(async () => {
      const page = await (await stack.api('/v1/accounting/transactions?date_posting=[2026-11-20;2026-11-20]&take=1000')).json();
      return (page.entities as Txn[]).find((x) => x.no === inv.no && x.type === 'sales_invoice');
    }, 15_000, 100);
    expect(summary(t)).toEqual(['Cr 343 8.40', 'Cr 604 40.00', 'Dr 311 48.40']);
  });
});
