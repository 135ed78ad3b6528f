import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk } from '../support/assertions.js';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { secondOrganisation } from '../finance/support.js';
import { VAT21, apiOf, expectProblem, publishPaymentMatched } from './helpers.js';

/*
 * Payment reminders (decision 212): the levels are the organisation's settings; a run for a day
 * writes one letter per customer listing each overdue invoice's next level, with the amount due,
 * the statutory interest to the day and the fee; a level goes once; paid and credited invoices get
 * nothing; the letter is e-mailed with its PDF; the daily run does the same by itself.
 */

let stack: Stack;
const dataDir = mkdtempSync(path.join(tmpdir(), 'll-reminders-'));
const api = apiOf(() => stack);
beforeAll(async () => {
  stack = await startStack({ services: ['sales'], env: { DATA_DIR: dataDir, REMINDERS_AT: 'off', RECURRING_POLL_MS: '50' } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const ok = expectOk;
const LEVELS = {
  levels: [
    {
      days_after_due: 7,
      fee: { CZK: 250 },
      email: {
        'cs-CZ': { subject: 'Upomínka: {{ invoices }}', body: 'Vážený zákazníku {{ customer }},\nevidujeme neuhrazené faktury {{ invoices }}, celkem {{ total_due }}.\n{{ org }}' },
        en: { subject: 'Reminder: {{ invoices }}', body: 'Dear {{ customer }}, invoices {{ invoices }} are overdue: {{ total_due }} in all.' },
      },
    },
    { days_after_due: 45, fee: { CZK: 500, EUR: 20 }, email: { en: { subject: 'Second reminder (level {{ level }})', body: 'Please pay {{ total_due }} by return.' } } },
  ],
};
const ACME = { id: 701, business_name: 'Acme s.r.o.', email: 'ap@acme.example', preferred_locale: 'cs', address: { address1: 'Dlouhá 1', city: 'Praha', postal_code: '11000', country: 'CZ' } };
const GLOBEX = { id: 702, business_name: 'Globex GmbH', email: 'billing@globex.example', address: { city: 'Wien', country: 'AT' } };
const invoice = (customer: object, issued: string, due: string, rate: number, key?: string) =>
  api('/v1/sales/invoices', { method: 'POST', key, json: { customer, currency: 'CZK', date_issued: issued, date_due: due, items: [{ title: 'Consulting', qty: 1, rate, taxes: [VAT21] }] } }).then(ok);
const run = (date?: string, key?: string) => api('/v1/sales/reminders/run', { method: 'POST', key, json: date ? { date } : {} });

describe('payment reminders', () => {
  let acme1: any;
  let acme2: any;
  let globex: any;

  it('sets the levels, refusing levels out of order, unknown placeholders and bad fees', async () => {
    expect(await ok(await api('/v1/settings/reminders'))).toEqual({ enabled: false, statutory_interest: true, levels: [], updated_at: null });
    await expectProblem(await run('2025-03-02'), 422, 'reminder_settings_missing');
    const saved = await ok(await api('/v1/settings/reminders', { method: 'PUT', json: LEVELS }));
    expect(saved).toMatchObject({ enabled: true, statutory_interest: true, levels: LEVELS.levels, updated_at: expect.any(String) });
    expect(await ok(await api('/v1/settings/reminders'))).toEqual(saved);
    const bad: Array<[unknown, string[]]> = [
      [{ levels: [LEVELS.levels[1], LEVELS.levels[0]] }, ['levels[1].days_after_due']],
      [{ levels: [{ ...LEVELS.levels[0], email: { en: { subject: 'Pay {{ amount }}', body: 'x' } } }] }, ['levels[0].email.en.subject']],
      [{ levels: [{ ...LEVELS.levels[0], fee: { CZK: -1, czk: 5 } }] }, ['levels[0].fee.CZK', 'levels[0].fee.czk']],
      [{ levels: [{ ...LEVELS.levels[0], email: {} }] }, ['levels[0].email']],
      [{ levels: [] }, ['levels']],
      [{ levels: Array.from({ length: 6 }, (_, i) => ({ ...LEVELS.levels[0], days_after_due: i + 1 })) }, ['levels']],
      [{ levels: [{ ...LEVELS.levels[0], days_after_due: 0 }] }, ['levels[0].days_after_due']],
    ];
    for (const [body, paths] of bad) {
      const p = await expectProblem(await api('/v1/settings/reminders', { method: 'PUT', json: body }), 400);
      expect([...new Set(p.errors!.map((e) => e.path))].sort(), JSON.stringify(body)).toEqual(paths);
    }
    expect((await ok(await api('/v1/settings/reminders'))).levels).toEqual(LEVELS.levels);
  });

  it('writes one letter per customer with each overdue invoice, its interest and fee; paid and credited invoices get none', async () => {
    const org = await ok(await api('/v1/settings/organisation'));
    acme1 = await invoice(ACME, '2025-01-17', '2025-01-31', 8264.46);
    acme2 = await invoice(ACME, '2025-01-27', '2025-02-10', 1000);
    globex = await invoice(GLOBEX, '2024-12-27', '2025-01-10', 2000);
    const paid = await invoice(GLOBEX, '2025-01-05', '2025-01-20', 300);
    const credited = await invoice(ACME, '2025-01-05', '2025-01-20', 100);
    const notDue = await invoice(ACME, '2025-02-20', '2025-03-06', 100);
    await publishPaymentMatched(stack, org.id, { payment_id: 9101, document: { type: 'sales_invoice', id: paid.id }, amount: paid.total_amount, currency: 'CZK', date: '2025-02-01' });
    const cn = await ok(await api('/v1/sales/credit-notes', { method: 'POST', json: { customer: ACME, currency: 'CZK', date_issued: '2025-01-25', credited_doc_id: credited.id, items: [{ title: 'Refund', qty: 1, rate: 100, taxes: [VAT21] }] } }));
    await ok(await api(`/v1/sales/credit-notes/${cn.id}/allocations`, { method: 'POST', json: { invoice_id: credited.id, date: '2025-01-25' } }));
    await eventually(async () => (await ok(await api(`/v1/sales/invoices/${paid.id}`))).payment_status === 'paid', 10_000);

    const result = await ok(await run('2025-03-02'));
    expect(result.date).toBe('2025-03-02');
    const byCustomer = Object.fromEntries(result.reminders.map((r: any) => [r.customer, r]));
    expect(Object.keys(byCustomer).sort()).toEqual(['Acme s.r.o.', 'Globex GmbH']);
    const acme = byCustomer['Acme s.r.o.'];
    expect(acme.to).toBe('ap@acme.example');
    // 10 000 CZK 30 days late at 12 % (the repo rate 4.00 on 31 December 2024 + 8): 98.63; 1 210 CZK 20 days: 7.96
    expect(acme.lines.map((l: any) => [l.invoice_no, l.level, l.amount_due, l.days_overdue, l.interest_rate, l.interest, l.fee])).toEqual([
      [acme1.no, 1, 10000, 30, 12, 98.63, 250],
      [acme2.no, 1, 1210, 20, 12, 7.96, 250],
    ]);
    // 51 days late: straight to the second level (the first was never sent)
    expect(byCustomer['Globex GmbH'].lines.map((l: any) => [l.invoice_no, l.level, l.amount_due, l.days_overdue, l.interest, l.fee])).toEqual([[globex.no, 2, 2420, 51, 40.58, 500]]);
    expect(JSON.stringify(result)).not.toContain(paid.no);
    expect(JSON.stringify(result)).not.toContain(credited.no);
    expect(JSON.stringify(result)).not.toContain(notDue.no);

    // the same day again: every level already sent
    expect((await ok(await run('2025-03-02'))).reminders).toEqual([]);
    // later: Acme's first invoice reaches the second level, its second stays at the first, the one
    // not due on 2 March is 14 days late now: one letter for both
    const later = await ok(await run('2025-03-20'));
    expect(later.reminders.map((r: any) => r.lines.map((l: any) => [l.invoice_no, l.level]))).toEqual([
      [
        [acme1.no, 2],
        [notDue.no, 1],
      ],
    ]);
    const history = await ok(await api(`/v1/sales/invoices/${acme1.id}/reminders`));
    expect(history.entities.map((l: any) => [l.level, l.date, l.fee])).toEqual([
      [1, '2025-03-02', 250],
      [2, '2025-03-20', 500],
    ]);
    expect((await ok(await api(`/v1/sales/invoices/${paid.id}/reminders`))).total).toBe(0);
  });

  it('e-mails each letter once with its PDF, in the customer’s language', async () => {
    const history = await ok(await api(`/v1/sales/invoices/${acme1.id}/reminders`));
    await eventually(async () => (await ok(await api(`/v1/sales/invoices/${acme1.id}/reminders`))).entities.every((l: any) => l.email_status === 'written'), 20_000);
    const mails = readdirSync(path.join(dataDir, 'mail')).map((f) => readFileSync(path.join(dataDir, 'mail', f), 'utf8'));
    const first = mails.filter((m) => m.includes('To: ap@acme.example') && /name=Reminder-2025-03-02-\d+\.pdf/.test(m));
    expect(first.length).toBe(1);
    // the Czech text, since Acme's invoices are in Czech
    expect(first[0]).toMatch(/Subject: =\?UTF-8\?/);
    expect(first[0]).toContain('Content-Type: application/pdf');
    expect(mails.filter((m) => m.includes('billing@globex.example'))).toHaveLength(1);
    const pdf = await api(`/v1/sales/reminders/${history.entities[0].reminder_id}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it("refuses a day after today and bad input; another organisation's ids are not found; weaker keys change nothing", async () => {
    await expectProblem(await run('2999-01-01'), 422, 'reminder_date_in_future');
    await expectProblem(await run('2025-02-30'), 400, 'validation_error');
    await expectProblem(await api('/v1/sales/reminders/run', { method: 'POST', json: { date: '2025-03-02', extra: 1 } }), 400);
    const history = await ok(await api(`/v1/sales/invoices/${acme1.id}/reminders`));
    const other = await secondOrganisation(stack, 'Reminders elsewhere');
    await expectProblem(await api(`/v1/sales/invoices/${acme1.id}/reminders`, { key: other.key }), 404, 'invoice_not_found');
    await expectProblem(await api(`/v1/sales/reminders/${history.entities[0].reminder_id}/pdf`, { key: other.key }), 404, 'reminder_not_found');
    expect((await ok(await api('/v1/settings/reminders', { key: other.key }))).levels).toEqual([]);
    const salesWriter = await ok(await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'sales', scopes: ['sales:write'] } }));
    await expectProblem(await api('/v1/settings/reminders', { method: 'PUT', json: LEVELS, key: salesWriter.key }), 403);
    const reader = await ok(await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['sales:read'] } }));
    await expectProblem(await run('2025-03-25', reader.key), 403);
    expect((await ok(await api(`/v1/sales/invoices/${acme1.id}/reminders`))).total).toBe(2);
  });
});

describe('the daily run', () => {
  let daily: Stack;
  afterAll(async () => daily?.close());

  it('reminds what is overdue today by itself, once however often it looks', async () => {
    daily = await startStack({ services: ['sales'], env: { REMINDERS_AT: '00:00', RECURRING_POLL_MS: '50' } });
    const call = apiOf(() => daily);
    const created = await (await call('/v1/sales/invoices', { method: 'POST', json: { customer: ACME, currency: 'CZK', date_issued: '2025-01-01', date_due: '2025-01-15', items: [{ title: 'Hosting', qty: 1, rate: 100 }] } })).json();
    expect((await call('/v1/settings/reminders', { method: 'PUT', json: LEVELS })).status).toBe(200);
    const lines = await eventually(async () => {
      const page = await (await call(`/v1/sales/invoices/${created.id}/reminders`)).json();
      return page.total > 0 ? page.entities : null;
    }, 15_000);
    expect(lines.map((l: any) => l.level)).toEqual([2]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await (await call(`/v1/sales/invoices/${created.id}/reminders`)).json()).total).toBe(1);
  }, 60_000);
});
