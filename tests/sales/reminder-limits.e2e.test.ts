import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { DATABASE_URL, eventually, startStack, type Stack } from '../support/stack.js';
import { secondOrganisation } from '../finance/support.js';

/*
 * What one organisation's reminders may cost (issue 71): a level text of `{{ invoices }}` repeated
 * thousands of times was stored, and with 2 400 overdue invoices a run answered 500 or wrote a
 * 29 MB letter whose e-mail ran sales out of memory, again after every restart. Now a text is
 * refused when it could grow past its bound, a letter lists at most 200 invoices (and names the
 * rest by count), and a letter's e-mail is tried a bounded number of times, each try counted
 * before it is printed; another organisation's reminders go out meanwhile.
 */

let stack: Stack;
const dataDir = mkdtempSync(path.join(tmpdir(), 'll-reminder-limits-'));
beforeAll(async () => {
  stack = await startStack({ services: ['sales'], env: { DATA_DIR: dataDir, REMINDERS_AT: 'off', RECURRING_POLL_MS: '50' } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (p: string, init: Parameters<Stack['api']>[1] = {}) => stack.api(p, init);
const level = (subject: string, body: string, days = 7) => ({ days_after_due: days, fee: { CZK: 100 }, email: { en: { subject, body } } });
const CUSTOMER = { id: 901, business_name: 'Many Invoices s.r.o.', email: 'ap@many.example', address: { country: 'CZ' } };

describe('reminder limits (issue 71)', () => {
  it('refuses a text that could grow past its bound, naming it; what fits is stored', async () => {
    const huge = '{{ invoices }}'.repeat(1_000);
    const cases: Array<[unknown, string]> = [
      [{ levels: [level('Reminder', huge)] }, 'levels[0].email.en.body'],
      [{ levels: [level('{{ invoices }} {{ invoices }}', 'x')] }, 'levels[0].email.en.subject'],
      [{ levels: [level('Reminder', `${'x'.repeat(19_990)}{{ org }}`)] }, 'levels[0].email.en.body'],
    ];
    for (const [body, where] of cases) {
      const problem = await expectProblem(await api('/v1/settings/reminders', { method: 'PUT', json: body }), 400, 'validation_error');
      expect(problem.errors).toEqual([expect.objectContaining({ path: where, code: 'text_too_long' })]);
    }
    expect((await ok(await api('/v1/settings/reminders'))).levels).toEqual([]);
    const fits = { levels: [level('Reminder: {{ invoices }}', 'Dear {{ customer }}, {{ invoices }} are overdue: {{ total_due }}.\n{{ org }}')] };
    expect((await ok(await api('/v1/settings/reminders', { method: 'PUT', json: fits }))).levels).toEqual(fits.levels);
    // back to where it started, and set again (issue 71: the settings could not be removed)
    const initial = { enabled: false, statutory_interest: true, levels: [], updated_at: null };
    expect(await ok(await api('/v1/settings/reminders', { method: 'DELETE' }))).toEqual(initial);
    expect(await ok(await api('/v1/settings/reminders'))).toEqual(initial);
    await expectProblem(await api('/v1/sales/reminders/run', { method: 'POST', json: {} }), 422, 'reminder_settings_missing');
    expect((await ok(await api('/v1/settings/reminders', { method: 'PUT', json: fits }))).levels).toEqual(fits.levels);
  });

  it('splits a customer with 230 overdue invoices into letters of at most 200, naming the numbers past the bound by count', async () => {
    for (let i = 0; i < 230; i++) {
      await ok(await api('/v1/sales/invoices', { method: 'POST', json: { customer: CUSTOMER, currency: 'CZK', date_issued: '2026-01-02', date_due: '2026-01-16', items: [{ title: 'Work', qty: 1, rate: 100 + i }] } }));
    }
    const run = await ok(await api('/v1/sales/reminders/run', { method: 'POST', json: { date: '2026-03-02' } }));
    expect(run.reminders.map((r: any) => r.lines.length)).toEqual([200, 30]);
    const first = run.reminders[0];
    const db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}sales`) });
    await db.connect();
    try {
      const { rows } = await db.query('select subject, body from reminder_letters where id = $1', [first.id]);
      expect(rows[0].subject.length).toBeLessThanOrEqual(998);
      expect(rows[0].subject).toMatch(/^Reminder: .+, .+ and \d+ more$/);
      expect(rows[0].body.length).toBeLessThan(20_000);
    } finally {
      await db.end();
    }
    // each letter goes out, with its PDF
    await eventually(async () => {
      const lines = (await ok(await api(`/v1/sales/invoices/${first.lines[0].invoice_id}/reminders`))).entities;
      return lines.every((l: any) => l.email_status === 'written') ? true : null;
    }, 30_000);
    // the PDF answered is the one e-mailed, kept: the same bytes and ETag every time, 304 when the client has it
    const first_ = await api(`/v1/sales/reminders/${first.id}/pdf`);
    expect(first_.status).toBe(200);
    const etag = first_.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const bytes = Buffer.from(await first_.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const again = await api(`/v1/sales/reminders/${first.id}/pdf`);
    expect(again.headers.get('etag')).toBe(etag);
    expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
    const notModified = await api(`/v1/sales/reminders/${first.id}/pdf`, { headers: { 'if-none-match': etag! } });
    expect(notModified.status).toBe(304);
    expect((await notModified.arrayBuffer()).byteLength).toBe(0);
  }, 180_000);

  it('gives up on a letter after its last try instead of trying it for ever, and the other organisation’s letters go out', async () => {
    const db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}sales`) });
    await db.connect();
    try {
      // a letter that took the process down five times: each try was counted before it was printed
      const { rows } = await db.query(
        `insert into reminder_letters (org_id, run_date, customer_key, customer, language, level, to_address, subject, body, email_status, attempts)
         select org_id, run_date, customer_key, customer, language, level, to_address, subject, body, 'pending', 5 from reminder_letters order by id limit 1 returning id`,
      );
      const stuck = rows[0].id;
      const other = await secondOrganisation(stack, 'Other reminders s.r.o.');
      await ok(await api('/v1/settings/reminders', { method: 'PUT', key: other.key, json: { levels: [level('Reminder {{ invoices }}', 'Pay {{ total_due }}.')] } }));
      const theirs = await ok(await api('/v1/sales/invoices', { method: 'POST', key: other.key, json: { customer: { business_name: 'Theirs', email: 'x@theirs.example' }, currency: 'CZK', date_issued: '2026-01-02', date_due: '2026-01-16', items: [{ title: 'Work', qty: 1, rate: 10 }] } }));
      await ok(await api('/v1/sales/reminders/run', { method: 'POST', key: other.key, json: { date: '2026-03-02' } }));
      await eventually(async () => ((await ok(await api(`/v1/sales/invoices/${theirs.id}/reminders`, { key: other.key }))).entities[0]?.email_status === 'written' ? true : null), 20_000);
      const failed = await eventually(async () => {
        const r = await db.query('select email_status, email_error, attempts from reminder_letters where id = $1', [stuck]);
        return r.rows[0].email_status === 'failed' ? r.rows[0] : null;
      }, 20_000);
      expect(failed.email_error).toContain('given up after 5 tries');
      expect(failed.attempts).toBe(6);
    } finally {
      await db.end();
    }
  });
});
