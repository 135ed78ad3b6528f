import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, MetricsRegistry, sqlRows } from '@ledgerline/service-kit';
import { ExchangeRateFetcher, fetchDue, type FetcherOptions } from '../../apps/settings/src/exchange-rates/fetcher.js';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectOk as ok } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';

/*
 * FX_RATES_URL (issue 56): the central bank's file fetched once a working day after its
 * publication, from a local server that serves the published fixture (no test reaches the
 * internet), by two replicas at once, through a failing answer, into every organisation with
 * books in that bank's currency, and not at all on a weekend or before publication.
 */

const CNB = readFileSync(path.resolve(import.meta.dirname, '../fixtures/fx/cnb-2022-09-21.txt'));

let stack: Stack;
let server: http.Server;
let url: string;
const answers: number[] = [];
let failNext = 0;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    if (failNext > 0) {
      failNext--;
      answers.push(503);
      res.writeHead(503).end('maintenance');
      return;
    }
    answers.push(200);
    res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8' }).end(CNB);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/denni_kurz.txt`;
  stack = await startStack();
}, 60_000);
afterAll(async () => {
  await stack?.close();
  server?.close();
});

const opts = (now: string): FetcherOptions => ({ url, pollMs: 20, after: '14:45', timeZone: 'Europe/Prague', timeoutMs: 2000, now: () => new Date(now) });
const replica = (now: string) => new ExchangeRateFetcher(stack.services.settings!.deps.orm, opts(now), createLogger('fx-test', 'error'), new MetricsRegistry('fx_test'));

describe('the scheduled fetch of the central bank’s rates', () => {
  it('is due on a working day from the publication time, in the bank’s time zone', () => {
    const at = { after: '14:45', timeZone: 'Europe/Prague' };
    expect(fetchDue(new Date('2026-11-27T13:45:00Z'), at)).toBe('2026-11-27'); // Friday 14:45 in Prague (UTC+1)
    expect(fetchDue(new Date('2026-11-27T13:44:00Z'), at)).toBeNull();
    expect(fetchDue(new Date('2026-11-28T15:00:00Z'), at)).toBeNull(); // Saturday
    expect(fetchDue(new Date('2026-11-29T15:00:00Z'), at)).toBeNull(); // Sunday
    expect(fetchDue(new Date('2026-07-01T12:45:00Z'), at)).toBe('2026-07-01'); // summer time: UTC+2
    expect(fetchDue(new Date('2026-07-01T12:44:00Z'), at)).toBeNull();
  });

  it('stores the day once however many replicas look, after a failed answer, for every CZK organisation', async () => {
    const other = await secondOrganisation(stack, 'Second CZK books');
    const euro = await secondOrganisation(stack, 'Euro books', { country: 'DE', currency: 'EUR' });
    // a weekend and a working morning fetch nothing
    for (const now of ['2026-11-28T15:00:00Z', '2026-11-27T08:00:00Z']) {
      const r = replica(now);
      r.start();
      await new Promise((res) => setTimeout(res, 150));
      await r.stop();
    }
    expect(answers).toEqual([]);

    failNext = 1;
    const friday = '2026-11-27T15:00:00Z';
    const replicas = [replica(friday), replica(friday)];
    for (const r of replicas) r.start();
    const em = stack.services.settings!.deps.orm.em.fork();
    await eventually(async () => (await sqlRows(em, "select 1 from exchange_rate_fetches where fetch_day = '2026-11-27'")).length === 1, 10_000);
    await new Promise((res) => setTimeout(res, 300));
    for (const r of replicas) await r.stop();
    expect(answers[0]).toBe(503);
    expect(answers.filter((a) => a === 200).length).toBeLessThanOrEqual(2); // each replica downloads at most once a day
    expect(await sqlRows(em, "select source, to_char(rate_date, 'YYYY-MM-DD') as rate_date, organisations from exchange_rate_fetches where fetch_day = '2026-11-27'")).toEqual([
      { source: 'cnb', rate_date: '2022-09-21', organisations: 2 },
    ]);
    // both CZK organisations read the fixing; the EUR one got none
    for (const key of [undefined, other.key]) {
      expect((await ok(await stack.api('/v1/settings/exchange-rates?currency=EUR&date=2022-09-23', { key }))).entities[0]).toMatchObject({ rate: 24.635, source: 'cnb' });
    }
    expect((await ok(await stack.api('/v1/settings/exchange-rates?date=2022-09-23', { key: euro.key }))).entities).toEqual([]);

    // the next look that day does nothing
    const before = answers.length;
    const again = replica('2026-11-27T16:00:00Z');
    again.start();
    await new Promise((res) => setTimeout(res, 150));
    await again.stop();
    expect(answers.length).toBe(before);
  });
});
