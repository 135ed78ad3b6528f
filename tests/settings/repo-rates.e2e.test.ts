import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { secondOrganisation } from '../finance/support.js';

/*
 * The CNB repo-rate history statutory interest is computed from (issue 70). Shipped as far as
 * public sources go (3.50 % through 5 February 2026), so a reminder for an invoice due 1 March 2026
 * carries 11.5 % where it carried none; a delay that began after 30 June 2026 has none until the
 * organisation imports the bank's file (the recorded `vyvoj_repo_historie.txt` layout) or sets the
 * change by hand; settings fetches the file by itself from REPO_RATES_URL (a local server here),
 * refusing a file that is not the history whole.
 */

const FIXTURE = readFileSync(path.resolve(import.meta.dirname, '../fixtures/cnb/vyvoj_repo_historie.txt'), 'utf8');
// the bank's file as it would read after a cut to 3.25 % with effect from 7 May 2026
const WITH_MAY_CUT = `${FIXTURE}20260507|3,25\r\n`;

let stack: Stack;
let server: Server;
let served = '<html><body>Service unavailable</body></html>';
let requests = 0;
const LEVELS = { levels: [{ days_after_due: 7, fee: { CZK: 100 }, email: { en: { subject: 'Reminder {{ invoices }}', body: 'Please pay {{ total_due }}.' } } }, { days_after_due: 40, fee: { CZK: 200 }, email: { en: { subject: 'Second {{ invoices }}', body: 'Pay {{ total_due }}.' } } }] };
const CUSTOMER = { id: 801, business_name: 'Dlužník s.r.o.', address: { country: 'CZ' } };

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(served);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/vyvoj_repo_historie.txt`;
  stack = await startStack({ services: ['sales'], env: { REMINDERS_AT: 'off', REPO_RATES_URL: url, REPO_RATES_POLL_MS: '100' } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await new Promise((r) => server?.close(r));
});

const api = (p: string, init: Parameters<Stack['api']>[1] = {}) => stack.api(p, init);
const importFile = (body: string | Uint8Array, query = '', key?: string) =>
  api(`/v1/settings/repo-rates/import${query}`, { method: 'POST', body, key, headers: { 'content-type': 'text/plain' } });
const invoice = (issued: string, due: string) =>
  api('/v1/sales/invoices', { method: 'POST', json: { customer: CUSTOMER, currency: 'CZK', date_issued: issued, date_due: due, items: [{ title: 'Work', qty: 1, rate: 10_000, taxes: [{ tax_code: 'S', tax_rate: 0 }] }] } }).then(ok);
const linesOf = async (date: string, invoiceId: number) =>
  (await ok(await api('/v1/sales/reminders/run', { method: 'POST', json: { date } }))).reminders.flatMap((r: any) => r.lines).filter((l: any) => l.invoice_id === invoiceId);

describe('the CNB repo-rate history (issue 70)', () => {
  it('ships the history with its sources, known through 5 February 2026; a file that is not the history is fetched and refused', async () => {
    const history = await ok(await api('/v1/settings/repo-rates'));
    expect(history.known_through).toBe('2026-02-05');
    expect(history.changes.at(-1)).toEqual({ valid_from: '2025-05-09', rate: 3.5, source: 'shipped', note: expect.stringContaining('CNB') });
    expect(history.changes[0]).toMatchObject({ valid_from: '2012-11-02', rate: 0.05 });
    // the fetcher has looked at the local "bank", which answered an error page: nothing changed
    await eventually(async () => (requests > 0 ? true : null), 10_000);
    expect((await ok(await api('/v1/settings/repo-rates'))).known_through).toBe('2026-02-05');
  });

  it('gives a reminder for an invoice due 1 March 2026 its interest (11.5 %), and none past what the history knows', async () => {
    await ok(await api('/v1/settings/reminders', { method: 'PUT', json: LEVELS }));
    const march = await invoice('2026-02-15', '2026-03-01');
    // 10 000 CZK 30 days at 3.50 + 8 = 11.5 %: 94.52
    expect((await linesOf('2026-03-31', march.id)).map((l: any) => [l.level, l.days_overdue, l.interest_rate, l.interest])).toEqual([[1, 30, 11.5, 94.52]]);
    const july = await invoice('2026-06-25', '2026-07-10');
    // the rate of 30 June 2026 is not known yet: the letter says so rather than guess
    expect((await linesOf('2026-07-20', july.id)).map((l: any) => [l.level, l.interest_rate, l.interest])).toEqual([[1, null, null]]);
  });

  it("imports the bank's file, known through the day it was published; the next level's interest comes from it", async () => {
    const imported = await ok(await importFile(WITH_MAY_CUT, '?as_of=2026-11-30'));
    expect(imported).toEqual({ changes: 33, stored: 33, known_through: '2026-11-30' });
    const history = await ok(await api('/v1/settings/repo-rates'));
    expect(history.known_through).toBe('2026-11-30');
    expect(history.changes.at(-1)).toEqual({ valid_from: '2026-05-07', rate: 3.25, source: 'cnb_file', note: null });
    // the same file again stores nothing new
    expect((await ok(await importFile(WITH_MAY_CUT, '?as_of=2026-11-30'))).stored).toBe(0);
    const invoices = await ok(await api('/v1/sales/invoices?take=100'));
    const july = invoices.entities.find((i: any) => i.date_due === '2026-07-10');
    // 10 000 CZK 61 days at 3.25 + 8 = 11.25 %: 188.01
    expect((await linesOf('2026-09-09', july.id)).map((l: any) => [l.level, l.days_overdue, l.interest_rate, l.interest])).toEqual([[2, 61, 11.25, 188.01]]);
  });

  it('keeps a change set by hand over the file, and refuses what is not a history', async () => {
    const after = await ok(await api('/v1/settings/repo-rates/2026-05-07', { method: 'PUT', json: { rate: 3.3 } }));
    expect(after.changes.at(-1)).toMatchObject({ valid_from: '2026-05-07', rate: 3.3, source: 'manual' });
    expect((await ok(await importFile(WITH_MAY_CUT))).stored).toBe(0);
    expect((await ok(await api('/v1/settings/repo-rates'))).changes.at(-1)).toMatchObject({ rate: 3.3, source: 'manual' });

    const before = await ok(await api('/v1/settings/repo-rates'));
    const bad = await expectProblem(await importFile(`${FIXTURE}2026-05-07|3,25\r\n20260230|3,00\r\n`), 400, 'invalid_repo_rate_file');
    expect(bad.errors!.map((e) => e.path)).toEqual(['body:34', 'body:35']);
    await expectProblem(await importFile('<html>503</html>'), 400, 'invalid_repo_rate_file');
    await expectProblem(await importFile(''), 400);
    await expectProblem(await importFile(new Uint8Array([0xff, 0xfe, 0x00])), 400);
    await expectProblem(await importFile(FIXTURE, '?as_of=2099-01-01'), 422, 'date_in_future');
    expect([400, 413]).toContain((await importFile('x'.repeat(300_000))).status);
    await expectProblem(await api('/v1/settings/repo-rates/2026-05-07', { method: 'PUT', json: { rate: 1000 } }), 400, 'validation_error');
    await expectProblem(await api('/v1/settings/repo-rates/2026-05-07', { method: 'PUT', json: { rate: 3.123456 } }), 400, 'validation_error');
    await expectProblem(await api('/v1/settings/repo-rates/2026-02-30', { method: 'PUT', json: { rate: 3 } }), 400);
    await expectProblem(await api('/v1/settings/repo-rates/2099-01-01', { method: 'PUT', json: { rate: 3 } }), 422, 'date_in_future');
    expect(await ok(await api('/v1/settings/repo-rates'))).toEqual(before);
  });

  it('is the organisation’s own, and needs the settings scope to change', async () => {
    const other = await secondOrganisation(stack, 'Other repo s.r.o.');
    expect((await ok(await api('/v1/settings/repo-rates', { key: other.key }))).changes.at(-1)).toMatchObject({ valid_from: '2025-05-09', source: 'shipped' });
    const reader = (await ok(await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['settings:read'] } }))).key;
    // a change set by hand made the history known through today
    expect((await ok(await api('/v1/settings/repo-rates', { key: reader }))).known_through).toBe(new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Prague' }).format(new Date()));
    await expectProblem(await importFile(WITH_MAY_CUT, '', reader), 403, 'insufficient_scope');
    await expectProblem(await api('/v1/settings/repo-rates/2026-05-07', { method: 'PUT', key: reader, json: { rate: 9 } }), 403, 'insufficient_scope');
  });

  it("fetches the bank's file by itself into every organisation once it is the history", async () => {
    const other = await secondOrganisation(stack, 'Fetched s.r.o.');
    served = WITH_MAY_CUT;
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Prague' }).format(new Date());
    const fetched = await eventually(async () => {
      const h = await ok(await api('/v1/settings/repo-rates', { key: other.key }));
      // the file served now, not an earlier fetch of the previous one (also known through today)
      return h.known_through === today && h.changes.at(-1)?.valid_from === '2026-05-07' ? h : null;
    }, 15_000);
    expect(fetched.changes.at(-1)).toEqual({ valid_from: '2026-05-07', rate: 3.25, source: 'cnb_file', note: null });
    // the first organisation's hand-set change stays
    expect((await ok(await api('/v1/settings/repo-rates'))).changes.at(-1)).toMatchObject({ rate: 3.3, source: 'manual' });
  });
});
