import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_DATA_SCHEMAS, SUBJECTS } from '@ledgerline/contracts';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem, readEvents } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';
import { checkLedger, rebuildLedger } from '../../apps/accounting/src/events/rebuild.js';
import { DEFAULT_CHART } from '../../apps/accounting/src/domain/chart.js';
import { Receiver } from '../support/webhook-receiver.js';
import { Webhook } from 'standardwebhooks';

/*
 * Manual journal entries (decision 165), as an accountant uses them: the opening balances of a
 * company moving onto the platform, an October accrual reversed on 1 November, a correction —
 * each numbered without gaps, in the ledger once with the answer, announced on the bus, replayed
 * by a rebuild exactly as posted, and refused whole (nothing written, no number used) when it
 * does not balance, names no real account, falls in a closed period or is not the caller's.
 */

let stack: Stack;
const receiver = new Receiver();
beforeAll(async () => {
  await receiver.start();
  stack = await startStack({ services: ['accounting'], env: { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '50' } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await receiver.stop();
});

const send = (method: string, path: string, json?: unknown, init: { key?: string; headers?: Record<string, string> } = {}) => stack.api(path, { method, json, ...init });
const post = async (json: unknown, init?: { key?: string; headers?: Record<string, string> }) => ok(await send('POST', '/v1/accounting/journal-entries', json, init));
const dr = (account_number: string, debit: number, description?: string) => ({ account_number, debit, ...(description ? { description } : {}) });
const cr = (account_number: string, credit: number, description?: string) => ({ account_number, credit, ...(description ? { description } : {}) });
const OPENING = {
  date_posting: '2026-01-01',
  description: 'Opening balances 2026',
  reference: 'Balance sheet 31/12/2025',
  lines: [dr('221', 150000, 'Bank account at FIO'), dr('211', 2500.5), dr('311', 12100), cr('321', 8470.25), cr('701', 156130.25)],
};

/** The ledger entries posted for journal entry `id` (its posting; a reversing entry is its own). */
async function ledgerOf(id: number) {
  const page = await ok(await send('GET', `/v1/accounting/transactions?source_type=journal_entry&source_id=${id}`));
  return page.entities as any[];
}
const rowsOf = (t: any) => t.rows.map((r: any) => `${r.debit > 0 ? 'Dr' : 'Cr'} ${r.gl_account.number} ${(r.debit || r.credit).toFixed(2)} ${r.description}`);
async function trialBalance(range: string): Promise<Record<string, { debit: number; credit: number }>> {
  const tb = await ok(await send('POST', `/v1/reporting/financial/trial-balance/1/export/json?date_posting=${encodeURIComponent(range)}`, []));
  return Object.fromEntries(tb.rows.map((r: any) => [r.gl_account.number, { debit: r.debit, credit: r.credit }]));
}
const counts = async () => ({
  entries: (await ok(await send('GET', '/v1/accounting/journal-entries?take=0'))).total as number,
  ledger: (await ok(await send('GET', '/v1/accounting/transactions?take=0'))).total as number,
});

describe('manual journal entries (decision 165)', () => {
  let opening: any;

  it('posts the opening balances: numbered, in the ledger with the answer, in the trial balance, announced', async () => {
    opening = await post(OPENING);
    expect(opening).toMatchObject({
      no: 'JE-2026-0001',
      date_posting: '2026-01-01',
      description: 'Opening balances 2026',
      reference: 'Balance sheet 31/12/2025',
      currency: 'CZK',
      total: 164600.5,
      reverses: null,
      reversed_by: null,
      // who posted it: the credential of the request
      created_by: expect.stringMatching(/^key:\d+$/),
    });
    expect(opening.lines).toEqual([
      { order: 1, account_number: '221', debit: 150000, credit: 0, description: 'Bank account at FIO' },
      { order: 2, account_number: '211', debit: 2500.5, credit: 0, description: null },
      { order: 3, account_number: '311', debit: 12100, credit: 0, description: null },
      { order: 4, account_number: '321', debit: 0, credit: 8470.25, description: null },
      { order: 5, account_number: '701', debit: 0, credit: 156130.25, description: null },
    ]);
    expect(await ok(await send('GET', `/v1/accounting/journal-entries/${opening.id}`))).toEqual(opening);

    // no consumer in between: the ledger holds it when the answer arrives
    const [t] = await ledgerOf(opening.id);
    expect(t).toMatchObject({ type: 'journal_entry', no: 'JE-2026-0001', date_posting: '2026-01-01', accounting_status: 'posted', debit: 164600.5, credit: 164600.5, source: { type: 'journal_entry', id: opening.id, version: 1 } });
    expect(rowsOf(t)).toEqual([
      'Dr 221 150000.00 Bank account at FIO',
      'Dr 211 2500.50 Opening balances 2026',
      'Dr 311 12100.00 Opening balances 2026',
      'Cr 321 8470.25 Opening balances 2026',
      'Cr 701 156130.25 Opening balances 2026',
    ]);
    expect(t.taxes).toEqual([]);
    expect(await trialBalance('[2026-01-01;2026-01-31]')).toMatchObject({
      '221': { debit: 150000, credit: 0 },
      '211': { debit: 2500.5, credit: 0 },
      '321': { debit: 0, credit: 8470.25 },
      '701': { debit: 0, credit: 156130.25 },
    });

    // integrations see the entry and its ledger posting, each in its contract's shape
    const [announced] = await eventually(async () => {
      const found = (await readEvents(stack, 'accounting', 'ACCOUNTING', SUBJECTS.accountingJournalEntryPosted)).filter((e) => e.data.id === opening.id);
      return found.length ? found : null;
    }, 10_000);
    expect(announced).toMatchObject({ orgid: '1', subject: String(opening.id), type: 'com.ledgerline.accounting.journal_entry.posted.v1' });
    expect(EVENT_DATA_SCHEMAS[SUBJECTS.accountingJournalEntryPosted].parse(announced.data)).toEqual(opening);
    const posted = (await readEvents(stack, 'accounting', 'ACCOUNTING', SUBJECTS.accountingTransactionPosted)).filter((e) => e.data.source_document?.type === 'journal_entry');
    expect(posted.map((e) => e.data.source_document)).toEqual([{ type: 'journal_entry', id: opening.id, no: 'JE-2026-0001', version: 1 }]);
  });

  it('reverses an accrual on the first day of the next month: the lines on the other side, both entries linked, the ledger nets to nil', async () => {
    const accrual = await post({ date_posting: '2026-10-31', description: 'Accrued audit fee October', lines: [dr('518', 12000), cr('389', 12000)] });
    expect(accrual.no).toBe('JE-2026-0002');
    // never before the entry it reverses
    const early = await expectProblem(await send('POST', `/v1/accounting/journal-entries/${accrual.id}/reverse`, { date_posting: '2026-10-30' }), 422, 'reversal_before_entry');
    expect(early.errors?.map((e) => e.path)).toEqual(['date_posting']);
    const reversal = await ok(await send('POST', `/v1/accounting/journal-entries/${accrual.id}/reverse`, { date_posting: '2026-11-01' }));
    expect(reversal).toMatchObject({
      no: 'JE-2026-0003',
      date_posting: '2026-11-01',
      description: 'Reversal of JE-2026-0002: Accrued audit fee October',
      total: 12000,
      reverses: { id: accrual.id, no: 'JE-2026-0002' },
      reversed_by: null,
    });
    expect(reversal.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['518', 0, 12000],
      ['389', 12000, 0],
    ]);
    expect((await ok(await send('GET', `/v1/accounting/journal-entries/${accrual.id}`))).reversed_by).toEqual({ id: reversal.id, no: 'JE-2026-0003' });

    const [original] = await ledgerOf(accrual.id);
    const [reversing] = await ledgerOf(reversal.id);
    expect(original).toMatchObject({ date_posting: '2026-10-31', accounting_status: 'reversed' });
    expect(reversing).toMatchObject({ date_posting: '2026-11-01', accounting_status: 'posted', reverses_id: original.id });
    expect(await trialBalance('[2026-10-01;2026-10-31]')).toMatchObject({ '518': { debit: 12000, credit: 0 }, '389': { debit: 0, credit: 12000 } });
    expect(await trialBalance('[2026-10-01;2026-11-30]')).toMatchObject({ '518': { debit: 12000, credit: 12000 }, '389': { debit: 12000, credit: 12000 } });

    // once only, and never the reversal itself; nothing written by either refusal
    const before = await counts();
    await expectProblem(await send('POST', `/v1/accounting/journal-entries/${accrual.id}/reverse`, {}), 409, 'journal_entry_reversed');
    await expectProblem(await send('POST', `/v1/accounting/journal-entries/${reversal.id}/reverse`, {}), 409, 'journal_entry_is_reversal');
    expect(await counts()).toEqual(before);
  });

  it('two reversals of one entry racing make one', async () => {
    const entry = await post({ date_posting: '2026-11-10', description: 'Correction', lines: [dr('518', 100), cr('504', 100)] });
    const answers = await Promise.all([1, 2, 3].map(() => send('POST', `/v1/accounting/journal-entries/${entry.id}/reverse`, {})));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const reversals = (await ok(await send('GET', '/v1/accounting/journal-entries?search=Reversal%20of&take=1000'))).entities.filter((e: any) => e.reverses?.id === entry.id);
    expect(reversals).toHaveLength(1);
    expect(await ledgerOf(reversals[0].id)).toHaveLength(1);
  });

  it('refuses what does not balance or is malformed, writes nothing, and keeps the numbers without gaps', async () => {
    const before = await counts();
    const last = (await ok(await send('GET', '/v1/accounting/journal-entries?sort=-id&take=1'))).entities[0].no as string;

    const unbalanced = await expectProblem(await send('POST', '/v1/accounting/journal-entries', { date_posting: '2026-11-15', description: 'Typo', lines: [dr('518', 100.01), cr('321', 100)] }), 422, 'journal_unbalanced');
    expect(unbalanced.detail).toBe('The entry does not balance: debit 100.01 ≠ credit 100.00 (difference 0.01)');
    expect(unbalanced.errors?.[0]).toMatchObject({ path: 'lines', code: 'journal_unbalanced' });

    const base = { date_posting: '2026-11-15', description: 'Bad' };
    const malformed: Array<[unknown, string]> = [
      [{ ...base, lines: [{ account_number: '518', debit: 10, credit: 10 }, cr('321', 0.01)] }, 'lines[0].debit'],
      [{ ...base, lines: [{ account_number: '518' }, cr('321', 10)] }, 'lines[0].debit'],
      [{ ...base, lines: [dr('518', -10), cr('321', -10)] }, 'lines[0].debit'],
      [{ ...base, lines: [dr('518', 10.005), cr('321', 10.005)] }, 'lines[0].debit'],
      [{ ...base, lines: [dr('518', 10)] }, 'lines'],
      [{ ...base, lines: [dr('ABC', 10), cr('321', 10)] }, 'lines[0].account_number'],
      [{ ...base, lines: [dr('51', 10), cr('321', 10)] }, 'lines[0].account_number'],
      [{ ...base, lines: [dr('518', 1e14), cr('321', 1e14)] }, 'lines[0].debit'],
      [{ ...base, description: '', lines: [dr('518', 10), cr('321', 10)] }, 'description'],
      [{ ...base, date_posting: '2026-02-30', lines: [dr('518', 10), cr('321', 10)] }, 'date_posting'],
      [{ ...base, date_posting: '0001-01-01', lines: [dr('518', 10), cr('321', 10)] }, 'date_posting'],
      [{ ...base, lines: Array.from({ length: 501 }, (_, i) => (i % 2 ? cr('321', 1) : dr('518', 1))) }, 'lines'],
      [{ ...base, lines: 'Dr 518 / Cr 321' }, 'lines'],
      [{ ...base, lines: [dr('518', 10), cr('321', 10)], posted: true }, 'posted'],
    ];
    for (const [body, path] of malformed) {
      const problem = await expectProblem(await send('POST', '/v1/accounting/journal-entries', body), 400);
      expect(problem.errors?.map((e) => e.path), JSON.stringify(body).slice(0, 200)).toContain(path);
    }
    // text a ledger cannot keep
    for (const description of ['Null\u0000byte', 'Lone \ud800 surrogate']) {
      const res = await stack.api('/v1/accounting/journal-entries', {
        method: 'POST',
        body: JSON.stringify({ ...base, description, lines: [dr('518', 10), cr('321', 10)] }),
        headers: { 'content-type': 'application/json' },
      });
      await expectProblem(res, 400);
    }
    // three lines whose total passes 10^13 although each line is within it
    const huge = await expectProblem(await send('POST', '/v1/accounting/journal-entries', { ...base, lines: [dr('518', 6e12), dr('504', 6e12), cr('321', 6e12), cr('389', 6e12)] }), 400);
    expect(huge.errors?.map((e) => e.path)).toEqual(['total']);

    expect(await counts()).toEqual(before);
    const next = await post({ date_posting: '2026-11-15', description: 'Fixed', lines: [dr('518', 100), cr('321', 100)] });
    expect(next.no).toBe(`JE-2026-${String(Number(last.slice(-4)) + 1).padStart(4, '0')}`);
  });

  it('numbers each year on its own, concurrent entries consecutively, and an Idempotency-Key retry posts once', async () => {
    const december = await post({ date_posting: '2025-12-31', description: 'Year-end accrual 2025', lines: [dr('518', 50), cr('389', 50)] });
    expect(december.no).toBe('JE-2025-0001');

    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => post({ date_posting: '2026-11-20', description: `Depreciation ${i}`, lines: [dr('551', 1000 + i), cr('082', 1000 + i)] })));
    const numbers = made.map((e) => Number(e.no.slice(-4))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => numbers[0] + i));
    const all = (await ok(await send('GET', '/v1/accounting/journal-entries?date_posting=[2026-01-01;2026-12-31]&take=1000&sort=no'))).entities.map((e: any) => Number(e.no.slice(-4)));
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));

    const before = await counts();
    const headers = { 'idempotency-key': 'je-retry-1' };
    const body = { date_posting: '2026-11-21', description: 'Retried', lines: [dr('518', 7), cr('321', 7)] };
    const first = await post(body, { headers });
    const again = await post(body, { headers });
    expect(again).toEqual(first);
    expect(await counts()).toEqual({ entries: before.entries + 1, ledger: before.ledger + 1 });
    expect(await ledgerOf(first.id)).toHaveLength(1);
  });

  it('lists by day, searches and pages', async () => {
    const october = await ok(await send('GET', `/v1/accounting/journal-entries?date_posting=${encodeURIComponent('[2026-10-01;2026-10-31]')}`));
    expect(october.entities.map((e: any) => e.no)).toEqual(['JE-2026-0002']);
    const search = await ok(await send('GET', '/v1/accounting/journal-entries?search=opening'));
    expect(search.entities.map((e: any) => e.id)).toEqual([opening.id]);
    const pageOf = await ok(await send('GET', '/v1/accounting/journal-entries?take=2&from=1&sort=-date_posting'));
    expect(pageOf.entities).toHaveLength(2);
    expect(pageOf.total).toBeGreaterThan(20);
    await expectProblem(await send('GET', '/v1/accounting/journal-entries?sort=lines'), 400);
    await expectProblem(await send('GET', '/v1/accounting/journal-entries?date_posting=2026-13-01'), 400);
  });

  it("keeps organisations apart and asks for accounting:write", async () => {
    const other = await secondOrganisation(stack);
    const theirs = await post({ date_posting: '2026-11-02', description: 'Theirs', lines: [dr('518', 5), cr('321', 5)] }, { key: other.key });
    expect(theirs.no).toBe('JE-2026-0001');
    expect(theirs.created_by).toMatch(/^key:\d+$/);
    expect(theirs.created_by).not.toBe(opening.created_by);
    await expectProblem(await send('GET', `/v1/accounting/journal-entries/${opening.id}`, undefined, { key: other.key }), 404, 'journal_entry_not_found');
    await expectProblem(await send('POST', `/v1/accounting/journal-entries/${opening.id}/reverse`, {}, { key: other.key }), 404, 'journal_entry_not_found');
    await expectProblem(await send('GET', `/v1/accounting/journal-entries/${theirs.id}`), 404);
    expect((await ok(await send('GET', '/v1/accounting/journal-entries?search=Theirs'))).total).toBe(0);

    // an API client's entry names the client
    const client = await ok(await send('POST', '/v1/settings/security/clients', { name: 'Closing tool', scopes: ['accounting:write'] }));
    const token = (await ok(await stack.api('/v1/oauth/token', { method: 'POST', key: null, json: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret } }))).access_token;
    const byClient = await post({ date_posting: '2026-11-03', description: 'Posted by a tool', lines: [dr('518', 1), cr('321', 1)] }, { key: token });
    expect(byClient.created_by).toBe(`client:${client.client_id}`);

    const reader = await ok(await send('POST', '/v1/settings/security/api-keys', { name: 'auditor', scopes: ['accounting:read'] }));
    const before = await counts();
    await expectProblem(await send('POST', '/v1/accounting/journal-entries', OPENING, { key: reader.key }), 403);
    await expectProblem(await send('POST', `/v1/accounting/journal-entries/${opening.id}/reverse`, {}, { key: reader.key }), 403);
    expect((await ok(await send('GET', `/v1/accounting/journal-entries/${opening.id}`, undefined, { key: reader.key }))).no).toBe('JE-2026-0001');
    expect(await counts()).toEqual(before);
  });

  it('a rebuild of the ledger replays the entries and their reversals exactly as they were posted', async () => {
    const svc = stack.services.accounting!;
    const opts = { legalCurrency: 'CZK', orgCountry: 'CZ' };
    // every event is on the stream before the ledger is compared with its replay
    const entries = (await counts()).entries;
    await eventually(async () => (await readEvents(stack, 'accounting', 'ACCOUNTING', SUBJECTS.accountingJournalEntryPosted)).filter((e) => e.orgid === '1').length === entries, 10_000);
    const check = await checkLedger(svc.deps.orm, svc.deps.bus, 1, opts);
    expect(check).toMatchObject({ events: entries, transactions: entries, rebuilt: entries, missing: [], extra: [], changed: [], unpostable: [] });

    const snapshot = async () =>
      sqlRows<{ key: string }>(
        svc.deps.orm.em.fork(),
        `select t.source_id || ' ' || t.accounting_status || ' ' || coalesce((select r.source_id::text from accounting_transactions r where r.id = t.reverses_id), '-') || ' ' || t.total as key
           from accounting_transactions t where t.org_id = 1 order by t.source_id`,
      );
    const before = await snapshot();
    expect(before.some((r) => r.key.includes(' reversed '))).toBe(true);
    const result = await rebuildLedger(svc.deps.orm, svc.deps.bus, 1, opts);
    expect(result).toEqual({ orgId: 1, events: entries, transactions: entries, clearSeconds: expect.any(Number), stageSeconds: expect.any(Number), draftThreads: 0, staged: 0, kept: 0, method: 'generation' });
    expect(await snapshot()).toEqual(before);
  });

  it('reaches an integration that subscribes to journal entries as a signed webhook', async () => {
    const hook = await ok(await send('POST', '/v1/settings/webhooks', { url: `${receiver.url}/ok/journal`, events: ['accounting.journal_entry.posted'] }));
    const entry = await post({ date_posting: '2026-02-28', description: 'Depreciation February', lines: [dr('551', 830.5), cr('082', 830.5)] });
    const [hit] = await eventually(async () => (receiver.at('/ok/journal').length ? receiver.at('/ok/journal') : null), 10_000);
    const delivered = new Webhook(hook.secret).verify(hit.body, hit.headers) as { type: string; orgid: string; data: unknown };
    expect(delivered).toMatchObject({ type: 'com.ledgerline.accounting.journal_entry.posted.v1', orgid: '1' });
    expect(delivered.data).toEqual(entry);
    // the ledger's own announcement is another subject, not delivered here
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.at('/ok/journal')).toHaveLength(1);
    expect((await ok(await send('DELETE', `/v1/settings/webhooks/${hook.id}`))).id).toBe(hook.id);
  });

  it('refuses an entry or a reversal on or before the lock date, and lets the reversal through on an open day', async () => {
    const october = (await ok(await send('GET', `/v1/accounting/journal-entries?date_posting=2026-10-31`))).entities[0];
    const toReverse = await post({ date_posting: '2026-10-20', description: 'Prepaid rent', lines: [dr('381', 3000), cr('221', 3000)] });
    expect(october).toBeDefined();
    const res = await send('PUT', '/v1/settings/organisation', { lock_date: '2026-10-31' });
    expect((await ok(res)).lock_date).toBe('2026-10-31');
    const accounting = stack.services.accounting!.deps.orm.em.fork();
    await eventually(async () => (await sqlRows<{ d: string }>(accounting, "select profile->>'lock_date' as d from kit_organisations where org_id = 1"))[0]?.d === '2026-10-31', 10_000);

    const before = await counts();
    const late = await expectProblem(await send('POST', '/v1/accounting/journal-entries', { date_posting: '2026-10-15', description: 'Late', lines: [dr('518', 1), cr('321', 1)] }), 409, 'period_locked');
    expect(late.errors?.map((e) => e.path)).toEqual(['date_posting']);
    const onItsDay = await expectProblem(await send('POST', `/v1/accounting/journal-entries/${toReverse.id}/reverse`, {}), 409, 'period_locked');
    expect(onItsDay.errors?.map((e) => e.path)).toEqual(['id']);
    expect(await counts()).toEqual(before);

    const reversal = await ok(await send('POST', `/v1/accounting/journal-entries/${toReverse.id}/reverse`, { date_posting: '2026-11-01' }));
    expect(reversal.reverses.id).toBe(toReverse.id);
    await ok(await send('PUT', '/v1/settings/organisation', { lock_date: null }));
  });
});

describe('the chart of accounts (decision 166)', () => {
  const account = async (number: string, init: { key?: string; lang?: string } = {}) =>
    send('GET', `/v1/accounting/accounts/${encodeURIComponent(number)}`, undefined, { key: init.key, headers: init.lang ? { 'accept-language': init.lang } : {} });

  it('lists the default chart before anything is posted, in number order, filtered by range and searched in either language', async () => {
    const fresh = await secondOrganisation(stack, 'Fresh org');
    const all = await ok(await send('GET', '/v1/accounting/accounts', undefined, { key: fresh.key }));
    expect(all.total).toBe(DEFAULT_CHART.length);
    expect(all.entities.map((a: any) => a.number)).toEqual(DEFAULT_CHART.map((a) => a.number).sort());
    expect(all.entities.every((a: any) => a.id === null && a.is_default)).toBe(true);
    const expenses = await ok(await send('GET', `/v1/accounting/accounts?account_number=${encodeURIComponent('[5;6]')}`, undefined, { key: fresh.key }));
    expect(expenses.entities.map((a: any) => a.number).every((n: string) => n.startsWith('5'))).toBe(true);
    expect(expenses.entities.map((a: any) => a.number)).toContain('551');
    const cz = await ok(await send('GET', '/v1/accounting/accounts?search=odpisy', undefined, { key: fresh.key, headers: { 'accept-language': 'cs-CZ' } }));
    expect(cz.entities.map((a: any) => [a.number, a.name])).toEqual([['551', 'Odpisy dlouhodobého nehmotného a hmotného majetku']]);
    const en = await ok(await send('GET', '/v1/accounting/accounts?search=ACCRUED', undefined, { key: fresh.key }));
    expect(en.entities.map((a: any) => a.number)).toEqual(['383', '385']);
  });

  it('names the accounts journal entries post to, in the ledger and the trial balance', async () => {
    const [t] = await ledgerOf((await ok(await send('GET', '/v1/accounting/journal-entries?search=Opening'))).entities[0].id);
    expect(t.rows.map((r: any) => `${r.gl_account.number} ${r.gl_account.name}`)).toContain('701 Opening balance account');
    const tb = await ok(await send('POST', `/v1/reporting/financial/trial-balance/1/export/json?date_posting=${encodeURIComponent('[2026-01-01;2026-01-31]')}`, [], { headers: { 'accept-language': 'cs' } }));
    expect(tb.rows.find((r: any) => r.gl_account.number === '701').gl_account.name).toBe('Počáteční účet rozvažný');
  });

  it('adds an analytic account and renames a default one; the ledger shows the names, old entries too', async () => {
    const saved = await ok(await send('PUT', '/v1/accounting/accounts/221.001', { name_cs: 'Fio – běžný účet CZK', name_en: 'Fio current account CZK' }));
    expect(saved).toMatchObject({ number: '221.001', name: 'Fio current account CZK', name_cs: 'Fio – běžný účet CZK', description: null, is_default: false, id: expect.any(Number) });
    expect(await ok(await account('221.001', { lang: 'cs-CZ' }))).toMatchObject({ name: 'Fio – běžný účet CZK' });
    const entry = await post({ date_posting: '2026-11-25', description: 'Cash to bank', lines: [dr('221.001', 5000), cr('211', 5000)] });
    const [t] = await ledgerOf(entry.id);
    expect(t.rows.map((r: any) => `${r.gl_account.number} ${r.gl_account.name}`)).toEqual(['221.001 Fio current account CZK', '211 Cash']);

    // a default account renamed: the name only given in Czech serves both languages
    const renamed = await ok(await send('PUT', '/v1/accounting/accounts/389', { name_cs: 'Dohadné položky pasivní', description: 'Accruals for invoices not received yet' }));
    expect(renamed).toMatchObject({ number: '389', name: 'Dohadné položky pasivní', name_en: 'Dohadné položky pasivní', is_default: true, description: 'Accruals for invoices not received yet' });
    const accrual = (await ok(await send('GET', `/v1/accounting/journal-entries?date_posting=2026-10-31`))).entities[0];
    const [old] = await ledgerOf(accrual.id);
    expect(old.rows.find((r: any) => r.gl_account.number === '389').gl_account.name).toBe('Dohadné položky pasivní');
    // PUT again: the same answer, one account
    expect(await ok(await send('PUT', '/v1/accounting/accounts/389', { name_cs: 'Dohadné položky pasivní', description: 'Accruals for invoices not received yet' }))).toEqual(renamed);
    expect((await ok(await send('GET', '/v1/accounting/accounts?account_number=389'))).total).toBe(1);
  });

  it('refuses malformed numbers and names, weaker keys and other organisations, changing nothing', async () => {
    const before = (await ok(await send('GET', '/v1/accounting/accounts'))).total;
    for (const [number, body] of [
      ['ABC', { name_cs: 'x' }],
      ['51', { name_cs: 'x' }],
      ['518', {}],
      ['518', { name_cs: '' }],
      ['518', { name_cs: 'x'.repeat(256) }],
      ['518', { name_cs: 'Nul\u0000' }],
    ] as const) {
      await expectProblem(await send('PUT', `/v1/accounting/accounts/${encodeURIComponent(number)}`, body), 400);
    }
    await expectProblem(await account('999'), 404, 'account_not_found');
    // an account read can be sent back (decision 146): its number is the path's, never the body's
    const sentBack = await ok(await account('568'));
    expect(await ok(await send('PUT', '/v1/accounting/accounts/568', { ...sentBack, number: '569', name_cs: 'Bankovní poplatky' }))).toMatchObject({ number: '568', name_cs: 'Bankovní poplatky', name_en: 'Bank and platform fees' });
    await expectProblem(await account('569'), 404);
    await expectProblem(await send('GET', `/v1/accounting/accounts?account_number=${encodeURIComponent('[6;5]')}`), 400);
    const reader = await ok(await send('POST', '/v1/settings/security/api-keys', { name: 'chart reader', scopes: ['accounting:read'] }));
    await expectProblem(await send('PUT', '/v1/accounting/accounts/518', { name_cs: 'Služby' }, { key: reader.key }), 403);
    expect((await ok(await account('518', { key: reader.key }))).name).toBe('Services purchased');
    const other = await secondOrganisation(stack, 'Another org');
    await expectProblem(await account('221.001', { key: other.key }), 404);
    expect((await ok(await account('389', { key: other.key }))).name).toBe('Estimated payables');
    expect((await ok(await send('GET', '/v1/accounting/accounts'))).total).toBe(before);
  });
});

