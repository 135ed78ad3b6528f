import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectProblem } from '../support/assertions.js';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { secondOrganisation } from '../finance/support.js';
import { CUSTOMER, invoiceBody } from '../sales/helpers.js';
import { billBody } from '../purchase/fixtures.js';

/*
 * The document lists and the ledger page by cursor through the gateway (decision 213): following
 * next_cursor answers every record once, in the list's order and with its filters; a cursor
 * continues only the list (filters, sort, organisation) it came from, and nothing else, with a
 * 400 problem; the invoice list filters by customer; every keyset list says whether its total was
 * counted.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

const ok = expectOk;
const get = (path: string, key?: string) => stack.api(path, { key });

/** Every page of a list by its cursor, each page's size checked against `take`. */
async function followAll(path: string, take: number, key?: string): Promise<{ ids: number[]; pages: number; totals: number[] }> {
  const ids: number[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await ok(await get(`${path}${sep}take=${take}${cursor ? `&cursor=${cursor}` : ''}`, key));
    pages++;
    expect(page).toMatchObject({ from: 0, take, total_exact: true });
    totals.push(page.total);
    ids.push(...page.entities.map((e: { id: number }) => e.id));
    if (page.next_cursor) expect(page.entities).toHaveLength(take);
    cursor = page.next_cursor;
  } while (cursor && pages < 100);
  return { ids, pages, totals };
}

describe('lists paged by cursor', () => {
  const created: Array<{ id: number; customer: number; day: string }> = [];
  beforeAll(async () => {
    // 11 invoices over four days for two customers; ids and days in different orders
    for (let i = 0; i < 11; i++) {
      const customer = i % 3 === 0 ? 777 : 501;
      const day = `2026-03-0${1 + ((i * 5) % 4)}`;
      const inv = await ok(await stack.api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ date_issued: day, customer: { ...CUSTOMER, id: customer } }) }));
      created.push({ id: inv.id, customer, day });
    }
  });

  it('walks the invoice list newest first, by date and by customer, each record once', async () => {
    const all = await followAll('/v1/sales/invoices', 4);
    expect(all.ids).toEqual(created.map((c) => c.id).sort((a, b) => b - a));
    expect(all.pages).toBe(3);
    expect(new Set(all.totals)).toEqual(new Set([11]));

    const byDay = await followAll('/v1/sales/invoices?sort=date_issued', 3);
    const expected = [...created].sort((a, b) => (a.day === b.day ? a.id - b.id : a.day < b.day ? -1 : 1)).map((c) => c.id);
    expect(byDay.ids).toEqual(expected);

    const customer = await followAll('/v1/sales/invoices?customer_id=777&sort=-date_issued', 2);
    const mine = created.filter((c) => c.customer === 777);
    expect(customer.ids.sort()).toEqual(mine.map((c) => c.id).sort());
    expect(customer.totals[0]).toBe(mine.length);
    const dates = (await ok(await get('/v1/sales/invoices?customer_id=777&sort=-date_issued&take=100'))).entities.map((e: { date_issued: string }) => e.date_issued);
    expect(dates).toEqual([...dates].sort().reverse());
    expect((await ok(await get('/v1/sales/invoices?customer_id=999999'))).total).toBe(0);

    const oneDay = await followAll('/v1/sales/invoices?date_issued=2026-03-02', 1);
    expect(oneDay.ids).toEqual(created.filter((c) => c.day === '2026-03-02').map((c) => c.id).sort((a, b) => b - a));
  });

  it('answers the offset page as before, and both ways agree', async () => {
    const byOffset = await ok(await get('/v1/sales/invoices?take=4&from=4'));
    const first = await ok(await get('/v1/sales/invoices?take=4'));
    const second = await ok(await get(`/v1/sales/invoices?take=4&cursor=${first.next_cursor}`));
    expect(second.entities.map((e: { id: number }) => e.id)).toEqual(byOffset.entities.map((e: { id: number }) => e.id));
    expect(byOffset).toMatchObject({ from: 4, total: 11, total_exact: true, next_cursor: expect.any(String) });
    expect((await ok(await get('/v1/sales/invoices?take=11'))).next_cursor).toBeNull();
    expect((await ok(await get('/v1/sales/invoices?take=0'))).next_cursor).toBeNull();
  });

  it('refuses a cursor of other filters, another sort, another organisation, with from, or forged: 400 invalid_cursor, nothing else answered', async () => {
    const first = await ok(await get('/v1/sales/invoices?take=2&customer_id=501'));
    const cursor = first.next_cursor as string;
    const refused = async (path: string, key?: string) => {
      const problem = await expectProblem(await get(path, key), 400, 'invalid_cursor');
      expect(problem.errors?.[0]).toMatchObject({ path: 'cursor', code: 'invalid_cursor' });
      return problem;
    };
    expect((await refused(`/v1/sales/invoices?take=2&customer_id=777&cursor=${cursor}`)).detail).toMatch(/other filters/);
    expect((await refused(`/v1/sales/invoices?take=2&customer_id=501&sort=no&cursor=${cursor}`)).detail).toMatch(/another sort/);
    expect((await refused(`/v1/sales/invoices?take=2&customer_id=501&from=2&cursor=${cursor}`)).detail).toMatch(/from/);
    // a credit-note list is another list, though its rows live in the same table
    await refused(`/v1/sales/credit-notes?take=2&customer_id=501&cursor=${cursor}`);
    const other = await secondOrganisation(stack, 'Cursor thief');
    await refused(`/v1/sales/invoices?take=2&customer_id=501&cursor=${cursor}`, other.key);
    const content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    for (const v of [['x'], ['12', '13'], [1.5], ['\u0000'], ['9'.repeat(600)]]) {
      await refused(`/v1/sales/invoices?take=2&customer_id=501&cursor=${Buffer.from(JSON.stringify({ ...content, v })).toString('base64url')}`);
    }
    await refused('/v1/sales/invoices?cursor=bm9wZQ');
    // not a cursor's characters at all, or too long: the query's own validation
    await expectProblem(await get('/v1/sales/invoices?cursor=a%20b'), 400);
    await expectProblem(await get(`/v1/sales/invoices?cursor=${'a'.repeat(3000)}`), 400);
    await expectProblem(await get('/v1/sales/invoices?exact_total=maybe'), 400);
    expect((await ok(await get('/v1/sales/invoices?exact_total=true&take=1'))).total).toBe(11);
  });

  it('walks the ledger, journal entries, bills, bank transactions and payouts by cursor', async () => {
    await ok(await stack.api('/v1/purchase/bills', { method: 'POST', json: billBody() }));
    await ok(await stack.api('/v1/purchase/bills', { method: 'POST', json: billBody({ vendor_doc_no: 'ACME-2' }) }));
    for (let i = 0; i < 3; i++) {
      await ok(await stack.api('/v1/finance/bank/transactions', { method: 'POST', json: { amount: 100 + i, currency: 'CZK', date_transaction: '2026-03-10' } }));
      await ok(
        await stack.api('/v1/accounting/journal-entries', {
          method: 'POST',
          json: { date_posting: '2026-03-11', description: `Accrual ${i}`, lines: [{ account_number: '518', debit: 10 + i }, { account_number: '383', credit: 10 + i }] },
        }),
      );
    }
    // 11 invoices, 2 bills, 3 bank transactions and 3 journal entries in the ledger
    await eventually(async () => expect((await ok(await get('/v1/accounting/transactions?take=0'))).total).toBe(19));
    const ledger = await followAll('/v1/accounting/transactions', 5);
    const whole = (await ok(await get('/v1/accounting/transactions?take=100'))).entities.map((e: { id: number }) => e.id);
    expect(ledger.ids).toEqual(whole);
    expect(ledger.pages).toBe(4);
    const newest = await followAll('/v1/accounting/transactions?sort=-date_posting', 4);
    expect(newest.ids).toEqual((await ok(await get('/v1/accounting/transactions?take=100&sort=-date_posting'))).entities.map((e: { id: number }) => e.id));
    expect((await followAll('/v1/accounting/journal-entries', 2)).ids).toHaveLength(3);
    expect((await followAll('/v1/purchase/bills', 1)).ids).toHaveLength(2);
    expect((await followAll('/v1/finance/bank/transactions', 2)).ids).toHaveLength(3);
    expect(await ok(await get('/v1/finance/payouts'))).toMatchObject({ total: 0, total_exact: true, next_cursor: null, entities: [] });
    expect(await ok(await get('/v1/purchase/vendor-credits'))).toMatchObject({ total: 0, total_exact: true, next_cursor: null });
  });
});
