import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_DATA_SCHEMAS, SUBJECTS } from '@ledgerline/contracts';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem, readEvents } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { checkLedger, rebuildLedger } from '../../apps/accounting/src/events/rebuild.js';
import { latestClosedYear, recordClosingEntry } from '../../apps/settings/src/domain/closed-years.js';

/*
 * The closing of a year (decision 170), as an accountant does it once the year's figures are
 * final: the period locked through 31 December, every account of classes 5 and 6 closed to 710
 * and the profit carried to 431 in one journal entry — the profit and loss account of the year
 * still reads the year, the balance sheet shows the result in 431 — and reopened by reversing
 * that entry when a correction is due. Refused, writing nothing: a year still open for
 * postings, one closed already, one whose earlier years are not closed, one with nothing to close.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ['accounting'] });
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

const send = (method: string, path: string, json?: unknown, init: { key?: string } = {}) => stack.api(path, { method, json, ...init });
const dr = (account_number: string, debit: number) => ({ account_number, debit });
const cr = (account_number: string, credit: number) => ({ account_number, credit });
const journal = async (date_posting: string, description: string, lines: unknown[]) => ok(await send('POST', '/v1/accounting/journal-entries', { date_posting, description, lines }));
const close = (year: unknown, key?: string) => send('POST', '/v1/accounting/year-end-closings', { year }, { key });
const reopen = (year: unknown, key?: string) => send('POST', `/v1/accounting/year-end-closings/${year}/reopen`, undefined, { key });
const counts = async () => ({
  entries: (await ok(await send('GET', '/v1/accounting/journal-entries?take=0'))).total as number,
  ledger: (await ok(await send('GET', '/v1/accounting/transactions?take=0'))).total as number,
});
const amounts = (section: { lines: Array<{ gl_account: { number: string }; amount: number }> }) => Object.fromEntries(section.lines.map((l) => [l.gl_account.number, l.amount]));

async function lockThrough(day: string | null) {
  expect((await ok(await send('PUT', '/v1/settings/organisation', { lock_date: day }))).lock_date).toBe(day);
  const accounting = stack.services.accounting!.deps.orm.em.fork();
  await eventually(async () => (await sqlRows<{ d: string | null }>(accounting, "select profile->>'lock_date' as d from kit_organisations where org_id = 1"))[0]?.d === day, 10_000);
}

/** The latest year settings knows closed (decision 173), once accounting's events reached it. */
async function settingsKnowsClosedThrough(year: number | null) {
  const settings = stack.services.settings!.deps.orm.em.fork();
  await eventually(async () => (await latestClosedYear(settings, 1)) === year, 10_000);
}

describe('closing a year (decision 170)', () => {
  let closing2025: any;

  it('refuses a year still open for postings, then one whose earlier year is not closed, and one with nothing to close', async () => {
    await journal('2024-06-30', 'Bookkeeping 2024', [dr('518', 500), cr('321', 500)]);
    await journal('2025-03-31', 'Sales Q1', [dr('311', 121000), cr('602', 100000), cr('343', 21000)]);
    await journal('2025-06-30', 'Services bought', [dr('518', 30000), cr('321', 30000)]);
    await journal('2025-09-30', 'Depreciation', [dr('551', 5000), cr('082', 5000)]);
    await journal('2025-11-30', 'Bank fees', [dr('568', 120.55), cr('221', 120.55)]);
    await journal('2025-12-15', 'Sales return', [dr('604', 1000), cr('311', 1000)]);
    const before = await counts();

    const open = await expectProblem(await close(2025), 409, 'period_open');
    expect(open.detail).toContain('lock_date is 2025-12-31 or later (it is not set)');
    expect(open.errors?.map((e) => e.path)).toEqual(['year']);

    await lockThrough('2025-12-31');
    const earlier = await expectProblem(await close(2025), 409, 'earlier_year_open');
    expect(earlier.detail).toContain('on 2024-12-31 classes 5 and 6 hold 518 500.00');
    await expectProblem(await close(2023), 422, 'nothing_to_close');
    expect(await counts()).toEqual(before);
  });

  it('closes 2024 with a loss to the debit of 431, then 2025 with its profit to the credit of 431, each in the ledger with the answer', async () => {
    const closing2024 = await ok(await close(2024));
    expect(closing2024).toMatchObject({ year: 2024, status: 'closed', date_posting: '2024-12-31', currency: 'CZK', revenue: 0, expenses: 500, profit: -500, journal_entry: { no: 'JE-2024-0002' }, reopened_by: null });

    closing2025 = await ok(await close(2025));
    expect(closing2025).toMatchObject({
      year: 2025,
      status: 'closed',
      date_posting: '2025-12-31',
      currency: 'CZK',
      revenue: 99000,
      expenses: 35120.55,
      profit: 63879.45,
      journal_entry: { no: 'JE-2025-0006' },
      reopened_by: null,
      created_by: expect.stringMatching(/^key:\d+$/),
    });
    const entry = await ok(await send('GET', `/v1/accounting/journal-entries/${closing2025.journal_entry.id}`));
    expect(entry).toMatchObject({ kind: 'year_end_close', date_posting: '2025-12-31', description: 'Closing of 2025', total: 200000 });
    expect(entry.lines.map((l: any) => `${l.account_number} ${l.debit} ${l.credit}`)).toEqual([
      '518 0 30000',
      '551 0 5000',
      '568 0 120.55',
      '602 100000 0',
      '604 0 1000',
      '710 36120.55 0',
      '710 0 100000',
      '710 63879.45 0',
      '431 0 63879.45',
    ]);
    const [posted] = (await ok(await send('GET', `/v1/accounting/transactions?source_type=journal_entry&source_id=${entry.id}`))).entities;
    expect(posted).toMatchObject({ no: 'JE-2025-0006', date_posting: '2025-12-31', accounting_status: 'posted', debit: 200000, credit: 200000 });

    // the year's profit and loss account reads the year, not its closing
    const pl = await ok(await send('GET', '/v1/reporting/financial/profit-and-loss?date_from=2025-01-01&date_to=2025-12-31'));
    expect(pl).toMatchObject({ profit: 63879.45, revenue: { total: 99000 }, expenses: { total: 35120.55 }, closed: true });
    expect(amounts(pl.revenue)).toEqual({ '602': 100000, '604': -1000 });
    const december = await ok(await send('GET', '/v1/reporting/financial/profit-and-loss?date_from=2025-12-01&date_to=2025-12-31'));
    expect(december).toMatchObject({ profit: -1000, revenue: { total: -1000 }, expenses: { total: 0 } });
    // a period over two years leaves both closings out
    expect((await ok(await send('GET', '/v1/reporting/financial/profit-and-loss?date_from=2024-01-01&date_to=2025-12-31'))).profit).toBe(63379.45);

    // the balance sheet: nothing left unclosed, the results in 431 (2024's loss against 2025's profit)
    const sheet = await ok(await send('GET', '/v1/reporting/financial/balance-sheet?as_of=2025-12-31'));
    expect(sheet).toMatchObject({ result: 0, result_of_year: 0, result_of_earlier_years: 0 });
    expect(amounts(sheet.equity)).toMatchObject({ '431': 63379.45 });
    expect(sheet.total_assets).toBe(sheet.total_liabilities_and_equity);
    // 710 and every account of classes 5 and 6 end the year at nil
    const tb = await ok(await send('POST', '/v1/reporting/financial/trial-balance/1/export/json?date_posting=' + encodeURIComponent('[2025-01-01;2025-12-31]'), []));
    for (const r of tb.rows.filter((r: any) => /^(5|6|710)/.test(r.gl_account.number))) expect({ account: r.gl_account.number, cb: r.cb }).toEqual({ account: r.gl_account.number, cb: 0 });

    // the closing is announced like any journal entry, its kind said
    const [announced] = await eventually(async () => {
      const found = (await readEvents(stack, 'accounting', 'ACCOUNTING', SUBJECTS.accountingJournalEntryPosted)).filter((e) => e.data.id === entry.id);
      return found.length ? found : null;
    }, 10_000);
    expect(EVENT_DATA_SCHEMAS[SUBJECTS.accountingJournalEntryPosted].parse(announced.data)).toEqual(entry);
  });

  it('closes a year once: a second closing, two racing ones, or a reversal through the journal are refused', async () => {
    const before = await counts();
    await expectProblem(await close(2025), 409, 'year_already_closed');
    const journalReversal = await expectProblem(await send('POST', `/v1/accounting/journal-entries/${closing2025.journal_entry.id}/reverse`, {}), 409, 'journal_entry_is_closing');
    expect(journalReversal.detail).toContain('/v1/accounting/year-end-closings/2025/reopen');
    expect(await counts()).toEqual(before);

    // reopened, then closed by two requests at once: one closing
    await ok(await reopen(2025));
    const racing = await Promise.all([close(2025), close(2025), close(2025)]);
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    for (const r of racing.filter((r) => r.status === 409)) expect(((await r.json()) as { code: string }).code).toBe('year_already_closed');
    const list = await ok(await send('GET', '/v1/accounting/year-end-closings'));
    expect(list.entities.map((c: any) => `${c.year} ${c.status}`)).toEqual(['2025 closed', '2025 reopened', '2024 closed']);
    // the journal tells the entries posted by hand from the closings and their reversals
    const byKind = async (kind: string) => (await ok(await send('GET', `/v1/accounting/journal-entries?kind=${kind}&sort=id`))).entities.map((e: any) => `${e.no} ${e.kind}`);
    expect(await byKind('year_end_close')).toEqual(['JE-2024-0002 year_end_close', 'JE-2025-0006 year_end_close', 'JE-2025-0007 year_end_close', 'JE-2025-0008 year_end_close']);
    expect((await byKind('manual')).every((e: string) => e.endsWith(' manual'))).toBe(true);
    expect(await byKind('manual')).toHaveLength(6);
    await expectProblem(await send('GET', '/v1/accounting/journal-entries?kind=closing'), 400);
    closing2025 = list.entities[0];
  });

  it('keeps the lock date out of a closed year until the year is reopened (decision 173)', async () => {
    await settingsKnowsClosedThrough(2025);
    const moveLockDate = (lock_date: string | null, key?: string) => send('PUT', '/v1/settings/organisation', { lock_date }, { key });
    const refused = await expectProblem(await moveLockDate('2025-11-30'), 409, 'year_closed');
    expect(refused.detail).toContain('2025 is closed: reopen it (POST /v1/accounting/year-end-closings/2025/reopen) before moving the lock date before 2025-12-31');
    expect(refused.errors?.map((e) => e.path)).toEqual(['lock_date']);
    // clearing it would reopen every period, the closed years too
    await expectProblem(await moveLockDate(null), 409, 'year_closed');
    await expectProblem(await moveLockDate('2024-12-31'), 409, 'year_closed');
    expect((await ok(await send('GET', '/v1/settings/organisation'))).lock_date).toBe('2025-12-31');
    // later is always open to an admin, and back to the closed year's last day
    await lockThrough('2026-01-31');
    await lockThrough('2025-12-31');

    // another organisation's books are its own
    const other = await secondOrganisation(stack, 'Books of their own');
    expect((await ok(await moveLockDate('2025-06-30', other.key))).lock_date).toBe('2025-06-30');
    expect((await ok(await moveLockDate(null, other.key))).lock_date).toBeNull();

    // the reopening may reach settings before the closing it reverses: the year stays open
    const settings = stack.services.settings!.deps.orm.em.fork();
    await recordClosingEntry({ em: settings, orgId: 999 }, { id: 77, kind: 'year_end_close', date_posting: '2023-12-31', reverses: { id: 76, no: 'JE-2023-0002' } });
    await recordClosingEntry({ em: settings, orgId: 999 }, { id: 76, kind: 'year_end_close', date_posting: '2023-12-31', reverses: null });
    await recordClosingEntry({ em: settings, orgId: 999 }, { id: 78, kind: 'manual', date_posting: '2024-12-31', reverses: null });
    expect(await latestClosedYear(settings, 999)).toBeNull();
    await recordClosingEntry({ em: settings, orgId: 999 }, { id: 80, kind: 'year_end_close', date_posting: '2024-12-31', reverses: null });
    await recordClosingEntry({ em: settings, orgId: 999 }, { id: 80, kind: 'year_end_close', date_posting: '2024-12-31', reverses: null });
    expect(await latestClosedYear(settings, 999)).toBe(2024);
  });

  it('reopens a year by reversing its closing on the same day: the result unclosed again, the profit and loss account unchanged', async () => {
    const reopened = await ok(await reopen(2025));
    expect(reopened).toMatchObject({ year: 2025, status: 'reopened', journal_entry: closing2025.journal_entry, profit: 63879.45, reopened_by: { no: expect.stringMatching(/^JE-2025-\d{4}$/) } });
    const reversal = await ok(await send('GET', `/v1/accounting/journal-entries/${reopened.reopened_by.id}`));
    expect(reversal).toMatchObject({ kind: 'year_end_close', date_posting: '2025-12-31', description: `Reopening of 2025: reversal of ${closing2025.journal_entry.no}`, reverses: closing2025.journal_entry });
    const [original] = (await ok(await send('GET', `/v1/accounting/transactions?source_type=journal_entry&source_id=${closing2025.journal_entry.id}`))).entities;
    expect(original.accounting_status).toBe('reversed');

    const sheet = await ok(await send('GET', '/v1/reporting/financial/balance-sheet?as_of=2025-12-31'));
    expect(sheet).toMatchObject({ result: 63879.45, result_of_year: 63879.45, result_of_earlier_years: 0 });
    expect(amounts(sheet.equity)).toMatchObject({ '431': -500 });
    expect((await ok(await send('GET', '/v1/reporting/financial/profit-and-loss?date_from=2025-01-01&date_to=2025-12-31'))).profit).toBe(63879.45);

    // the reopening is no journal entry to reverse by hand either: the year is closed again instead
    await expectProblem(await send('POST', `/v1/accounting/journal-entries/${reversal.id}/reverse`, {}), 409, 'journal_entry_is_closing');
    await expectProblem(await reopen(2025), 409, 'year_not_closed');
    await expectProblem(await reopen(2022), 404, 'year_end_closing_not_found');

    // corrected and closed again: the correction is in the new closing (the lock date moves back
    // once settings learned of the reopening)
    await settingsKnowsClosedThrough(2024);
    await lockThrough('2025-11-30');
    await journal('2025-12-20', 'Late invoice for December', [dr('518', 879.45), cr('321', 879.45)]);
    await lockThrough('2025-12-31');
    // a retry of the closing with its Idempotency-Key answers the first closing, posting nothing more
    const closeOnce = () => stack.api('/v1/accounting/year-end-closings', { method: 'POST', json: { year: 2025 }, headers: { 'idempotency-key': 'close-2025-again' } });
    const first = await ok(await closeOnce());
    expect(first).toMatchObject({ status: 'closed', expenses: 36000, profit: 63000 });
    const before = await counts();
    const retry = await closeOnce();
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await ok(retry)).toEqual(first);
    expect(await counts()).toEqual(before);
  });

  it('keeps organisations apart, asks for accounting:write and refuses malformed years, writing nothing', async () => {
    const other = await secondOrganisation(stack);
    expect((await ok(await send('GET', '/v1/accounting/year-end-closings', undefined, { key: other.key }))).total).toBe(0);
    await expectProblem(await reopen(2025, other.key), 404, 'year_end_closing_not_found');
    await expectProblem(await close(2025, other.key), 409, 'period_open');

    const reader = await ok(await send('POST', '/v1/settings/security/api-keys', { name: 'auditor', scopes: ['accounting:read'] }));
    const before = await counts();
    await expectProblem(await close(2026, reader.key), 403);
    await expectProblem(await reopen(2025, reader.key), 403);
    expect((await ok(await send('GET', '/v1/accounting/year-end-closings?take=1', undefined, { key: reader.key }))).entities).toHaveLength(1);

    for (const body of [{}, { year: '2025' }, { year: 1899 }, { year: 10000 }, { year: 2025.5 }, { year: null }, { year: 2025, date: '2025-12-31' }, []]) {
      await expectProblem(await send('POST', '/v1/accounting/year-end-closings', body), 400);
    }
    for (const year of ['abc', '1899', '99999', '2025.5', '%00']) await expectProblem(await reopen(year), 400);
    expect(await counts()).toEqual(before);
  });

  it('a rebuild of the ledger replays closings and reopenings exactly as they were posted', async () => {
    const svc = stack.services.accounting!;
    const opts = { legalCurrency: 'CZK', orgCountry: 'CZ' };
    const entries = (await counts()).entries;
    await eventually(async () => (await readEvents(stack, 'accounting', 'ACCOUNTING', SUBJECTS.accountingJournalEntryPosted)).filter((e) => e.orgid === '1').length === entries, 10_000);
    expect(await checkLedger(svc.deps.orm, svc.deps.bus, 1, opts)).toMatchObject({ events: entries, transactions: entries, missing: [], extra: [], changed: [], unpostable: [] });
    const sheetBefore = await ok(await send('GET', '/v1/reporting/financial/balance-sheet?as_of=2025-12-31'));
    expect(await rebuildLedger(svc.deps.orm, svc.deps.bus, 1, opts)).toEqual({ orgId: 1, events: entries, transactions: entries, clearSeconds: expect.any(Number), stageSeconds: expect.any(Number), draftThreads: 0, staged: 0, kept: 0, method: 'generation' });
    expect(await ok(await send('GET', '/v1/reporting/financial/balance-sheet?as_of=2025-12-31'))).toEqual(sheetBefore);
    expect((await ok(await send('GET', '/v1/reporting/financial/profit-and-loss?date_from=2025-01-01&date_to=2025-12-31'))).profit).toBe(63000);
  });
});
