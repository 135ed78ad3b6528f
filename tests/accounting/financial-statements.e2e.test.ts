import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { billBody, VAT21 } from '../purchase/fixtures.js';
import { secondOrganisation } from '../finance/support.js';

/*
 * The profit and loss account and the balance sheet (decision 167) of a company's first months
 * on the platform, read from the ledger its documents and journal entries built:
 *   2026-01-01 opening (journal)   Dr 221 100 000, Dr 022 60 000 / Cr 411 150 000, Cr 461 10 000
 *   2026-03-10 invoice 1000 + 21 % Dr 311 1 210 / Cr 604 1 000, Cr 343 210
 *   2026-03-15 bill (fixture)      Dr 504 250 (200 + 50), Dr 343 48 (42 + 6) / Cr 321 298
 *   2026-03-31 depreciation        Dr 551 1 000 / Cr 082 1 000
 *   2026-04-15 invoice 500 + 21 %  (after March: in the year's figures only)
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'accounting'] });
  const post = async (path: string, json: unknown) => ok(await stack.api(path, { method: 'POST', json }));
  const customer = { id: 7001, business_name: 'Odběratel s.r.o.', vat_no: 'CZ11223344', address: { country: 'CZ' } };
  const invoice = (date: string, rate: number) => ({ customer, currency: 'CZK', date_issued: date, date_due: '2026-12-31', items: [{ title: 'Consulting', qty: 1, rate, taxes: [VAT21] }] });
  await post('/v1/accounting/journal-entries', {
    date_posting: '2026-01-01',
    description: 'Opening balances',
    lines: [
      { account_number: '221', debit: 100000 },
      { account_number: '022', debit: 60000 },
      { account_number: '411', credit: 150000 },
      { account_number: '461', credit: 10000 },
    ],
  });
  await post('/v1/sales/invoices', invoice('2026-03-10', 1000));
  await post('/v1/purchase/bills', billBody());
  await post('/v1/accounting/journal-entries', { date_posting: '2026-03-31', description: 'Depreciation Q1', lines: [{ account_number: '551', debit: 1000 }, { account_number: '082', credit: 1000 }] });
  await post('/v1/sales/invoices', invoice('2026-04-15', 500));
  // the documents reach the ledger through its consumers
  await eventually(async () => (await ok(await stack.api('/v1/accounting/transactions?take=0'))).total === 5, 15_000);
}, 90_000);
afterAll(async () => stack?.close());

const get = (path: string, lang?: string, key?: string) => stack.api(path, { key, headers: lang ? { 'accept-language': lang } : {} });
const lines = (section: any) => section.lines.map((l: any) => [l.gl_account.number, l.amount]);

describe('financial statements from the ledger (decision 167)', () => {
  it('the profit and loss account of the first quarter: revenue, expenses and the profit, per account', async () => {
    const pl = await ok(await get('/v1/reporting/financial/profit-and-loss?date_from=2026-01-01&date_to=2026-03-31'));
    expect(pl).toMatchObject({ currency: 'CZK', date_from: '2026-01-01', date_to: '2026-03-31', closed: false });
    expect(lines(pl.revenue)).toEqual([['604', 1000]]);
    expect(pl.revenue.total).toBe(1000);
    expect(lines(pl.expenses)).toEqual([
      ['504', 250],
      ['551', 1000],
    ]);
    expect(pl.expenses.total).toBe(1250);
    expect(pl.profit).toBe(-250);
    expect(pl.revenue.lines[0].gl_account.name).toBe('Revenue from goods');
    const year = await ok(await get('/v1/reporting/financial/profit-and-loss?date_from=2026-01-01&date_to=2026-12-31', 'cs-CZ'));
    expect(lines(year.revenue)).toEqual([['604', 1500]]);
    expect(year.profit).toBe(250);
    expect(year.expenses.lines.find((l: any) => l.gl_account.number === '551').gl_account.name).toBe('Odpisy dlouhodobého nehmotného a hmotného majetku');
  });

  it('the balance sheet at the end of March balances: assets = liabilities + equity + the result', async () => {
    const bs = await ok(await get('/v1/reporting/financial/balance-sheet?as_of=2026-03-31'));
    expect(bs).toMatchObject({ currency: 'CZK', as_of: '2026-03-31', closed: false });
    expect(lines(bs.assets)).toEqual([
      ['022', 60000],
      ['082', -1000],
      ['221', 100000],
      ['311', 1210],
    ]);
    // VAT: 210 due − 48 to reclaim
    expect(lines(bs.liabilities)).toEqual([
      ['321', 298],
      ['343', 162],
      ['461', 10000],
    ]);
    expect(lines(bs.equity)).toEqual([['411', 150000]]);
    expect(bs.result).toBe(-250);
    // everything was posted this year
    expect(bs).toMatchObject({ result_of_year: -250, result_of_earlier_years: 0 });
    expect(bs.total_assets).toBe(160210);
    expect(bs.total_liabilities_and_equity).toBe(160210);
    // before anything was posted: nothing, and still balanced
    const before = await ok(await get('/v1/reporting/financial/balance-sheet?as_of=2025-12-31'));
    expect(before).toMatchObject({ assets: { lines: [], total: 0 }, liabilities: { lines: [], total: 0 }, equity: { lines: [], total: 0 }, result: 0, total_assets: 0, total_liabilities_and_equity: 0 });
  });

  it("the ledger of an account: the balance before the period, each posting with the balance after it, paged", async () => {
    const vat = await ok(await get(`/v1/reporting/financial/account-ledger?account_number=343&date_from=2026-01-01&date_to=2026-12-31`));
    expect(vat).toMatchObject({ currency: 'CZK', account_number: '343', opening_balance: 0, debit: 48, credit: 315, closing_balance: -267, total: 3, from: 0, take: 500 });
    expect(vat.lines.map((l: any) => [l.date_posting, l.type, l.debit, l.credit, l.balance])).toEqual([
      ['2026-03-10', 'sales_invoice', 0, 210, -210],
      ['2026-03-15', 'purchase_bill', 48, 0, -162],
      ['2026-04-15', 'sales_invoice', 0, 105, -267],
    ]);
    expect(vat.lines[0]).toMatchObject({ gl_account: { number: '343', name: 'Value added tax' }, source: { type: 'sales_invoice', version: 1 }, no: expect.any(String), transaction_id: expect.any(Number) });
    // from the middle of March: what came before is the opening balance; a page carries the running balance
    const later = await ok(await get(`/v1/reporting/financial/account-ledger?account_number=343&date_from=2026-03-12&date_to=2026-12-31&from=1&take=1`));
    expect(later).toMatchObject({ opening_balance: -210, debit: 48, credit: 105, closing_balance: -267, total: 2 });
    expect(later.lines.map((l: any) => [l.date_posting, l.balance])).toEqual([['2026-04-15', -267]]);
    const counted = await ok(await get(`/v1/reporting/financial/account-ledger?account_number=343&date_from=2026-01-01&date_to=2026-12-31&take=0`));
    expect(counted).toMatchObject({ total: 3, lines: [] });
    // a range of accounts: every expense account, one running balance
    const expenses = await ok(await get(`/v1/reporting/financial/account-ledger?account_number=${encodeURIComponent('[5;6]')}&date_from=2026-01-01&date_to=2026-12-31`, 'cs'));
    expect(expenses.lines.map((l: any) => [l.gl_account.number, l.type, l.debit, l.balance])).toEqual([
      ['504', 'purchase_bill', 250, 250],
      ['551', 'journal_entry', 1000, 1250],
    ]);
    expect(expenses.lines[1]).toMatchObject({ description: 'Depreciation Q1', no: expect.stringMatching(/^JE-2026-/) });
    // an account nothing was posted to, and the opening of one that moved before
    expect(await ok(await get(`/v1/reporting/financial/account-ledger?account_number=999&date_from=2026-01-01&date_to=2026-12-31`))).toMatchObject({ opening_balance: 0, closing_balance: 0, total: 0, lines: [] });
    expect(await ok(await get(`/v1/reporting/financial/account-ledger?account_number=221&date_from=2026-02-01&date_to=2026-02-28`))).toMatchObject({ opening_balance: 100000, closing_balance: 100000, total: 0 });
    for (const query of ['date_from=2026-01-01&date_to=2026-12-31', 'account_number=343&date_from=2026-12-31&date_to=2026-01-01', 'account_number=[6;5]&date_from=2026-01-01&date_to=2026-12-31', 'account_number=343&date_from=2026-01-01&date_to=2026-12-31&take=1001']) {
      await expectProblem(await get(`/v1/reporting/financial/account-ledger?${query}`), 400);
    }
  });

  it("pages an account's ledger by cursor: the lines and running balances of the pages by offset; a cursor continues only its own account, period and organisation", async () => {
    const all = `account_number=${encodeURIComponent('[0;9]')}&date_from=2026-01-01&date_to=2026-12-31`;
    const whole = await ok(await get(`/v1/reporting/financial/account-ledger?${all}`));
    expect(whole.total).toBeGreaterThan(6);
    expect(whole).toMatchObject({ total_exact: true, next_cursor: null, from: 0 });
    // one line a page, several entries on one day and several rows of one entry among them
    const walked: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await ok(await get(`/v1/reporting/financial/account-ledger?${all}&take=1${cursor ? `&cursor=${cursor}` : ''}`));
      expect(page).toMatchObject({ total: whole.total, opening_balance: whole.opening_balance, closing_balance: whole.closing_balance, from: 0, take: 1 });
      walked.push(...page.lines);
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages <= whole.total);
    expect(pages).toBe(whole.total);
    expect(walked).toEqual(whole.lines);
    expect(walked.at(-1).balance).toBe(whole.closing_balance);
    // by offset, the same; an offset page answers a cursor to the page after it too
    const third = await ok(await get(`/v1/reporting/financial/account-ledger?${all}&take=2&from=2`));
    expect(third.lines).toEqual(whole.lines.slice(2, 4));
    const fourth = await ok(await get(`/v1/reporting/financial/account-ledger?${all}&take=2&cursor=${third.next_cursor}`));
    expect(fourth.lines).toEqual(whole.lines.slice(4, 6));

    // a cursor of another account, period or organisation, a forged or garbled one, or one with from: 400, nothing read
    const first = await ok(await get(`/v1/reporting/financial/account-ledger?${all}&take=1`));
    const other = await secondOrganisation(stack, 'Cursor thief');
    const forge = (v: string[]) => Buffer.from(JSON.stringify({ o: ['date_posting', 'transaction_id', 'ord'], f: JSON.parse(Buffer.from(first.next_cursor, 'base64url').toString()).f, v })).toString('base64url');
    const forged = forge(['2026-01-01', "1' or 1=1", '1']);
    // a cursor naming a line past the period (made by hand, its digest right) is an empty last page
    expect(await ok(await get(`/v1/reporting/financial/account-ledger?${all}&cursor=${forge(['2099-01-01', '1', '1'])}`))).toMatchObject({ lines: [], next_cursor: null, total: whole.total });
    for (const [query, key] of [
      [`account_number=343&date_from=2026-01-01&date_to=2026-12-31&cursor=${first.next_cursor}`, undefined],
      [`${all.replace('2026-12-31', '2026-12-30')}&cursor=${first.next_cursor}`, undefined],
      [`${all}&cursor=${first.next_cursor}`, other.key],
      [`${all}&cursor=${first.next_cursor}&from=1`, undefined],
      [`${all}&cursor=${forged}`, undefined],
      [`${all}&cursor=${forge(['2026-02-30', '1', '1'])}`, undefined],
      [`${all}&cursor=${forge(['2026-01-01', '1', '99999999999'])}`, undefined],
      [`${all}&cursor=bm90IGEgY3Vyc29y`, undefined],
    ] as const) {
      await expectProblem(await get(`/v1/reporting/financial/account-ledger?${query}`, undefined, key), 400, 'invalid_cursor');
    }
  });

  it('says when the figures are final (the books closed through the day)', async () => {
    await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: '2026-03-31' } }));
    await eventually(async () => (await ok(await get('/v1/reporting/financial/balance-sheet?as_of=2026-03-31'))).closed === true, 10_000);
    expect((await ok(await get('/v1/reporting/financial/profit-and-loss?date_from=2026-01-01&date_to=2026-03-31'))).closed).toBe(true);
    expect((await ok(await get('/v1/reporting/financial/profit-and-loss?date_from=2026-01-01&date_to=2026-04-30'))).closed).toBe(false);
    await ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: null } }));
  });

  it('refuses malformed periods, answers another organisation its own (empty) books, and asks for accounting:read', async () => {
    const reversed = await expectProblem(await get('/v1/reporting/financial/profit-and-loss?date_from=2026-03-31&date_to=2026-01-01'), 400);
    expect(reversed.errors).toEqual([expect.objectContaining({ path: 'date_to', code: 'range_reversed' })]);
    await expectProblem(await get('/v1/reporting/financial/profit-and-loss?date_from=2026-01-01'), 400);
    await expectProblem(await get('/v1/reporting/financial/balance-sheet?as_of=2026-02-30'), 400);
    await expectProblem(await get('/v1/reporting/financial/balance-sheet'), 400);
    await expectProblem(await get('/v1/reporting/financial/balance-sheet?as_of=2026-03-31&extra=1'), 400);
    const other = await secondOrganisation(stack);
    const theirs = await ok(await get('/v1/reporting/financial/balance-sheet?as_of=2026-12-31', undefined, other.key));
    expect(theirs).toMatchObject({ total_assets: 0, assets: { lines: [] } });
    const salesOnly = await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'sales', scopes: ['sales:read'] } }));
    await expectProblem(await get('/v1/reporting/financial/balance-sheet?as_of=2026-03-31', undefined, salesOnly.key), 403);
  });
});
