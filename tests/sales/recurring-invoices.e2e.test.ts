import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { localClock, type RunningService } from '@ledgerline/service-kit';
import { salesService } from '../../apps/sales/src/service.js';
import { expectOk } from '../support/assertions.js';
import { eventually, startStack, startTestService, DATABASE_URL, type Stack } from '../support/stack.js';
import { secondOrganisation } from '../finance/support.js';
import { CUSTOMER, VAT21, apiOf, expectProblem } from './helpers.js';

/*
 * Recurring invoices (decision 209): a schedule issues each period's invoice exactly once — at
 * once for the periods already due, with two replicas of sales looking at the same time — each
 * dated in its period, with the period in its texts, linked to its schedule and posted to the
 * ledger once. A template that can no longer issue pauses its schedule with the reason.
 */

let stack: Stack;
let replica: RunningService<any>;
const dataDir = mkdtempSync(path.join(tmpdir(), 'll-recurring-'));
const api = apiOf(() => stack);
beforeAll(async () => {
  // both replicas look for due schedules every 20 ms, so they race for every period
  const env = { RECURRING_POLL_MS: '20', DATA_DIR: dataDir };
  stack = await startStack({ services: ['sales', 'accounting'], env });
  replica = await startTestService(salesService, { ...stack.env, ...env });
}, 60_000);
afterAll(async () => {
  await replica?.close();
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const ok = expectOk;
const today = localClock(new Date(), 'Europe/Prague').day;
/** The first day of the month `months` before (negative: after) today's. */
function firstOfMonth(months: number): string {
  const [y, m] = today.split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 1 - months, 1));
  return d.toISOString().slice(0, 10);
}
const lastDayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

const template = (over: Record<string, unknown> = {}) => ({
  customer: { ...CUSTOMER, email: 'billing@acme.example' },
  currency: 'CZK',
  due_in_days: 14,
  items: [{ title: 'Hosting {{ period_start }}–{{ period_end }}', qty: 1, rate: 1000, taxes: [VAT21] }],
  ...over,
});
const monthly = (over: Record<string, unknown> = {}) => ({ frequency: 'monthly', start_date: firstOfMonth(2), ...over });
const create = (json: unknown, key?: string) => api('/v1/sales/recurring-invoices', { method: 'POST', json, key });
const issuedBy = async (id: number, key?: string) => (await ok(await api(`/v1/sales/invoices?recurring_invoice_id=${id}&sort=date_issued`, { key }))).entities as any[];
const schedule = async (id: number) => ok(await api(`/v1/sales/recurring-invoices/${id}`));
/** The ledger entries of invoices, by number. */
async function ledgerEntries(): Promise<Map<string, number>> {
  const page = await ok(await api('/v1/accounting/transactions?take=1000'));
  const out = new Map<string, number>();
  for (const t of page.entities) if (t.type === 'sales_invoice') out.set(t.no, (out.get(t.no) ?? 0) + 1);
  return out;
}

describe('recurring invoices', () => {
  it('a monthly schedule from the first day two months back issues those two months and this one at once, each exactly once, with two replicas', async () => {
    const created = await ok(await create({ name: 'Hosting', template: template(), schedule: monthly() }));
    expect(created).toMatchObject({ status: 'active', next_issue_date: firstOfMonth(2), issued_count: 0, send_email: false, paused_reason: null });
    expect(created.upcoming_dates).toEqual([2, 1, 0, -1, -2].map(firstOfMonth));

    await eventually(async () => (await schedule(created.id)).issued_count === 3, 10_000);
    const invoices = await issuedBy(created.id);
    expect(invoices.map((i) => i.date_issued)).toEqual([2, 1, 0].map(firstOfMonth));
    for (const [k, inv] of invoices.entries()) {
      const start = firstOfMonth(2 - k);
      const end = lastDayBefore(firstOfMonth(1 - k));
      expect(inv).toMatchObject({ recurring_invoice_id: created.id, total_amount: 1210, date_due: new Date(Date.parse(`${start}T00:00:00Z`) + 14 * 86_400_000).toISOString().slice(0, 10) });
      expect(inv.items[0].title).toBe(`Hosting ${start}–${end}`);
    }
    expect(new Set(invoices.map((i) => i.no)).size).toBe(3);
    const after = await schedule(created.id);
    expect(after).toMatchObject({ status: 'active', next_issue_date: firstOfMonth(-1), last_issued_date: firstOfMonth(0), issued_count: 3 });
    expect(after.upcoming_dates).toEqual([-1, -2, -3, -4, -5].map(firstOfMonth));

    // the ledger has each once, and nothing more arrives while both replicas keep looking
    const entries = await eventually(async () => {
      const e = await ledgerEntries();
      return invoices.every((i) => e.get(i.no) === 1) ? e : null;
    }, 10_000);
    expect(invoices.map((i) => entries.get(i.no))).toEqual([1, 1, 1]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await issuedBy(created.id)).length).toBe(3);
  });

  it('many schedules due at once, raced by two replicas, issue every period once', async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, async (_, i) => (await ok(await create({ name: `Race ${i}`, template: template(), schedule: monthly() }))).id as number));
    await eventually(async () => {
      for (const id of ids) if ((await schedule(id)).issued_count !== 3) return false;
      return true;
    }, 20_000);
    const db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}sales`) });
    await db.connect();
    try {
      const { rows } = await db.query('select recurring_invoice_id, count(*)::int as n from sales_documents where recurring_invoice_id = any($1) group by 1', [ids]);
      expect(rows.map((r) => r.n)).toEqual(ids.map(() => 3));
      const { rows: issues } = await db.query('select count(*)::int as n from recurring_invoice_issues where recurring_invoice_id = any($1)', [ids]);
      expect(issues[0].n).toBe(24);
    } finally {
      await db.end();
    }
  });

  it('refuses bad schedules and templates with one 400 naming each field, and stores nothing', async () => {
    const before = (await ok(await api('/v1/sales/recurring-invoices?take=0'))).total;
    const bad = [
      [{ template: template(), schedule: monthly({ frequency: 'daily' }) }, ['schedule.frequency']],
      [{ template: template(), schedule: monthly({ interval: 0, day_of_month: 32 }) }, ['schedule.day_of_month', 'schedule.interval']],
      [{ template: template(), schedule: { frequency: 'weekly', start_date: today, day_of_month: 3 } }, ['schedule.day_of_month']],
      [{ template: template(), schedule: monthly({ end_date: '2000-01-01', count: 0 }) }, ['schedule.count', 'schedule.end_date']],
      [{ template: template(), schedule: monthly({ start_date: '2026-02-30' }) }, ['schedule.start_date']],
      [{ template: template(), schedule: monthly({ start_date: '0001-01-01' }) }, ['schedule.start_date']],
      [{ template: template({ date_issued: today }), schedule: monthly() }, ['template.date_issued']],
      [{ template: template({ items: [{ title: 'Hosting {{ month }}', qty: 1, rate: 1 }] }), schedule: monthly() }, ['template.items[0].title']],
      [{ template: template({ items: [] }), schedule: monthly() }, ['template.items']],
      [{ template: template({ due_in_days: -1 }), schedule: monthly() }, ['template.due_in_days']],
      [{ template: template(), schedule: monthly(), name: 'a\u0000b' }, ['name']],
      [{ template: template(), schedule: monthly({ count: 1, end_date: firstOfMonth(3), start_date: firstOfMonth(2) }) }, ['schedule.end_date']],
      // a first date past the calendar (the 10th after 15 December 9999): no issue date, not a 500 (found by the fuzzer)
      [{ template: template({ due_in_days: 30 }), schedule: monthly({ start_date: '9999-12-15', day_of_month: 10 }) }, ['schedule']],
    ] as const;
    for (const [body, paths] of bad) {
      const p = await expectProblem(await create(body), 400);
      expect([...new Set(p.errors!.map((e) => e.path))].sort(), JSON.stringify(body)).toEqual([...paths]);
    }
    await expectProblem(await api('/v1/sales/recurring-invoices', { method: 'POST', body: '{"template":', headers: { 'content-type': 'application/json' } }), 400);
    await expectProblem(await create([]), 400);
    await expectProblem(await create({ template: template({ counter_id: 999999 }), schedule: monthly() }), 422, 'unknown_counter');
    // a schedule that ended before its first date has nothing to issue
    await expectProblem(await create({ template: template(), schedule: monthly({ start_date: '2026-01-15', day_of_month: 1, end_date: '2026-01-20' }) }), 400, 'validation_error');
    expect((await ok(await api('/v1/sales/recurring-invoices?take=0'))).total).toBe(before);
  });

  it('pause, resume (catching up, or skipping what was missed), edit and delete', async () => {
    const future = await ok(await create({ template: template(), schedule: monthly({ start_date: firstOfMonth(-1) }) }));
    const paused = await ok(await api(`/v1/sales/recurring-invoices/${future.id}/pause`, { method: 'POST' }));
    expect(paused).toMatchObject({ status: 'paused', next_issue_date: firstOfMonth(-1), paused_reason: null });
    // an edit moving the start back while paused issues nothing until it is resumed
    const edited = await ok(await api(`/v1/sales/recurring-invoices/${future.id}`, { method: 'PUT', json: { name: 'Edited', template: template({ items: [{ title: 'Support', qty: 2, rate: 500 }] }), schedule: monthly() } }));
    expect(edited).toMatchObject({ status: 'paused', name: 'Edited', next_issue_date: firstOfMonth(2) });
    await new Promise((r) => setTimeout(r, 200));
    expect(await issuedBy(future.id)).toEqual([]);
    const skipping = await ok(await api(`/v1/sales/recurring-invoices/${future.id}/resume?skip_missed=true`, { method: 'POST' }));
    // today's month's date is issued only when it is today; otherwise the next month's is next
    expect(skipping.status).toBe('active');
    expect(skipping.next_issue_date >= today).toBe(true);

    const catching = await ok(await create({ template: template(), schedule: monthly() }));
    await eventually(async () => (await schedule(catching.id)).issued_count === 3, 10_000);
    await ok(await api(`/v1/sales/recurring-invoices/${catching.id}/pause`, { method: 'POST' }));
    // edited to a weekly schedule: its next date is the first after the last issued
    const weekly = await ok(await api(`/v1/sales/recurring-invoices/${catching.id}`, { method: 'PUT', json: { template: template(), schedule: { frequency: 'weekly', start_date: firstOfMonth(2) } } }));
    expect(weekly.next_issue_date > firstOfMonth(0)).toBe(true);
    const resumed = await ok(await api(`/v1/sales/recurring-invoices/${catching.id}/resume`, { method: 'POST' }));
    expect(resumed.status).toBe('active');
    // the weeks since this month's first day are issued, and none twice
    await eventually(async () => (await schedule(catching.id)).next_issue_date > today, 10_000);
    const all = await issuedBy(catching.id);
    expect(new Set(all.map((i) => i.date_issued)).size).toBe(all.length);
    expect(all.slice(0, 3).map((i) => i.date_issued)).toEqual([2, 1, 0].map(firstOfMonth));

    const deleted = await ok(await api(`/v1/sales/recurring-invoices/${catching.id}`, { method: 'DELETE' }));
    expect(deleted).toEqual({ id: catching.id, deleted: true });
    await expectProblem(await api(`/v1/sales/recurring-invoices/${catching.id}`), 404, 'recurring_invoice_not_found');
    // the invoices it issued stay, still naming it
    expect((await issuedBy(catching.id)).length).toBe(all.length);
  });

  it('a count ends the schedule: finished, with nothing to pause or resume', async () => {
    const counted = await ok(await create({ template: template(), schedule: monthly({ count: 2 }) }));
    await eventually(async () => (await schedule(counted.id)).status === 'finished', 10_000);
    expect(await schedule(counted.id)).toMatchObject({ issued_count: 2, next_issue_date: null, upcoming_dates: [] });
    await expectProblem(await api(`/v1/sales/recurring-invoices/${counted.id}/pause`, { method: 'POST' }), 409, 'recurring_invoice_finished');
    await expectProblem(await api(`/v1/sales/recurring-invoices/${counted.id}/resume`, { method: 'POST' }), 409, 'recurring_invoice_finished');
  });

  it('a template that cannot issue pauses its schedule with the reason; fixed and resumed, it catches up', async () => {
    // euros and no rate in the table: the first period's invoice is refused
    const eur = await ok(await create({ template: template({ currency: 'EUR' }), schedule: monthly() }));
    const paused = await eventually(async () => {
      const s = await schedule(eur.id);
      return s.status === 'paused' ? s : null;
    }, 10_000);
    expect(paused.paused_reason).toMatchObject({ code: 'fx_rate_required', issue_date: firstOfMonth(2), detail: expect.stringContaining('EUR') });
    expect(paused.next_issue_date).toBe(firstOfMonth(2));
    expect(await issuedBy(eur.id)).toEqual([]);

    await ok(await api(`/v1/settings/exchange-rates/EUR/${lastDayBefore(firstOfMonth(2))}`, { method: 'PUT', json: { rate: 25 } }));
    await ok(await api(`/v1/sales/recurring-invoices/${eur.id}/resume`, { method: 'POST' }));
    await eventually(async () => (await schedule(eur.id)).issued_count === 3, 10_000);
    const invoices = await issuedBy(eur.id);
    expect(invoices.map((i) => [i.date_issued, i.fx_rate, i.total_amount_leg])).toEqual([2, 1, 0].map((m) => [firstOfMonth(m), 25, 30250]));
    expect((await schedule(eur.id)).paused_reason).toBeNull();
  });

  it('sends each issued invoice by e-mail once when asked to', async () => {
    const mailed = await ok(await create({ template: template(), schedule: monthly({ start_date: today }), send_email: true }));
    await eventually(async () => (await schedule(mailed.id)).issued_count === 1, 10_000);
    const [invoice] = await issuedBy(mailed.id);
    const record = await eventually(async () => {
      const records = (await ok(await api('/v1/CRM/emails?take=50'))) as any[];
      return records.find((r) => r.document_id === invoice.id);
    }, 15_000);
    expect(record).toMatchObject({ to: 'billing@acme.example', document_type: 'sales_invoice' });
    await new Promise((r) => setTimeout(r, 300));
    const records = (await ok(await api('/v1/CRM/emails?take=100'))) as any[];
    expect(records.filter((r) => r.document_id === invoice.id)).toHaveLength(1);
    expect(readdirSync(path.join(dataDir, 'mail')).length).toBeGreaterThan(0);
  });

  it('refuses a schedule that would issue more than 60 back-dated periods at once, and e-mails none of a catch-up but its last week', async () => {
    const before = (await ok(await api('/v1/sales/recurring-invoices?take=0'))).total;
    for (const schedule of [{ frequency: 'weekly', start_date: '1900-01-01' }, monthly({ start_date: firstOfMonth(61) })]) {
      const problem = await expectProblem(await create({ template: template(), schedule, send_email: true }), 422, 'catch_up_too_long');
      expect(problem.errors!.map((e) => e.path)).toEqual(['schedule.start_date']);
    }
    expect((await ok(await api('/v1/sales/recurring-invoices?take=0'))).total).toBe(before);

    // thirteen months back: fourteen invoices, each once; only a period of the last week is e-mailed
    const back = await ok(await create({ template: template(), schedule: monthly({ start_date: firstOfMonth(13) }), send_email: true }));
    await eventually(async () => (await schedule(back.id)).issued_count === 14, 20_000);
    const issued = await issuedBy(back.id);
    expect(new Set(issued.map((i) => i.date_issued)).size).toBe(14);
    const weekAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10);
    const recent = issued.filter((i) => i.date_issued >= weekAgo).map((i) => i.id).sort();
    const ids = new Set(issued.map((i) => i.id));
    const mailedIds = async () => (((await ok(await api('/v1/CRM/emails?take=1000'))) as any[]).filter((m) => ids.has(m.document_id)).map((m) => m.document_id) as number[]).sort();
    await eventually(async () => ((await mailedIds()).length === recent.length ? true : null), 15_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await mailedIds()).toEqual(recent);
  });

  it("another organisation's ids are not found, and a read-only key changes nothing", async () => {
    const mine = await ok(await create({ template: template(), schedule: monthly({ start_date: firstOfMonth(-1) }) }));
    const other = await secondOrganisation(stack, 'Recurring elsewhere');
    for (const [method, suffix] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/pause'], ['POST', '/resume']] as const) {
      const json = method === 'PUT' ? { template: template(), schedule: monthly() } : undefined;
      await expectProblem(await api(`/v1/sales/recurring-invoices/${mine.id}${suffix}`, { method, json, key: other.key }), 404, 'recurring_invoice_not_found');
    }
    expect((await ok(await api('/v1/sales/recurring-invoices', { key: other.key }))).total).toBe(0);
    expect(await issuedBy(mine.id, other.key)).toEqual([]);

    const reader = await ok(await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['sales:read'] } }));
    await expectProblem(await create({ template: template(), schedule: monthly() }, reader.key), 403);
    await expectProblem(await api(`/v1/sales/recurring-invoices/${mine.id}/pause`, { method: 'POST', key: reader.key }), 403);
    await expectProblem(await api(`/v1/sales/recurring-invoices/${mine.id}`, { method: 'DELETE', key: reader.key }), 403);
    expect((await ok(await api(`/v1/sales/recurring-invoices/${mine.id}`, { key: reader.key }))).status).toBe('active');
  });
});
