import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';

/**
 * The whole system as a new user meets it: every service running, documents posted over HTTP,
 * the ledger built from the events they publish, payments matched across services.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
});
afterAll(async () => {
  await stack?.close();
});

const DAY = '2026-11-23';
const VAT21 = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21 };
const VAT12 = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12 };
const CUSTOMER = { id: 77, business_name: 'Odběratel s.r.o.', vat_no: 'CZ87654321', address: { city: 'Brno', country: 'CZ' } };

interface LedgerRow {
  debit: number;
  credit: number;
  gl_account: { number: string };
}
interface Txn {
  no: string;
  type: string;
  accounting_status: string;
  rows: LedgerRow[];
  debit: number;
  credit: number;
}

const post = async (path: string, json: unknown) => {
  const res = await stack.api(path, { method: 'POST', json });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};

function summary(t: Txn): string[] {
  return t.rows.map((r) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit.toFixed(2)}`)).sort();
}

async function ledgerEntry(match: (t: Txn) => boolean): Promise<Txn> {
  return eventually(async () => {
    const page = await (await stack.api(`/v1/accounting/transactions?date_posting=[${DAY};${DAY}]&take=1000`)).json();
    return (page.entities as Txn[]).find(match);
  }, 10_000, 100);
}

describe('documents to ledger, payments across services', () => {
  let invoice: { id: number; no: string; total_amount: number };

  it('an invoice posts Dr 311 298.00 / Cr 604 250.00, Cr 343 48.00 in the ledger', async () => {
    invoice = await post('/v1/sales/invoices', {
      customer: CUSTOMER,
      currency: 'CZK',
      date_issued: DAY,
      date_due: '2026-12-07',
      items: [
        { title: 'Consulting', qty: 2, rate: 100, taxes: [VAT21] },
        { title: 'Book', qty: 1, rate: 50, taxes: [VAT12] },
      ],
    });
    expect(invoice).toMatchObject({ subtotal_amount: 250, total_amount: 298, amount_due: 298, payment_status: 'unpaid' });
    expect(invoice.no).toMatch(/^INV2026\d{5}$/);
    const t = await ledgerEntry((x) => x.no === invoice.no && x.type === 'sales_invoice');
    expect(t.accounting_status).toBe('posted');
    expect(summary(t)).toEqual(['Cr 343 48.00', 'Cr 604 250.00', 'Dr 311 298.00']);
    expect(t.debit).toBe(t.credit);
  });

  it('a credit note of 121.00 against it posts Dr 604 100.00, Dr 343 21.00, Cr 311 121.00', async () => {
    const cn = await post('/v1/sales/credit-notes', {
      customer: CUSTOMER,
      currency: 'CZK',
      date_issued: DAY,
      credited_doc_id: invoice.id,
      items: [{ title: 'Returned consulting', qty: 1, rate: 100, taxes: [VAT21] }],
    });
    expect(cn).toMatchObject({ total_amount: 121, credited_doc_no: invoice.no });
    const t = await ledgerEntry((x) => x.no === cn.no && x.type === 'sales_credit_note');
    expect(summary(t)).toEqual(['Cr 311 121.00', 'Dr 343 21.00', 'Dr 604 100.00']);
  });

  it('a vendor credit of 1210.00 posts Dr 321 1210.00, Cr 504 1000.00, Cr 343 210.00', async () => {
    const vc = await post('/v1/purchase/vendor-credits', {
      type: { id: 1, name: 'Purchase' },
      vendor: { id: 9, business_name: 'Dodavatel a.s.', vat_no: 'CZ11223344', address: { country: 'CZ' } },
      currency: 'CZK',
      date_issued: DAY,
      items: [{ description: 'Returned goods', qty: 1, rate: 1000, taxes: [VAT21] }],
    });
    expect(vc.total_amount).toBe(1210);
    const t = await ledgerEntry((x) => x.no === vc.no && x.type === 'purchase_vendor_credit');
    expect(summary(t)).toEqual(['Cr 343 210.00', 'Cr 504 1000.00', 'Dr 321 1210.00']);
  });

  it('a bank payment of 298.00 turns the invoice paid and posts Dr 221 / Cr 311', async () => {
    const bt = await post('/v1/finance/bank/transactions', {
      account_number: '2400123456/2010',
      statement_id: 1,
      order: 1,
      amount: 298,
      currency: 'CZK',
      date_transaction: DAY,
      date_accounting: DAY,
      paid_record: { type: 'sales_invoice', id: invoice.id },
    });
    expect(bt.match_status).toBe('matched');
    await eventually(async () => {
      const inv = await (await stack.api(`/v1/sales/invoices/${invoice.id}`)).json();
      return inv.payment_status === 'paid' && inv.amount_due === 0;
    }, 10_000, 100);
    const t = await ledgerEntry((x) => x.type === 'bank_transaction' && x.rows.some((r) => r.gl_account.number === '221' && r.debit === 298));
    expect(summary(t)).toEqual(['Cr 311 298.00', 'Dr 221 298.00']);

    // the same statement line again changes nothing
    const again = await stack.api('/v1/finance/bank/transactions', {
      method: 'POST',
      json: { account_number: '2400123456/2010', statement_id: 1, order: 1, amount: 298, currency: 'CZK', date_transaction: DAY, paid_record: { type: 'sales_invoice', id: invoice.id } },
    });
    expect(again.status).toBe(409);
    const inv = await (await stack.api(`/v1/sales/invoices/${invoice.id}`)).json();
    expect(inv.amount_paid).toBe(298);
  });

  it('the trial balance of the day balances and agrees with the postings', async () => {
    const res = await stack.api(`/v1/reporting/financial/trial-balance/1/export/json?date_posting=[${DAY};${DAY}]`, { method: 'POST', json: [] });
    expect(res.status, await res.clone().text()).toBe(200);
    const tb = await res.json();
    const rows = tb.rows as Array<{ gl_account: { number: string }; debit: number; credit: number; ob: number; cb: number }>;
    const sum = (k: 'debit' | 'credit') => rows.reduce((s, r) => s + Math.round(r[k] * 100), 0) / 100;
    expect(sum('debit')).toBe(sum('credit'));
    const acc = (n: string) => rows.find((r) => r.gl_account.number === n)!;
    expect(acc('311')).toMatchObject({ debit: 298, credit: 121 + 298 });
    expect(acc('221')).toMatchObject({ debit: 298, credit: 0 });
    for (const r of rows) expect(Math.round((r.ob + r.debit - r.credit) * 100)).toBe(Math.round(r.cb * 100));
  });
});
