import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { parseEventData } from '@ledgerline/contracts';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { apiOf, billBody, expectProblem, VAT21 } from '../purchase/fixtures.js';
import { secondOrganisation, watchBus, type SeenEvent } from './support.js';

/**
 * Payments in a currency other than the organisation's legal currency (CZK) reach the ledger: the
 * bank at the payment's legal value, the receivable cleared at the invoice's legal value, the
 * difference a realised FX gain (663) or loss (563). Nothing is dead-lettered.
 */
let stack: Stack;
const api = apiOf(() => stack);
let nc: NatsConnection;
let seen: SeenEvent[];

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
  ({ nc, seen } = await watchBus(stack, ['finance', 'dlq']));
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

const DAY = '2026-11-25';
const CUSTOMER = { id: 901, business_name: 'Euro Kunde GmbH', vat_no: 'DE123456789', address: { country: 'CZ' } };

interface Row {
  debit: number;
  credit: number;
  gl_account: { number: string };
  fx_rates: Array<{ rate: number; currency: string; source: string }>;
  paid_record: { id?: number; type?: string } | null;
}
interface Txn {
  id: number;
  type: string;
  no: string | null;
  currency: string;
  debit: number;
  credit: number;
  fx_rates: Array<{ rate: number; currency: string; source: string }>;
  rows: Row[];
}

const post = async (path: string, json: unknown) => {
  const res = await api(path, { method: 'POST', json });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};
const summary = (t: Txn) => t.rows.map((r) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit.toFixed(2)}`)).sort();
const cents = (xs: number[]) => xs.reduce((s, x) => s + Math.round(x * 100), 0);
function expectBalanced(t: Txn) {
  expect(cents(t.rows.map((r) => r.debit))).toBe(cents(t.rows.map((r) => r.credit)));
  expect(t.debit).toBe(t.credit);
}
async function ledger(): Promise<Txn[]> {
  const page = await (await api(`/v1/accounting/transactions?date_posting=[2026-11-01;2026-11-30]&take=1000`)).json();
  return page.entities as Txn[];
}
const entry = (match: (t: Txn) => boolean) => eventually(async () => (await ledger()).find(match), 10_000, 100);

async function eurInvoice(fx: number) {
  return post('/v1/sales/invoices', {
    customer: CUSTOMER,
    currency: 'EUR',
    fx_rate: fx,
    date_issued: DAY,
    date_due: '2026-12-09',
    items: [{ title: 'Consulting', qty: 1, rate: 100, taxes: [VAT21] }],
  });
}

describe('a bank transaction in EUR pays an EUR invoice at another rate', () => {
  it('invoice paid; ledger Dr 221 3085.50 / Cr 311 3025.00 / Cr 663 60.50; the event carries the legal figures', async () => {
    const inv = await eurInvoice(25);
    expect(inv).toMatchObject({ currency: 'EUR', total_amount: 121, total_amount_leg: 3025 });
    const invoiceEntry = await entry((t) => t.type === 'sales_invoice' && t.no === inv.no);
    expect(summary(invoiceEntry)).toEqual(['Cr 343 525.00', 'Cr 604 2500.00', 'Dr 311 3025.00']);

    const bt = await post('/v1/finance/bank/transactions', {
      account_number: '2400123456/2010',
      amount: 121,
      currency: 'EUR',
      fx_rate: 25.5,
      date_transaction: DAY,
      paid_record: { type: 'sales_invoice', id: inv.id },
    });
    expect(bt).toMatchObject({
      match_status: 'matched',
      matched_document: { type: 'sales_invoice', id: inv.id, amount: 121, currency: 'EUR' },
      legal_currency: 'CZK',
      fx_rate: 25.5,
      currency_coef: 1,
      fx_rate_source: 'payment',
      amount_leg: 3085.5,
      settlement_amount_leg: 3025,
    });
    await eventually(async () => (await (await api(`/v1/sales/invoices/${inv.id}`)).json()).payment_status === 'paid');
    expect(await (await api(`/v1/sales/invoices/${inv.id}`)).json()).toMatchObject({ amount_paid: 121, amount_due: 0 });

    const t = await entry((x) => x.type === 'bank_transaction' && x.rows.some((r) => r.paid_record?.id === inv.id));
    expect(summary(t)).toEqual(['Cr 311 3025.00', 'Cr 663 60.50', 'Dr 221 3085.50']);
    expectBalanced(t);
    expect(t).toMatchObject({ currency: 'EUR', fx_rates: [{ rate: 25.5, currency: 'EUR', source: 'payment' }] });
    for (const r of t.rows) expect(r.fx_rates).toEqual([{ rate: 25.5, currency: 'EUR', source: 'payment' }]);

    const recorded = seen.find((e) => e.subject === 'finance.bank_transaction.recorded' && e.envelope.data.id === bt.id)!;
    expect(recorded).toBeDefined();
    const data = parseEventData('finance.bank_transaction.recorded', recorded.envelope.data);
    expect(data).toMatchObject({ amount: 121, currency: 'EUR', amount_leg: 3085.5, settlement_amount_leg: 3025, fx_rate: 25.5, currency_coef: 1, legal_currency: 'CZK' });
  });

  it('without fx_rate a payment of an EUR invoice is converted at the invoice rate: no FX difference', async () => {
    const inv = await eurInvoice(24.8);
    const bt = await post('/v1/finance/bank/transactions', { amount: 60.5, currency: 'EUR', date_transaction: DAY, paid_record: { type: 'sales_invoice', no: inv.no } });
    expect(bt).toMatchObject({ fx_rate: 24.8, fx_rate_source: 'paid_document', amount_leg: 1500.4, settlement_amount_leg: 1500.4 });
    const t = await entry((x) => x.type === 'bank_transaction' && x.rows.some((r) => r.paid_record?.id === inv.id));
    expect(summary(t)).toEqual(['Cr 311 1500.40', 'Dr 221 1500.40']);
    expect(t.fx_rates).toEqual([{ rate: 24.8, currency: 'EUR', source: 'paid_document' }]);
    await eventually(async () => (await (await api(`/v1/sales/invoices/${inv.id}`)).json()).payment_status === 'partially_paid');
  });

  it('a foreign payment that pays nothing and names no fx_rate → 422 fx_rate_required, nothing recorded', async () => {
    const before = (await (await api('/v1/finance/bank/transactions?take=0')).json()).total;
    const problem = await expectProblem(
      await api('/v1/finance/bank/transactions', { method: 'POST', json: { amount: 50, currency: 'EUR', date_transaction: DAY, description: 'Unknown EUR' } }),
      422,
      'fx_rate_required',
    );
    expect(problem.errors!.map((e) => e.path)).toEqual(['fx_rate']);
    const payout = await expectProblem(
      await api('/v1/finance/payouts', { method: 'POST', json: { currency: 'EUR', date_issued: DAY, lines: [{ amount: 10 }, { amount: -1, gl_account: { number: '568' } }] } }),
      422,
      'fx_rate_required',
    );
    expect(payout.errors!.map((e) => e.path)).toEqual(['fx_rate']);
    expect((await (await api('/v1/finance/bank/transactions?take=0')).json()).total).toBe(before);
    expect((await (await api('/v1/finance/payouts?take=0')).json()).total).toBe(0);
    // with a rate the same payment is recorded and posted to suspense at its legal value
    const ok = await post('/v1/finance/bank/transactions', { amount: 50, currency: 'EUR', fx_rate: 25.1, date_transaction: DAY, description: 'Unknown EUR' });
    expect(ok).toMatchObject({ match_status: 'none', amount_leg: 1255, settlement_amount_leg: null });
    const t = await entry((x) => x.type === 'bank_transaction' && x.rows.some((r) => r.gl_account.number === '395' && r.credit === 1255));
    expect(summary(t)).toEqual(['Cr 395 1255.00', 'Dr 221 1255.00']);
  });
});

describe('a bank transaction in EUR pays an EUR vendor bill at a higher rate', () => {
  it('bill paid; ledger Dr 321 3025.00, Dr 563 60.50 / Cr 221 3085.50', async () => {
    const bill = await post('/v1/purchase/bills', billBody({ currency: 'EUR', tax_fx_rate: 25, date_issued: DAY, items: [{ description: 'Licence', qty: 1, rate: 100, taxes: [VAT21] }] }));
    expect(bill).toMatchObject({ currency: 'EUR', total_amount: 121, tax_fx_rate: 25 });
    const bt = await post('/v1/finance/bank/transactions', {
      amount: -121,
      currency: 'EUR',
      fx_rate: 25.5,
      date_transaction: DAY,
      paid_record: { type: 'purchase_bill', id: bill.id },
    });
    expect(bt).toMatchObject({ match_status: 'matched', amount_leg: -3085.5, settlement_amount_leg: -3025 });
    const t = await entry((x) => x.type === 'bank_transaction' && x.rows.some((r) => r.paid_record?.type === 'purchase_bill' && r.paid_record?.id === bill.id));
    expect(summary(t)).toEqual(['Cr 221 3085.50', 'Dr 321 3025.00', 'Dr 563 60.50']);
    expectBalanced(t);
    const billEntry = await entry((x) => x.type === 'purchase_bill' && x.no === bill.no);
    expect(billEntry.rows.filter((r) => r.gl_account.number === '321').map((r) => r.credit)).toEqual([3025]);
    await eventually(async () => {
      const page = await (await api(`/v1/purchase/bills?search=${encodeURIComponent(bill.no)}`)).json();
      return page.entities.find((d: { no: string; payment_status: string }) => d.no === bill.no)?.payment_status === 'paid';
    });
  });
});

describe('a payout in EUR', () => {
  it('Dr 221 Σ lines at the payout rate; the paid invoice cleared at its value, the loss to 563, the fee to 568', async () => {
    const inv = await eurInvoice(26);
    const p = await post('/v1/finance/payouts', {
      currency: 'EUR',
      fx_rate: 25.5,
      date_issued: DAY,
      psp_object_id: 'po_eur_1',
      total_amount: 117,
      lines: [
        { amount: 121, paid_record: { type: 'sales_invoice', id: inv.id } },
        { amount: -4, gl_account: { number: '568' } },
      ],
    });
    expect(p).toMatchObject({ legal_currency: 'CZK', fx_rate: 25.5, currency_coef: 1, total_amount_leg: 2983.5 });
    expect(p.lines[0]).toMatchObject({ amount_leg: 3085.5, settlement_amount_leg: 3146, fx_rate: 25.5 });
    expect(p.lines[1]).toMatchObject({ amount_leg: -102, settlement_amount_leg: null });
    const t = await entry((x) => x.type === 'payout' && x.rows.some((r) => r.gl_account.number === '311' && r.credit === 3146));
    // 121 × 26 = 3146.00 cleared; 121 × 25.5 = 3085.50 received: loss 60.50
    expect(summary(t)).toEqual(['Cr 311 3146.00', 'Dr 221 2983.50', 'Dr 563 60.50', 'Dr 568 102.00']);
    expectBalanced(t);
    await eventually(async () => (await (await api(`/v1/sales/invoices/${inv.id}`)).json()).payment_status === 'paid');
  });
});

describe('an EUR invoice paid in several parts recorded at the same moment', () => {
  it('the parts clear exactly its legal total, however they interleave (bank transactions and a payout)', async () => {
    const inv = await eurInvoice(24.987); // 121 EUR, legal 3023.43 CZK
    expect(inv.total_amount_leg).toBe(3023.43);
    const pays = (amount: number) => ({ amount, currency: 'EUR', fx_rate: 25.1, date_transaction: DAY, paid_record: { type: 'sales_invoice', id: inv.id } });
    const answers = await Promise.all([
      post('/v1/finance/bank/transactions', pays(33.33)),
      post('/v1/finance/bank/transactions', pays(33.33)),
      post('/v1/finance/bank/transactions', pays(13.33)),
      post('/v1/finance/payouts', {
        currency: 'EUR',
        fx_rate: 25.1,
        date_issued: DAY,
        total_amount: 41.01,
        lines: [
          { amount: 20.5, paid_record: { type: 'sales_invoice', id: inv.id } },
          { amount: 20.51, paid_record: { type: 'sales_invoice', id: inv.id } },
        ],
      }),
    ]);
    const settlements = [...answers.slice(0, 3).map((bt) => bt.settlement_amount_leg), ...answers[3].lines.map((l: { settlement_amount_leg: number }) => l.settlement_amount_leg)];
    expect(cents(settlements)).toBe(302343);
    await eventually(async () => (await (await api(`/v1/sales/invoices/${inv.id}`)).json()).payment_status === 'paid');

    // in the ledger the receivable of the invoice is cleared to zero in CZK
    const cleared = await eventually(async () => {
      const rows = (await ledger()).flatMap((t) => t.rows).filter((r) => r.gl_account.number === '311' && r.paid_record?.id === inv.id && r.paid_record?.type === 'sales_invoice');
      return rows.length === 5 ? rows : undefined;
    }, 10_000, 100);
    expect(cents(cleared.map((r) => r.credit)) - cents(cleared.map((r) => r.debit))).toBe(302343);
  });

  it('a bank transaction after a payout line of the same invoice clears only the rest (half of 3023.43 rounds up once)', async () => {
    const inv = await eurInvoice(24.987);
    const payout = await post('/v1/finance/payouts', {
      currency: 'EUR',
      fx_rate: 25.1,
      date_issued: DAY,
      total_amount: 60.5,
      lines: [{ amount: 60.5, paid_record: { type: 'sales_invoice', id: inv.id } }],
    });
    expect(payout.lines[0].settlement_amount_leg).toBe(1511.72); // round(1511.715)
    const bt = await post('/v1/finance/bank/transactions', { amount: 60.5, currency: 'EUR', fx_rate: 25.1, date_transaction: DAY, paid_record: { type: 'sales_invoice', id: inv.id } });
    expect(bt.settlement_amount_leg).toBe(1511.71);
  });
});

describe('an organisation whose legal currency is EUR', () => {
  it('finance learns it from settings: EUR payments need no rate, CZK ones do, and the ledger is kept in EUR', async () => {
    const res = await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Slovenská s.r.o.', country: 'SK', legal_currency: 'EUR' } });
    expect(res.status, await res.clone().text()).toBe(200);
    const key = ((await res.json()) as { admin_key: { key: string } }).admin_key.key;
    const send = (json: unknown) => api('/v1/finance/bank/transactions', { method: 'POST', key, json });
    // until settings.organisation.updated reaches finance the default (CZK) applies and EUR needs a rate
    const bt = await eventually(async () => {
      const r = await send({ amount: 40, currency: 'EUR', date_transaction: DAY, description: 'EUR in EUR' });
      return r.status === 200 ? r.json() : null;
    }, 10_000, 100);
    expect(bt).toMatchObject({ legal_currency: 'EUR', fx_rate: 1, currency_coef: 1, fx_rate_source: 'legal', amount_leg: 40 });
    await expectProblem(await send({ amount: 1000, currency: 'CZK', date_transaction: DAY }), 422, 'fx_rate_required');
    const czk = await (await send({ amount: 1000, currency: 'CZK', fx_rate: 0.04, date_transaction: DAY })).json();
    expect(czk).toMatchObject({ legal_currency: 'EUR', amount_leg: 40, fx_rate: 0.04 });
    const theirs = () => api(`/v1/accounting/transactions?date_posting=[2026-11-01;2026-11-30]&take=1000`, { key }).then((r) => r.json());
    const entries = await eventually(async () => {
      const page = await theirs();
      return page.entities.length === 2 ? (page.entities as Txn[]) : null;
    }, 10_000, 100);
    for (const t of entries) {
      expect(summary(t)).toEqual(['Cr 395 40.00', 'Dr 221 40.00']);
      expect(t).toMatchObject({ legal_currency: 'EUR' });
    }
    expect(entries.find((t) => t.currency === 'CZK')!.fx_rates).toEqual([{ rate: 0.04, currency: 'CZK', source: 'payment' }]);
  });
});

describe("with the exchange-rate table (issue 56): payments without a rate take the booking day's", () => {
  it('a USD payout and an unmatched USD transaction take the rate in force; matched later, the transaction keeps it and the invoice is cleared at its own', async () => {
    const { key } = await secondOrganisation(stack, 'Table rates s.r.o.');
    const call = async (path: string, json: unknown, method = 'POST') => {
      const res = await api(path, { method, json, key });
      expect(res.status, await res.clone().text()).toBe(200);
      return res.json();
    };
    await call('/v1/settings/exchange-rates/USD/2026-11-24', { rate: 22.5 }, 'PUT');
    const payout = await call('/v1/finance/payouts', { currency: 'USD', date_issued: DAY, lines: [{ amount: 10 }, { amount: -1, gl_account: { number: '568' } }] });
    expect(payout).toMatchObject({ fx_rate: 22.5, total_amount_leg: 202.5 });
    expect(payout.lines.map((l: any) => [l.fx_rate_source, l.fx_rate_date, l.amount_leg])).toEqual([
      ['manual', '2026-11-24', 225],
      ['manual', '2026-11-24', -22.5],
    ]);
    const unmatched = await call('/v1/finance/bank/transactions', { amount: 100, currency: 'USD', date_transaction: DAY, description: 'Unknown USD' });
    expect(unmatched).toMatchObject({ match_status: 'none', fx_rate: 22.5, fx_rate_source: 'manual', fx_rate_date: '2026-11-24', amount_leg: 2250 });
    const invoice = await call('/v1/sales/invoices', { customer: CUSTOMER, currency: 'USD', fx_rate: 22, date_issued: DAY, items: [{ title: 'Licence', qty: 1, rate: 100, taxes: [] }] });
    // a later rate in the table changes nothing already recorded
    await call('/v1/settings/exchange-rates/USD/2026-11-25', { rate: 23 }, 'PUT');
    const matched = await call(`/v1/finance/bank/transactions/${unmatched.id}/match`, { document: { type: 'sales_invoice', id: invoice.id } });
    expect(matched).toMatchObject({ version: 2, match_status: 'matched', fx_rate: 22.5, fx_rate_source: 'manual', fx_rate_date: '2026-11-24', amount_leg: 2250, settlement_amount_leg: 2200 });
    const posted = await eventually(async () => {
      const page = await (await api(`/v1/accounting/transactions?source_type=bank_transaction&source_id=${unmatched.id}&take=10`, { key })).json();
      return (page.entities as Array<Txn & { source: { version: number }; entry_kind?: string }>).find((t) => t.source.version === 2 && t.type === 'bank_transaction');
    }, 15_000);
    expect(summary(posted)).toEqual(['Cr 311 2200.00', 'Cr 663 50.00', 'Dr 221 2250.00']);
  });
});

describe('the books', () => {
  it('nothing was dead-lettered, every transaction balances, and the trial balance balances', async () => {
    const all = await ledger();
    expect(all.length).toBeGreaterThanOrEqual(7);
    for (const t of all) expectBalanced(t);
    expect(seen.filter((e) => e.subject.startsWith('dlq.'))).toEqual([]);
    const res = await api(`/v1/reporting/financial/trial-balance/1/export/json?date_posting=[2026-11-01;2026-11-30]`, { method: 'POST', json: [] });
    expect(res.status, await res.clone().text()).toBe(200);
    const rows = (await res.json()).rows as Array<{ gl_account: { number: string }; debit: number; credit: number }>;
    expect(cents(rows.map((r) => r.debit))).toBe(cents(rows.map((r) => r.credit)));
    const acc = (n: string) => rows.find((r) => r.gl_account.number === n)!;
    // 60.50 from the first invoice; of the two invoices of 3023.43 paid at 25.10 in parts, 13.66
    // (received Σ round(part × 25.10) = 3037.09) and 13.67 (2 × 1518.55 = 3037.10)
    expect(acc('663')).toMatchObject({ debit: 0, credit: 87.83 });
    expect(acc('563')).toMatchObject({ debit: 121, credit: 0 });
  });
});
