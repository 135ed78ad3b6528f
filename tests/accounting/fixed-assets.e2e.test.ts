import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { accountBalances, expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { PURCHASE_TYPE, VAT21 } from '../purchase/fixtures.js';

/*
 * Fixed assets through the gateway (issue 77, decision 240): a milling machine of 500 000 CZK put
 * into use in February 2026, depreciated in the books over 60 months and for tax in group 2; the
 * months posted as depreciation runs (Dr 551 / Cr 082), a month missed caught up, never twice; a
 * server bought on a bill booked to 042 and moved to 022 when put into use; the machine sold in
 * August; the year's tax against accounting depreciation.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['purchase', 'accounting'] });
}, 60_000);
afterAll(async () => stack?.close());

const post = async (p: string, json: unknown, key?: string) => ok(await stack.api(p, { method: 'POST', json, key }));
const get = async (p: string, key?: string) => ok(await stack.api(p, { key }));
const machine = (over: Record<string, unknown> = {}) => ({
  name: 'Frézka CNC FV-25',
  inventory_number: 'DM-2026-001',
  acquisition_cost: 500000,
  date_acquired: '2026-02-10',
  date_in_use: '2026-02-15',
  accounting_depreciation: { method: 'straight_line', months: 60 },
  tax_depreciation: { group: 2, method: 'straight_line' },
  ...over,
});
const balances = (range: string) => accountBalances(stack, range);
const depreciationEntries = async () => (await get('/v1/accounting/journal-entries?kind=depreciation&take=100')).entities;

describe('fixed assets (issue 77)', () => {
  let asset: any;
  let server: any;

  it('an asset answers its tax plan (§31) and its monthly accounting plan, the last month absorbing the rounding', async () => {
    // the machine's bill was booked straight to 022
    await post('/v1/accounting/journal-entries', { date_posting: '2026-02-10', description: 'Frézka CNC FV-25, vendor bill', lines: [{ account_number: '022', debit: 500000 }, { account_number: '321', credit: 500000 }] });
    asset = await post('/v1/accounting/assets', machine());
    expect(asset).toMatchObject({
      status: 'active',
      cost: 500000,
      accumulated_depreciation: 0,
      asset_account: '022',
      accumulated_account: '082',
      expense_account: '551',
      in_use_entry: null,
      disposal: null,
    });
    expect(asset.tax_plan.map((r: any) => [r.year, r.depreciation, r.residual])).toEqual([
      [2026, 55000, 445000],
      [2027, 111250, 333750],
      [2028, 111250, 222500],
      [2029, 111250, 111250],
      [2030, 111250, 0],
    ]);
    expect(asset.accounting_plan).toHaveLength(60);
    expect(asset.accounting_plan[0]).toEqual({ period: '2026-03', depreciation: 8333.33, accumulated: 8333.33, residual: 491666.67 });
    expect(asset.accounting_plan.at(-1)).toEqual({ period: '2031-02', depreciation: 8333.53, accumulated: 500000, residual: 0 });
    expect(await get(`/v1/accounting/assets/${asset.id}`)).toEqual(asset);
  });

  it('replaced while nothing is posted: accelerated (§32) instead', async () => {
    asset = await ok(await stack.api(`/v1/accounting/assets/${asset.id}`, { method: 'PUT', json: machine({ tax_depreciation: { group: 2, method: 'accelerated' } }) }));
    expect(asset.tax_plan.map((r: any) => r.depreciation)).toEqual([100000, 160000, 120000, 80000, 40000]);
  });

  it('a depreciation run posts the month once: Dr 551 / Cr 082; asked again it answers the same run; a missed month is caught up', async () => {
    const march = await post('/v1/accounting/depreciation-runs', { period: '2026-03' });
    expect(march).toMatchObject({ period: '2026-03', total: 8333.33, lines: [{ asset_id: asset.id, inventory_number: 'DM-2026-001', amount: 8333.33 }], journal_entry: { no: expect.stringMatching(/^JE-2026-/) } });
    expect(await post('/v1/accounting/depreciation-runs', { period: '2026-03' })).toEqual(march);
    const [entry] = await depreciationEntries();
    expect(entry).toMatchObject({ kind: 'depreciation', date_posting: '2026-03-31', total: 8333.33, reference: 'depreciation_run:2026-03' });
    expect(entry.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['551', 8333.33, 0],
      ['082', 0, 8333.33],
    ]);
    // April was never run: May's run catches it up
    const may = await post('/v1/accounting/depreciation-runs', { period: '2026-05' });
    expect(may.total).toBe(16666.66);
    expect(await depreciationEntries()).toHaveLength(2);
    await eventually(async () => {
      const b = await balances('[2026-01-01;2026-05-31]');
      return b['551'] === '24999.99' && b['082'] === '-24999.99';
    }, 10_000);
    expect((await get(`/v1/accounting/assets/${asset.id}`)).accumulated_depreciation).toBe(24999.99);
    // posted: it can no longer be replaced
    await expectProblem(await stack.api(`/v1/accounting/assets/${asset.id}`, { method: 'PUT', json: machine() }), 409, 'asset_posted');
    expect((await get('/v1/accounting/depreciation-runs')).entities.map((r: any) => r.period)).toEqual(['2026-05', '2026-03']);
  });

  it('an asset bought on a bill booked to 042 moves to 022 when put into use; the bill must cover it', async () => {
    const bill = await post('/v1/purchase/bills', {
      type: PURCHASE_TYPE,
      vendor: { business_name: 'Servery Praha s.r.o.', vat_no: 'CZ27082440' },
      currency: 'CZK',
      date_issued: '2026-06-01',
      date_due: '2026-06-15',
      items: [{ description: 'Server Dell R760', qty: 1, rate: 120000, taxes: [VAT21], gl_account: { number: '042' } }],
    });
    await eventually(async () => (await balances('[2026-06-01;2026-06-30]'))['042'] === '120000.00', 10_000);
    const body = {
      name: 'Server Dell R760',
      inventory_number: 'DM-2026-002',
      acquisition_cost: 120000,
      date_acquired: '2026-06-01',
      date_in_use: '2026-06-10',
      accounting_depreciation: { method: 'straight_line', months: 36 },
      tax_depreciation: { group: 1, method: 'straight_line' },
      bill_id: bill.id,
    };
    const tooMuch = await expectProblem(await stack.api('/v1/accounting/assets', { method: 'POST', json: { ...body, acquisition_cost: 150000 } }), 422, 'asset_bill_not_covering');
    expect(tooMuch.errors?.[0].path).toBe('bill_id');
    server = await post('/v1/accounting/assets', body);
    expect(server.in_use_entry).toEqual({ id: expect.any(Number), no: expect.stringMatching(/^JE-2026-/) });
    expect(server.tax_plan.map((r: any) => r.depreciation)).toEqual([24000, 48000, 48000]);
    const b = await balances('[2026-06-01;2026-06-30]');
    expect([b['042'], b['022']]).toEqual(['0.00', '120000.00']);
    // the bill is spent: a second asset from it is refused
    await expectProblem(await stack.api('/v1/accounting/assets', { method: 'POST', json: { ...body, inventory_number: 'DM-2026-003', acquisition_cost: 1 } }), 422, 'asset_bill_not_covering');
  });

  it('a sale clears the asset: the months not yet posted, 082 and 022 cleared, the book value to 541; the tax plan halves the year', async () => {
    const sold = await post(`/v1/accounting/assets/${asset.id}/dispose`, { date: '2026-08-20', kind: 'sale' });
    expect(sold).toMatchObject({ status: 'disposed', accumulated_depreciation: 41666.65, disposal: { date: '2026-08-20', kind: 'sale', residual: 458333.35, tax_residual: 450000 } });
    // accelerated, group 2: half of the first year's 100 000
    expect(sold.tax_plan.map((r: any) => [r.year, r.depreciation, r.kind])).toEqual([[2026, 50000, 'disposal']]);
    expect(sold.accounting_plan.map((r: any) => r.period)).toEqual(['2026-03', '2026-04', '2026-05', '2026-06', '2026-07']);
    const entry = await get(`/v1/accounting/journal-entries/${sold.disposal.journal_entry.id}`);
    expect(entry.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['551', 16666.66, 0],
      ['082', 0, 16666.66],
      ['082', 41666.65, 0],
      ['541', 458333.35, 0],
      ['022', 0, 500000],
    ]);
    await expectProblem(await stack.api(`/v1/accounting/assets/${asset.id}/dispose`, { method: 'POST', json: { date: '2026-08-21', kind: 'scrapping' } }), 409, 'asset_disposed');
    // the disposed machine is no longer depreciated; the server starts in July
    const july = await post('/v1/accounting/depreciation-runs', { period: '2026-07' });
    expect(july.lines).toEqual([{ asset_id: server.id, inventory_number: 'DM-2026-002', amount: 3333.33 }]);
    const b = await balances('[2026-01-01;2026-12-31]');
    expect([b['022'], b['082'], b['541']]).toEqual(['120000.00', '-3333.33', '458333.35']);
  });

  it("the year's report: tax against accounting depreciation per asset and the difference", async () => {
    const report = await get('/v1/accounting/depreciation-report?year=2026');
    expect(report.rows).toEqual([
      { asset_id: asset.id, inventory_number: 'DM-2026-001', name: 'Frézka CNC FV-25', tax_depreciation: 50000, tax_residual_expensed: 450000, accounting_depreciation: 41666.65, accounting_residual_expensed: 458333.35, difference: 0 },
      { asset_id: server.id, inventory_number: 'DM-2026-002', name: 'Server Dell R760', tax_depreciation: 24000, tax_residual_expensed: 0, accounting_depreciation: 3333.33, accounting_residual_expensed: 0, difference: -20666.67 },
    ]);
    expect(report.totals).toEqual({ tax_depreciation: 74000, tax_residual_expensed: 450000, accounting_depreciation: 44999.98, accounting_residual_expensed: 458333.35, difference: -20666.67 });
  });

  it('a technical improvement raises the cost from the month after it; the tax plan from its year; an interrupted tax year claims nothing', async () => {
    // July is posted: an improvement cannot reach back before it
    await expectProblem(await stack.api(`/v1/accounting/assets/${server.id}/improvements`, { method: 'POST', json: { date: '2026-06-20', amount: 36000 } }), 422, 'asset_improvement_before_posted');
    const improved = await post(`/v1/accounting/assets/${server.id}/improvements`, { date: '2026-09-15', amount: 36000, description: 'Second CPU and 512 GB RAM' });
    expect(improved).toMatchObject({ cost: 156000, improvements: [{ date: '2026-09-15', amount: 36000, description: 'Second CPU and 512 GB RAM' }] });
    const plan = Object.fromEntries(improved.accounting_plan.map((r: any) => [r.period, r.depreciation]));
    expect([plan['2026-09'], plan['2026-10'], plan['2029-06']]).toEqual([3333.33, 4424.24, 4424.33]);
    expect(improved.accounting_plan.at(-1)).toMatchObject({ period: '2029-06', accumulated: 156000, residual: 0 });
    // in the first tax year the improvement raises the input price itself: 156 000 × 20 %, then 40 %
    expect(improved.tax_plan.map((r: any) => r.depreciation)).toEqual([31200, 62400, 62400]);
    const interrupted = await ok(await stack.api(`/v1/accounting/assets/${server.id}/tax-interruptions`, { method: 'PUT', json: { years: [2027] } }));
    expect(interrupted.tax_plan.map((r: any) => [r.year, r.depreciation, r.kind])).toEqual([
      [2026, 31200, 'depreciation'],
      [2027, 0, 'interrupted'],
      [2028, 62400, 'depreciation'],
      [2029, 62400, 'depreciation'],
    ]);
    // the books are not touched by either
    expect(interrupted.accumulated_depreciation).toBe(3333.33);
  });

  it('refusals: bad shapes 400, plans the law does not allow 422, a taken inventory number 409, nothing stored', async () => {
    const before = (await get('/v1/accounting/assets')).total;
    for (const body of [
      machine({ tax_depreciation: { group: 7, method: 'straight_line' } }),
      machine({ accounting_depreciation: { method: 'straight_line', months: 0 } }),
      machine({ acquisition_cost: -1 }),
      machine({ acquisition_cost: 1.005 }),
      machine({ name: '' }),
      machine({ tax_depreciation: { group: 1, method: 'declining' } }),
      machine({ asset_account: '02A' }),
    ]) {
      await expectProblem(await stack.api('/v1/accounting/assets', { method: 'POST', json: { ...body, inventory_number: 'X-1' } }), 400);
    }
    let problem = await expectProblem(await stack.api('/v1/accounting/assets', { method: 'POST', json: machine({ inventory_number: 'X-2', tax_depreciation: { group: 4, method: 'straight_line', first_year_increase: 10 } }) }), 422, 'asset_plan_invalid');
    expect(problem.errors?.[0].path).toBe('tax_depreciation.first_year_increase');
    await expectProblem(await stack.api('/v1/accounting/assets', { method: 'POST', json: machine({ inventory_number: 'X-3', date_in_use: '2026-01-01' }) }), 422, 'asset_dates_invalid');
    problem = await expectProblem(await stack.api('/v1/accounting/assets', { method: 'POST', json: machine({ inventory_number: 'X-4', improvements: [{ date: '2040-01-01', amount: 5 }] }) }), 422, 'asset_plan_invalid');
    expect(problem.errors?.[0].path).toBe('improvements[0].date');
    await expectProblem(await stack.api('/v1/accounting/assets', { method: 'POST', json: machine() }), 409, 'asset_inventory_number_taken');
    for (const period of ['2026-13', '26-01', '2026-1']) await expectProblem(await stack.api('/v1/accounting/depreciation-runs', { method: 'POST', json: { period } }), 400);
    await expectProblem(await stack.api('/v1/accounting/depreciation-runs', { method: 'POST', json: { period: '1999-01' } }), 422, 'nothing_to_depreciate');
    expect((await get('/v1/accounting/assets')).total).toBe(before);
  });

  it('another organisation sees none of it; a read-only key cannot post; a closed month is 409', async () => {
    const other = await secondOrganisation(stack, 'Jiná s.r.o.');
    await expectProblem(await stack.api(`/v1/accounting/assets/${server.id}`, { key: other.key }), 404, 'asset_not_found');
    await expectProblem(await stack.api(`/v1/accounting/assets/${server.id}/dispose`, { method: 'POST', key: other.key, json: { date: '2026-09-01', kind: 'scrapping' } }), 404, 'asset_not_found');
    expect((await get('/v1/accounting/assets', other.key)).total).toBe(0);
    await expectProblem(await stack.api('/v1/accounting/depreciation-runs', { method: 'POST', key: other.key, json: { period: '2026-08' } }), 422, 'nothing_to_depreciate');
    const reader = (await post('/v1/settings/security/api-keys', { name: 'reader', scopes: ['accounting:read'] })).key;
    await expectProblem(await stack.api('/v1/accounting/depreciation-runs', { method: 'POST', key: reader, json: { period: '2026-08' } }), 403);
    expect((await get('/v1/accounting/depreciation-runs', reader)).total).toBe(3);

    ok(await stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: '2026-08-31' } }));
    // the lock date reaches accounting's replica of the profile
    await eventually(async () => {
      const [row] = await sqlRows<{ lock_date: string | null }>(stack.services.accounting!.deps.orm.em.fork(), "select profile->>'lock_date' as lock_date from kit_organisations where org_id = 1");
      return row?.lock_date === '2026-08-31';
    }, 10_000);
    await expectProblem(await stack.api('/v1/accounting/depreciation-runs', { method: 'POST', json: { period: '2026-08' } }), 409, 'period_locked');
    expect((await get('/v1/accounting/depreciation-runs')).total).toBe(3);
  });
});
