import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from './support.js';
import { FIO_ACCOUNT as ACCOUNT, FIO_TOKEN as TOKEN, startFioBank, type FioBank } from '../support/fio-bank.js';

/*
 * Statements fetched from Fio banka's API (issue 78, decision 241) through the gateway, against a
 * local server answering the format the bank publishes (FIO API Bankovnictví: `GET
 * /periods/{token}/{from}/{to}/transactions.json`, `accountStatement.info` and numbered columns per
 * movement; 409 when a token is called more than once in 30 seconds). The token is stored sealed and
 * never answered; the scheduler fetches on its own; a manual fetch too soon is 429; each movement is
 * recorded once by its id and matched as a statement's entries are; every failure shows on the
 * integration and stores nothing.
 */

let bank: FioBank;
let stack: Stack;
beforeAll(async () => {
  bank = await startFioBank();
  stack = await startStack({ services: ['sales', 'purchase', 'finance'], env: { FIO_API_URL: bank.url, FIO_POLL_MS: '200' } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await bank?.close();
});

const post = async (p: string, json: unknown, key?: string) => ok(await stack.api(p, { method: 'POST', json, key }));
const get = async (p: string, key?: string) => ok(await stack.api(p, { key }));
/** Lets the next call through the bank's 30 seconds (the test's clock cannot wait them out). */
const afterThirtySeconds = async (id: number) => {
  await sqlRows(stack.services.finance!.deps.orm.em.fork(), "update fio_integrations set last_call_at = last_call_at - interval '31 seconds' where id = ?", [id]);
};
const transactions = async (key?: string) => (await get('/v1/finance/bank/transactions?take=0', key)).total;

describe('statements fetched from Fio banka (issue 78)', () => {
  let fio: any;

  it('an integration keeps its token sealed; the scheduler fetches the movements and they pay the invoice their variable symbol names', async () => {
    const invoice = await post('/v1/sales/invoices', {
      customer: { id: 9101, business_name: 'Kavárna U Nádraží s.r.o.' },
      currency: 'CZK',
      date_issued: '2026-11-02',
      date_due: '2026-11-16',
      items: [{ title: 'Catering', qty: 1, rate: 2500 }],
    });
    bank.movements = [
      { id: 24110501, day: '2026-11-05', amount: 2500, vs: invoice.variable_symbol ?? invoice.no.replace(/\D/g, '').slice(-10), account: '2900233333', bank: '2010', name: 'Kavárna U Nádraží', message: 'Faktura' },
      { id: 24110502, day: '2026-11-05', amount: -35.5, type: 'Poplatek', message: 'Poplatek za vedení' },
    ];
    fio = await post('/v1/settings/integrations/cz.fio', { token: TOKEN, name: 'Fio – provozní účet', account: '2701000002/2010', interval_minutes: 60, fetch_from: '2026-11-01' });
    expect(fio).toMatchObject({ name: 'Fio – provozní účet', token: `****${TOKEN.slice(-4)}`, interval_minutes: 60, fetch_from: '2026-11-01', last_fetch_at: null, last_error: null });
    expect(JSON.stringify(fio)).not.toContain(TOKEN.slice(0, 20));
    const [stored] = await sqlRows<{ token_enc: string }>(stack.services.finance!.deps.orm.em.fork(), 'select token_enc from fio_integrations where id = ?', [fio.id]);
    expect(stored.token_enc).not.toContain(TOKEN.slice(0, 20));

    // the scheduler finds it due and fetches
    fio = await eventually(async () => {
      const seen = await get(`/v1/settings/integrations/cz.fio/${fio.id}`);
      return seen.last_success_at ? seen : null;
    }, 15_000);
    expect(fio).toMatchObject({ last_error: null, last_result: { date_from: '2026-11-01', movements: 2, recorded: 2, statement_id: expect.any(Number) } });
    expect(bank.calls.at(-1)).toMatch(new RegExp(`^/v1/rest/periods/${TOKEN}/2026-11-01/\\d{4}-\\d{2}-\\d{2}/transactions\\.json$`));
    const statement = await get(`/v1/finance/bank/statements/${fio.last_result.statement_id}`);
    expect(statement).toMatchObject({ format: 'fio', account: ACCOUNT.iban, opening_balance: 1000, closing_balance: 3464.5 });
    expect(statement.entries.map((e: any) => [e.amount, e.status, e.bank_reference])).toEqual([
      [2500, 'matched', '24110501'],
      [-35.5, 'fee', '24110502'],
    ]);
    await eventually(async () => (await get(`/v1/sales/invoices/${invoice.id}`)).payment_status === 'paid', 10_000);
    expect(await get('/v1/settings/integrations/cz.fio')).toEqual({ entities: [fio] });
  });

  it('a fetch within 30 seconds of the last call is 429 and calls nothing; later, each movement is recorded once', async () => {
    const calls = bank.calls.length;
    const problem = await expectProblem(await stack.api(`/v1/settings/integrations/cz.fio/${fio.id}/fetch`, { method: 'POST' }), 429, 'bank_rate_limited');
    expect(problem.detail).toMatch(/30 seconds/);
    expect(bank.calls.length).toBe(calls);

    const before = await transactions();
    bank.movements.push({ id: 24110601, day: '2026-11-06', amount: 1200, message: 'Vratka zálohy', account: '19-2000145399', bank: '0800' });
    await afterThirtySeconds(fio.id);
    fio = await post(`/v1/settings/integrations/cz.fio/${fio.id}/fetch`, {});
    expect(fio.last_result).toMatchObject({ movements: 3, recorded: 1 });
    expect(await transactions()).toBe(before + 1);
    // the same answer again: nothing new, still a success
    await afterThirtySeconds(fio.id);
    fio = await post(`/v1/settings/integrations/cz.fio/${fio.id}/fetch`, {});
    expect(fio).toMatchObject({ last_error: null, last_result: { movements: 3, recorded: 0 } });
    expect(await transactions()).toBe(before + 1);
  });

  it("the bank's refusals and a statement that does not balance show on the integration and store nothing", async () => {
    const before = await transactions();
    const lastSuccess = fio.last_success_at;
    for (const [mode, code] of [
      ['conflict', 'bank_rate_limited'],
      ['unauthorised', 'bank_failed'],
      ['garbage', 'bank_answer_unreadable'],
      ['unbalanced', 'statement_does_not_balance'],
    ] as const) {
      bank.mode = mode;
      bank.movements.push({ id: 24110700 + bank.movements.length, day: '2026-11-07', amount: 10 });
      await afterThirtySeconds(fio.id);
      fio = await post(`/v1/settings/integrations/cz.fio/${fio.id}/fetch`, {});
      expect(fio.last_error, mode).toMatchObject({ code, at: expect.any(String) });
      expect(fio.last_success_at).toBe(lastSuccess);
      expect(await transactions()).toBe(before);
    }
    // the bank's "too often" is tried again after its 30 seconds, not the integration's hour
    bank.mode = 'conflict';
    await afterThirtySeconds(fio.id);
    fio = await post(`/v1/settings/integrations/cz.fio/${fio.id}/fetch`, {});
    expect(Date.parse(fio.next_fetch_at) - Date.parse(fio.last_fetch_at)).toBe(30_000);
    bank.mode = 'ok';
    bank.movements = bank.movements.filter((m) => m.id < 24110700);
  });

  it('replaced without a token it keeps it; bad bodies 400; other organisations and weaker keys see nothing; deleted it stops', async () => {
    const replaced = await ok(await stack.api(`/v1/settings/integrations/cz.fio/${fio.id}`, { method: 'PUT', json: { name: 'Fio – EUR', account: '2701000002/2010', interval_minutes: 15 } }));
    expect(replaced).toMatchObject({ name: 'Fio – EUR', interval_minutes: 15, token: `****${TOKEN.slice(-4)}` });
    await afterThirtySeconds(fio.id);
    expect((await post(`/v1/settings/integrations/cz.fio/${fio.id}/fetch`, {})).last_error).toBeNull();

    for (const body of [{}, { token: 'short' }, { token: `${TOKEN}\u0000` }, { token: TOKEN, interval_minutes: 0 }, { token: TOKEN, interval_minutes: 100000 }, { token: TOKEN, fetch_from: 'yesterday' }, { token: TOKEN, extra: 1 }]) {
      await expectProblem(await stack.api('/v1/settings/integrations/cz.fio', { method: 'POST', json: body }), 400);
    }
    const other = await secondOrganisation(stack, 'Jiná s.r.o.');
    await expectProblem(await stack.api(`/v1/settings/integrations/cz.fio/${fio.id}`, { key: other.key }), 404, 'fio_integration_not_found');
    await expectProblem(await stack.api(`/v1/settings/integrations/cz.fio/${fio.id}/fetch`, { method: 'POST', key: other.key }), 404, 'fio_integration_not_found');
    expect(await get('/v1/settings/integrations/cz.fio', other.key)).toEqual({ entities: [] });
    const reader = (await post('/v1/settings/security/api-keys', { name: 'reader', scopes: ['settings:read', 'finance:write'] })).key;
    await expectProblem(await stack.api('/v1/settings/integrations/cz.fio', { method: 'POST', key: reader, json: { token: TOKEN } }), 403);
    expect((await get('/v1/settings/integrations/cz.fio', reader)).entities).toHaveLength(1);

    const deleted = await ok(await stack.api(`/v1/settings/integrations/cz.fio/${fio.id}`, { method: 'DELETE' }));
    expect(deleted.id).toBe(fio.id);
    expect(await get('/v1/settings/integrations/cz.fio')).toEqual({ entities: [] });
  });
});
