import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { expectOk as ok, expectProblem } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';

/*
 * The organisation's exchange-rate table through the gateway (issue 56): the CNB's published
 * fixing and the ECB's reference rates imported as the banks publish them, the rate in force on
 * a day (a weekend takes Friday's), re-imports replacing a day, rates set by hand, and files,
 * currencies, organisations and credentials that must change nothing.
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/fx');
const CNB = readFileSync(path.join(FIXTURES, 'cnb-2022-09-21.txt'));
const ECB = readFileSync(path.join(FIXTURES, 'ecb-eurofxref-2024-06-11.xml'));

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

const importFile = (body: Uint8Array | string, type = 'text/plain; charset=utf-8', key?: string) =>
  stack.api('/v1/settings/exchange-rates/import', { method: 'POST', body, headers: { 'content-type': type }, key });
const rates = (query: string, key?: string) => stack.api(`/v1/settings/exchange-rates?${query}`, { key });

describe('exchange rates of a CZK organisation (the CNB fixing)', () => {
  it('imports the published fixing, and answers the rate in force on that day and the days after it', async () => {
    expect(await ok(await importFile(CNB))).toEqual({ source: 'cnb', base_currency: 'CZK', days: 1, rates: 32, date_from: '2022-09-21', date_to: '2022-09-21' });
    // Wednesday's fixing, and on the Saturday after it (no fixing since) still Wednesday's
    for (const date of ['2022-09-21', '2022-09-24']) {
      expect(await ok(await rates(`currency=EUR&date=${date}`))).toEqual({
        date,
        base_currency: 'CZK',
        entities: [{ currency: 'EUR', amount: 1, rate: 24.635, rate_date: '2022-09-21', source: 'cnb', base_currency: 'CZK' }],
      });
    }
    expect((await ok(await rates('currency=HUF&date=2022-09-22'))).entities).toEqual([{ currency: 'HUF', amount: 100, rate: 6.082, rate_date: '2022-09-21', source: 'cnb', base_currency: 'CZK' }]);
    const table = await ok(await rates('date=2022-09-23'));
    expect(table.entities).toHaveLength(32);
    expect(table.entities.map((r: any) => r.currency)).toEqual([...table.entities.map((r: any) => r.currency)].sort());
    // before the first fixing there is none
    await expectProblem(await rates('currency=EUR&date=2022-09-20'), 404, 'exchange_rate_not_found');
    expect((await ok(await rates('date=2022-09-20'))).entities).toEqual([]);
  });

  it("re-importing a day replaces it; the next day's fixing is in force from its day", async () => {
    const corrected = CNB.toString('utf8').replace('|EUR|24,635', '|EUR|24,640');
    expect(await ok(await importFile(corrected))).toMatchObject({ days: 1, rates: 32 });
    expect((await ok(await rates('currency=EUR&date=2022-09-21'))).entities[0].rate).toBe(24.64);
    const thursday = corrected.replace('21.09.2022 #184', '22.09.2022 #185').replace('|EUR|24,640', '|EUR|24,610');
    await ok(await importFile(thursday));
    expect((await ok(await rates('currency=EUR&date=2022-09-21'))).entities[0]).toMatchObject({ rate: 24.64, rate_date: '2022-09-21' });
    expect((await ok(await rates('currency=EUR&date=2022-09-25'))).entities[0]).toMatchObject({ rate: 24.61, rate_date: '2022-09-22' });
  });

  it('a rate set by hand wins over the fixing of its day, and a later import leaves it', async () => {
    const put = await ok(await stack.api('/v1/settings/exchange-rates/EUR/2022-09-22', { method: 'PUT', json: { rate: 24.5 } }));
    expect(put).toEqual({ currency: 'EUR', amount: 1, rate: 24.5, rate_date: '2022-09-22', source: 'manual', base_currency: 'CZK' });
    await ok(await importFile(CNB.toString('utf8').replace('21.09.2022 #184', '22.09.2022 #185')));
    expect((await ok(await rates('currency=EUR&date=2022-09-22'))).entities[0]).toMatchObject({ rate: 24.5, source: 'manual' });
    // a day no bank published: by hand, for 100 units
    expect(await ok(await stack.api('/v1/settings/exchange-rates/HUF/2022-09-24', { method: 'PUT', json: { rate: 6.1, amount: 100 } }))).toMatchObject({ amount: 100, rate: 6.1 });
    expect((await ok(await rates('currency=HUF&date=2022-09-26'))).entities[0]).toMatchObject({ rate: 6.1, amount: 100, rate_date: '2022-09-24', source: 'manual' });
  });

  it('refuses a malformed file naming its line, and changes nothing', async () => {
    const before = await ok(await rates('date=2022-09-30'));
    const broken = CNB.toString('utf8').replace('28.09.2022', '').replace('21.09.2022 #184', '23.09.2022 #186').replace('|USD|24,870', '|USD|24,8x0');
    const problem = await expectProblem(await importFile(broken), 400, 'invalid_rate_file');
    expect(problem.detail).toMatch(/line 33: "24\.8x0" is not a rate/);
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'body:33', code: 'invalid_rate_file' })]);
    // empty, not a fixing, no rates, not UTF-8, a lone surrogate encoded as UTF-8 bytes
    for (const bad of ['', 'hello', '23.09.2022 #186\n', Buffer.from([0xff, 0xfe, 0x00, 0x41]), Buffer.concat([Buffer.from('23.09.2022 #186\n'), Buffer.from([0xed, 0xa0, 0x80])])]) {
      await expectProblem(await importFile(bad), 400);
    }
    await expectProblem(await importFile('<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b "c">]><gesmes:Envelope xmlns="eurofxref"/>', 'application/xml'), 400, 'invalid_rate_file');
    await expectProblem(await importFile(CNB, 'application/pdf'), 415);
    // what a rate set by hand is refused for, a file's line is refused for (issue 71): the crown itself, made-up codes, a day twice
    const fixing = CNB.toString('utf8');
    for (const [bad, message] of [
      [fixing.replace('EMU|euro|1|EUR|24,635', 'Česko|koruna|1|CZK|1,000'), /CZK is the currency the rates are in/],
      [`${fixing}\nNikde|nic|1|AAA|1,000\n`, /AAA is not an ISO 4217 currency/],
      [`${fixing}\n${fixing.replace('EMU|euro|1|EUR|24,635', 'EMU|euro|1|EUR|99,000')}`, /AUD appears twice on 2022-09-21/],
    ] as const) {
      expect((await expectProblem(await importFile(bad), 400, 'invalid_rate_file')).detail).toMatch(message);
    }
    expect(await ok(await rates('date=2022-09-30'))).toEqual(before);
  });

  it("refuses the ECB's euro rates for CZK books, a rate of the legal currency and unusable values", async () => {
    await expectProblem(await importFile(ECB, 'application/xml'), 422, 'exchange_rate_base_mismatch');
    await expectProblem(await stack.api('/v1/settings/exchange-rates/CZK/2022-09-22', { method: 'PUT', json: { rate: 1 } }), 422, 'exchange_rate_of_legal_currency');
    for (const json of [{ rate: 0 }, { rate: -1 }, { rate: '24.5' }, { rate: 1e12 }, { rate: 24.5, amount: 0 }, { rate: 24.5, amount: 1.5 }, {}, { rate: 24.5, rat: 1 }, { rate: 1e-11 }]) {
      const res = await stack.api('/v1/settings/exchange-rates/EUR/2022-09-22', { method: 'PUT', json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      await expectProblem(res, 400);
    }
    for (const where of ['XXX/2022-09-22', 'eur/2022-09-22', 'EUR/2022-02-30', 'EUR/22-09-2022']) {
      await expectProblem(await stack.api(`/v1/settings/exchange-rates/${where}`, { method: 'PUT', json: { rate: 1 } }), 400);
    }
    await expectProblem(await rates('currency=EUR'), 400);
    await expectProblem(await rates('currency=EUR&date=2022-13-01'), 400);
    await expectProblem(await rates('currency=EUR&date=1899-12-31'), 400);
    await expectProblem(await rates('currency=%ED%A0%80UR&date=2022-09-22'), 400); // a lone surrogate, UTF-8 encoded
    // the farthest day a date may name reads the last rate before it
    expect((await ok(await rates('currency=EUR&date=9999-12-31'))).entities[0]).toMatchObject({ rate_date: '2022-09-22' });
    expect((await ok(await rates('currency=EUR&date=2022-09-22'))).entities[0]).toMatchObject({ rate: 24.5, source: 'manual' });
  });

  it("is the organisation's own table, read with settings:read and changed with settings:write", async () => {
    const other = await secondOrganisation(stack, 'Other CZK books');
    expect((await ok(await rates('date=2022-09-30', other.key))).entities).toEqual([]);
    await expectProblem(await rates('currency=EUR&date=2022-09-30', other.key), 404, 'exchange_rate_not_found');
    const reader = await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'rates reader', scopes: ['settings:read'] } }));
    expect((await ok(await rates('currency=EUR&date=2022-09-30', reader.key))).entities[0].currency).toBe('EUR');
    await expectProblem(await importFile(CNB, 'text/plain', reader.key), 403);
    await expectProblem(await stack.api('/v1/settings/exchange-rates/EUR/2022-09-30', { method: 'PUT', json: { rate: 30 }, key: reader.key }), 403);
    const sales = await ok(await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'sales only', scopes: ['sales:write'] } }));
    await expectProblem(await rates('date=2022-09-30', sales.key), 403);
    expect((await ok(await rates('currency=EUR&date=2022-09-30'))).entities[0].rate).toBe(24.5);
  });
});

describe('exchange rates of an EUR organisation (the ECB reference rates)', () => {
  it('imports the euro reference rates turned round into euros, and refuses the CNB fixing', async () => {
    const eur = await secondOrganisation(stack, 'Euro books GmbH', { country: 'DE', currency: 'EUR' });
    expect(await ok(await importFile(ECB, 'application/xml', eur.key))).toEqual({ source: 'ecb', base_currency: 'EUR', days: 1, rates: 30, date_from: '2024-06-11', date_to: '2024-06-11' });
    const usd = (await ok(await rates('currency=USD&date=2024-06-14', eur.key))).entities[0];
    expect(usd).toEqual({ currency: 'USD', amount: 1, rate: 0.9289363679, rate_date: '2024-06-11', source: 'ecb', base_currency: 'EUR' });
    expect((await ok(await rates('currency=JPY&date=2024-06-11', eur.key))).entities[0]).toMatchObject({ amount: 100, rate: 0.5904930617 });
    await expectProblem(await importFile(CNB, 'text/plain', eur.key), 422, 'exchange_rate_base_mismatch');
  });
});
