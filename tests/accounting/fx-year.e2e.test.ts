import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { billBody, VAT21 } from '../purchase/fixtures.js';
import { secondOrganisation } from '../finance/support.js';
import { checkLedger } from '../../apps/accounting/src/events/rebuild.js';
import { mt940File } from '../../apps/finance/src/domain/statements/statement-files.fixtures.js';

/*
 * A year of a Czech company (books in CZK) with an EUR bank account, through the gateway (issue
 * 56): the CNB's fixings imported, EUR invoices and a bill posted without rates (each takes the
 * rate in force on its tax point date), the EUR account's MT940 statement imported (each entry at
 * its booking day's rate; the invoice it pays cleared at the invoice's rate, the difference a
 * realised loss on 563), the year-end revaluation of what is still open (receivable, payable, the
 * EUR balance) and its reversal on 1 January, and the profit and loss account, the balance sheet
 * and the VAT return to the cent. Then the same for a company keeping its books in EUR with a USD
 * invoice, at the ECB's rates.
 *
 * The CNB file of 21 September 2022 is the fixing as published. The fixings of 5 October and
 * 30 December are that same file with its header and the EUR and USD lines changed (values chosen
 * for the test), so that the year has three rates.
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/fx');
const CNB_0921 = readFileSync(path.join(FIXTURES, 'cnb-2022-09-21.txt'), 'utf8');
const ECB_0611 = readFileSync(path.join(FIXTURES, 'ecb-eurofxref-2024-06-11.xml'), 'utf8');
const cnbDay = (header: string, eur: string, usd: string) =>
  CNB_0921.replace('21.09.2022 #184', header).replace('|EUR|24,635', `|EUR|${eur}`).replace('|USD|24,870', `|USD|${usd}`);
const CNB_1005 = cnbDay('05.10.2022 #193', '24,530', '24,780');
const CNB_1230 = cnbDay('30.12.2022 #251', '24,115', '22,645');

const EUR_ACCOUNT = 'CZ6503000000000192000145';
const CUSTOMER = { id: 5601, business_name: 'Euro Kunde GmbH', vat_no: 'DE123456789', address: { country: 'CZ' } };

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting', 'settings'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (p: string, json: unknown, key?: string) => ok(await stack.api(p, { method: 'POST', json, key }));
const get = async (p: string, key?: string) => ok(await stack.api(p, { key }));
const importRates = (body: string, type: string, key?: string) => stack.api('/v1/settings/exchange-rates/import', { method: 'POST', body, key, headers: { 'content-type': type } });
const lines = (section: any) => section.lines.map((l: any) => [l.gl_account.number, l.amount]);
const vsOf = (no: string) => no.replace(/\D/g, '').slice(-10);
const summary = (t: any) => t.rows.map((r: any) => (r.debit ? `Dr ${r.gl_account.number} ${r.debit.toFixed(2)}` : `Cr ${r.gl_account.number} ${r.credit.toFixed(2)}`)).sort();
const ledgerCount = async (key?: string) => (await get('/v1/accounting/transactions?take=0', key)).total as number;

describe('a CZK company with an EUR account through 2022 (CNB rates)', () => {
  let invoiceSeptember: any;
  let invoiceOctober: any;
  let bill: any;

  it('imports the CNB fixings of three days', async () => {
    for (const file of [CNB_0921, CNB_1005, CNB_1230]) expect((await ok(await importRates(file, 'text/plain; charset=utf-8'))).source).toBe('cnb');
    expect((await get('/v1/settings/exchange-rates?currency=EUR&date=2022-12-31')).entities[0]).toMatchObject({ rate: 24.115, rate_date: '2022-12-30' });
  });

  it('an EUR invoice and bill without rates take the rate in force on their tax point date', async () => {
    // Thursday 22 September: no fixing that day, Wednesday's is in force
    invoiceSeptember = await post('/v1/sales/invoices', {
      customer: CUSTOMER,
      currency: 'EUR',
      date_issued: '2022-09-22',
      date_due: '2022-10-06',
      items: [{ title: 'Consulting', qty: 1, rate: 1000, taxes: [VAT21] }],
    });
    expect(invoiceSeptember).toMatchObject({
      total_amount: 1210,
      fx_rate: 24.635,
      currency_coef: 1,
      fx_rate_date: '2022-09-21',
      fx_rate_source: 'cnb',
      subtotal_amount_leg: 24635,
      tax_amount_leg: 5173.35,
      total_amount_leg: 29808.35,
    });
    // the tax point date, not the issue date, picks the rate
    invoiceOctober = await post('/v1/sales/invoices', {
      customer: CUSTOMER,
      currency: 'EUR',
      date_issued: '2022-10-10',
      date_taxable: '2022-10-06',
      date_due: '2022-11-30',
      items: [{ title: 'Consulting', qty: 1, rate: 200, taxes: [VAT21] }],
    });
    expect(invoiceOctober).toMatchObject({ fx_rate: 24.53, fx_rate_date: '2022-10-05', fx_rate_source: 'cnb', total_amount_leg: 5936.26 });
    bill = await post(
      '/v1/purchase/bills',
      billBody({ currency: 'EUR', date_issued: '2022-09-23', date_due: '2023-01-31', vendor_doc_no: 'EU-2022-77', items: [{ description: 'Licence', qty: 1, rate: 500, taxes: [VAT21] }] }),
    );
    expect(bill).toMatchObject({ total_amount: 605, tax_fx_rate: 24.635, fx_rate_date: '2022-09-21', fx_rate_source: 'cnb' });
    // a stated rate still wins, and says so (dated after the year, which stays as it is)
    const stated = await post('/v1/sales/invoices', {
      customer: CUSTOMER,
      currency: 'EUR',
      fx_rate: 25,
      date_issued: '2023-02-01',
      items: [{ title: 'Stated', qty: 1, rate: 10, taxes: [VAT21] }],
    });
    expect(stated).toMatchObject({ fx_rate: 25, fx_rate_date: null, fx_rate_source: 'stated', total_amount_leg: 302.5 });
  });

  it('without a rate in the table: 422 naming the currency and the day, and nothing is posted', async () => {
    // the three invoices and the bill are in the ledger
    const before = await eventually(async () => ((await ledgerCount()) === 4 ? 4 : null), 15_000);
    const problem = await expectProblem(
      await stack.api('/v1/sales/invoices', { method: 'POST', json: { customer: CUSTOMER, currency: 'EUR', date_issued: '2022-09-20', items: [{ title: 'x', qty: 1, rate: 1, taxes: [VAT21] }] } }),
      422,
      'fx_rate_required',
    );
    expect(problem.detail).toContain('No EUR rate to CZK in force on 2022-09-20');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'fx_rate', code: 'fx_rate_required' })]);
    const bill422 = await expectProblem(
      await stack.api('/v1/purchase/bills', { method: 'POST', json: billBody({ currency: 'USD', date_issued: '2022-09-20', vendor_doc_no: 'US-1' }) }),
      422,
      'fx_rate_required',
    );
    expect(bill422.errors).toEqual([expect.objectContaining({ path: 'tax_fx_rate' })]);
    expect(await ledgerCount()).toBe(before);
  });

  it("imports the EUR account's MT940 statement: each entry at its booking day's rate, the invoice cleared at its own and the difference to 563", async () => {
    const file = mt940File([
      {
        account: EUR_ACCOUNT,
        number: '41',
        currency: 'EUR',
        opening: '0.00',
        closing: '1205.00',
        from: '2022-10-05',
        to: '2022-10-05',
        movements: [
          { amount: '1210.00', vs: vsOf(invoiceSeptember.no), name: 'Euro Kunde GmbH', counterAccount: 'DE89370400440532013000', message: `Rechnung ${invoiceSeptember.no}`, date: '2022-10-05' },
          { amount: '-5.00', fee: true, message: 'Kontoführung', date: '2022-10-05' },
        ],
      },
    ]);
    const res = await stack.api('/v1/finance/bank/statements', { method: 'POST', body: file, headers: { 'content-type': 'text/plain' } });
    const [statement] = (await ok(res)).statements;
    expect(statement.entries.map((e: any) => [e.status, e.matched_by])).toEqual([
      ['matched', 'variable_symbol'],
      ['fee', null],
    ]);
    const [paid, fee] = statement.entries.map((e: any) => e.transaction);
    expect(paid).toMatchObject({ currency: 'EUR', fx_rate: 24.53, fx_rate_source: 'cnb', fx_rate_date: '2022-10-05', amount_leg: 29681.3, settlement_amount_leg: 29808.35 });
    expect(fee).toMatchObject({ fx_rate: 24.53, fx_rate_source: 'cnb', amount_leg: -122.65 });
    const entryOf = (id: number) =>
      eventually(async () => (await get(`/v1/accounting/transactions?source_type=bank_transaction&source_id=${id}`)).entities[0], 15_000);
    expect(summary(await entryOf(paid.id))).toEqual(['Cr 311 29808.35', 'Dr 221 29681.30', 'Dr 563 127.05']);
    expect(summary(await entryOf(fee.id))).toEqual(['Cr 221 122.65', 'Dr 568 122.65']);
    expect((await get(`/v1/sales/invoices/${invoiceSeptember.id}`)).payment_status).toBe('paid');
  });

  it('revalues what is open on 31 December at that day’s rate: one entry on the day, reversed on 1 January; asked again, the same', async () => {
    await eventually(async () => (await ledgerCount()) === 6, 15_000);
    const revaluation = await post('/v1/accounting/fx-revaluations', { date: '2022-12-31' });
    expect(revaluation).toMatchObject({ date: '2022-12-31', currency: 'CZK', gain: 314.6, loss: 600.5 });
    expect(revaluation.lines.map((l: any) => [l.kind, l.document?.no ?? l.account_number, l.gl_account, l.amount, l.rate, l.rate_date, l.booked, l.revalued, l.result])).toEqual([
      ['receivable', invoiceOctober.no, '311', 242, 24.115, '2022-12-30', 5936.26, 5835.83, -100.43],
      ['payable', bill.no, '321', 605, 24.115, '2022-12-30', 14904.18, 14589.58, 314.6],
      ['bank', EUR_ACCOUNT, '221', 1205, 24.115, '2022-12-30', 29558.65, 29058.58, -500.07],
    ]);
    const entry = await get(`/v1/accounting/journal-entries/${revaluation.journal_entry.id}`);
    expect(entry).toMatchObject({ kind: 'fx_revaluation', date_posting: '2022-12-31', total: 915.1, reversed_by: revaluation.reversed_by });
    expect(entry.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['311', 0, 100.43],
      ['321', 314.6, 0],
      ['221', 0, 500.07],
      ['563', 600.5, 0],
      ['663', 0, 314.6],
    ]);
    const reversal = await get(`/v1/accounting/journal-entries/${revaluation.reversed_by.id}`);
    expect(reversal).toMatchObject({ kind: 'fx_revaluation', date_posting: '2023-01-01', reverses: revaluation.journal_entry });
    expect(reversal.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['311', 100.43, 0],
      ['321', 0, 314.6],
      ['221', 500.07, 0],
      ['563', 0, 600.5],
      ['663', 314.6, 0],
    ]);
    const count = await ledgerCount();
    expect(await post('/v1/accounting/fx-revaluations', { date: '2022-12-31' })).toEqual(revaluation);
    // an earlier day once a later one is revalued would post out of order
    await expectProblem(await stack.api('/v1/accounting/fx-revaluations', { method: 'POST', json: { date: '2022-11-30' } }), 409, 'later_revaluation_exists');
    expect(await ledgerCount()).toBe(count);
  });

  it('the profit and loss account, the balance sheet and the VAT returns of 2022 to the cent', async () => {
    const pl = await get('/v1/reporting/financial/profit-and-loss?date_from=2022-01-01&date_to=2022-12-31');
    expect(lines(pl.revenue)).toEqual([
      ['604', 29541],
      ['663', 314.6],
    ]);
    expect(lines(pl.expenses)).toEqual([
      ['504', 12317.5],
      ['563', 727.55],
      ['568', 122.65],
    ]);
    expect(pl.profit).toBe(16687.9);
    const bs = await get('/v1/reporting/financial/balance-sheet?as_of=2022-12-31');
    expect(lines(bs.assets)).toEqual([
      ['221', 29058.58],
      ['311', 5835.83],
    ]);
    expect(lines(bs.liabilities)).toEqual([
      ['321', 14589.58],
      ['343', 3616.93],
    ]);
    expect(bs).toMatchObject({ result: 16687.9, total_assets: 34894.41, total_liabilities_and_equity: 34894.41 });
    // the revaluation is reversed on 1 January: the items stand at their own rates again
    const january = await get('/v1/reporting/financial/balance-sheet?as_of=2023-01-01');
    expect(lines(january.assets)).toEqual([
      ['221', 29558.65],
      ['311', 5936.26],
    ]);
    expect(lines(january.liabilities)).toEqual([
      ['321', 14904.18],
      ['343', 3616.93],
    ]);
    const september = await get('/v1/reporting/tax/vat-return?date_from=2022-09-01&date_to=2022-09-30');
    expect(september).toMatchObject({ output_tax: 5173.35, deductible_tax: 2586.68, tax_due: 2586.67 });
    expect((await get('/v1/reporting/tax/vat-return?date_from=2022-10-01&date_to=2022-10-31')).output_tax).toBe(1030.26);
  });

  it('a rebuild replays the year exactly as it was posted', async () => {
    const svc = stack.services.accounting!;
    const opts = { legalCurrency: 'CZK', orgCountry: 'CZ' };
    const check = await eventually(async () => {
      const c = await checkLedger(svc.deps.orm, svc.deps.bus, 1, opts);
      return c.missing.length === 0 && c.events === c.transactions ? c : null;
    }, 15_000);
    expect(check).toMatchObject({ missing: [], extra: [], changed: [], unpostable: [] });
  });
});

describe('a company keeping its books in EUR with a USD invoice (ECB rates)', () => {
  const USD_ACCOUNT = 'DE02100100109307118603';
  const ecbDay = (day: string, usd: string) => ECB_0611.replace("time='2024-06-11'", `time='${day}'`).replace("currency='USD' rate='1.0765'", `currency='USD' rate='${usd}'`);
  let key: string;
  let invoice: any;

  it('imports the ECB reference rates (turned round into EUR per unit); a CNB file is refused for EUR books', async () => {
    ({ key } = await secondOrganisation(stack, 'Euro GmbH', { country: 'DE', currency: 'EUR' }));
    for (const file of [ECB_0611, ecbDay('2024-06-14', '1.0700'), ecbDay('2024-06-28', '1.0705')]) {
      expect(await ok(await importRates(file, 'application/xml', key))).toMatchObject({ source: 'ecb', base_currency: 'EUR', days: 1 });
    }
    await expectProblem(await importRates(CNB_0921, 'text/plain', key), 422, 'exchange_rate_base_mismatch');
    expect((await get('/v1/settings/exchange-rates?currency=USD&date=2024-06-12', key)).entities[0]).toMatchObject({ rate: 0.9289363679, amount: 1, source: 'ecb' });
  });

  it('a USD invoice without a rate takes the ECB rate of its day; half of it paid three days later at that day’s rate posts the gain to 663', async () => {
    invoice = await post(
      '/v1/sales/invoices',
      { customer: CUSTOMER, currency: 'USD', date_issued: '2024-06-11', date_due: '2024-07-11', items: [{ title: 'Licence', qty: 1, rate: 1000, taxes: [{ tax_code: 'S', tax_rate: 19 }] }] },
      key,
    );
    expect(invoice).toMatchObject({ fx_rate: 0.9289363679, fx_rate_date: '2024-06-11', fx_rate_source: 'ecb', subtotal_amount_leg: 928.94, tax_amount_leg: 176.5, total_amount_leg: 1105.44 });
    const payment = await post(
      '/v1/finance/bank/transactions',
      { account_number: USD_ACCOUNT, amount: 595, currency: 'USD', date_transaction: '2024-06-14', paid_record: { type: 'sales_invoice', id: invoice.id } },
      key,
    );
    expect(payment).toMatchObject({ fx_rate: 0.9345794393, fx_rate_source: 'ecb', fx_rate_date: '2024-06-14', amount_leg: 556.07, settlement_amount_leg: 552.72, legal_currency: 'EUR' });
    const entry = await eventually(async () => (await get(`/v1/accounting/transactions?source_type=bank_transaction&source_id=${payment.id}`, key)).entities[0], 15_000);
    expect(summary(entry)).toEqual(['Cr 311 552.72', 'Cr 663 3.35', 'Dr 221 556.07']);
  });

  it('revalues the open half and the USD balance at the end of June, and the P&L shows both differences', async () => {
    await eventually(async () => ((await ledgerCount(key)) === 2 ? true : null), 15_000);
    const revaluation = await post('/v1/accounting/fx-revaluations', { date: '2024-06-30' }, key);
    expect(revaluation).toMatchObject({ currency: 'EUR', gain: 3.1, loss: 0.25 });
    expect(revaluation.lines.map((l: any) => [l.kind, l.amount, l.rate, l.rate_date, l.rate_source, l.booked, l.revalued, l.result])).toEqual([
      ['receivable', 595, 0.9341429239, '2024-06-28', 'ecb', 552.72, 555.82, 3.1],
      ['bank', 595, 0.9341429239, '2024-06-28', 'ecb', 556.07, 555.82, -0.25],
    ]);
    const pl = await get('/v1/reporting/financial/profit-and-loss?date_from=2024-06-01&date_to=2024-06-30', key);
    expect(pl).toMatchObject({ currency: 'EUR' });
    expect(lines(pl.revenue)).toEqual([
      ['604', 928.94],
      ['663', 6.45],
    ]);
    expect(lines(pl.expenses)).toEqual([['563', 0.25]]);
    // the first organisation's books know nothing of it
    expect((await get('/v1/accounting/journal-entries?date_posting=2024-06-30')).total).toBe(0);
  });
});
