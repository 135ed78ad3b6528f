import { readFileSync } from 'node:fs';
import path from 'node:path';
import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { RateFileError, parseCnbDaily, parseEcbReference, parseRateFile } from './rate-files.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../../tests/fixtures/fx');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const CNB = fixture('cnb-2022-09-21.txt');
const ECB = fixture('ecb-eurofxref-2024-06-11.xml');

describe("the CNB's daily fixing", () => {
  it("reads the published day: every currency, the units each is quoted for, the rate's decimal comma", () => {
    const file = parseCnbDaily(CNB);
    expect(file).toMatchObject({ source: 'cnb', base: 'CZK' });
    expect(file.rates).toHaveLength(32);
    const by = Object.fromEntries(file.rates.map((r) => [r.currency, r]));
    expect(by.EUR).toEqual({ currency: 'EUR', amount: 1, rate: '24.635', rate_date: '2022-09-21' });
    expect(by.HUF).toEqual({ currency: 'HUF', amount: 100, rate: '6.082', rate_date: '2022-09-21' });
    expect(by.IDR).toEqual({ currency: 'IDR', amount: 1000, rate: '1.658', rate_date: '2022-09-21' });
    expect(by.CHF.rate).toBe('25.8');
    expect(new Set(file.rates.map((r) => r.rate_date))).toEqual(new Set(['2022-09-21']));
  });

  it('reads several days joined, with CRLF line ends and a byte-order mark', () => {
    const second = CNB.replace('21.09.2022 #184', '22.09.2022 #185').replace('EMU|euro|1|EUR|24,635', 'EMU|euro|1|EUR|24,610');
    const file = parseCnbDaily(`\uFEFF${CNB}\n${second}`.replace(/\n/g, '\r\n'));
    expect(file.rates).toHaveLength(64);
    expect(file.rates.filter((r) => r.currency === 'EUR').map((r) => [r.rate_date, r.rate])).toEqual([
      ['2022-09-21', '24.635'],
      ['2022-09-22', '24.61'],
    ]);
  });

  const broken: Array<[string, string, number, RegExp]> = [
    ['no date line', CNB.split('\n').slice(1).join('\n'), 1, /starts with its date line/],
    ['a day that does not exist', CNB.replace('21.09.2022', '31.09.2022'), 1, /names no calendar day/],
    ['the column line missing', CNB.replace('země|měna|množství|kód|kurz\n', ''), 2, /column line/],
    ['a rate with a letter', CNB.replace('|EUR|24,635', '|EUR|24,6x5'), 8, /is not a rate/],
    ['a zero rate', CNB.replace('|EUR|24,635', '|EUR|0,000'), 8, /out of range/],
    ['a negative rate', CNB.replace('|EUR|24,635', '|EUR|-24,635'), 8, /is not a rate/],
    ['an amount of no units', CNB.replace('|100|HUF|', '|0|HUF|'), 20, /amount of units/],
    ['a code that is no currency', CNB.replace('|EUR|', '|EURO|'), 8, /currency code/],
    ['four columns', CNB.replace('EMU|euro|1|EUR|24,635', 'EMU|1|EUR|24,635'), 8, /5 columns/],
    ['a currency twice in a day', `${CNB}USA|dolar|1|USD|24,871\n`, 35, /USD appears twice/],
    ['a file ending after its date line', '21.09.2022 #184\n', 2, /ends before its column line/],
    ['a null byte', CNB.replace('|EUR|24,635', '|EUR|24,6\u000035'), 8, /is not a rate/],
    // issue 71: what a rate set by hand is refused for, a file's line is refused for too
    ['a line for the crown itself', CNB.replace('EMU|euro|1|EUR|24,635', 'Česko|koruna|1|CZK|1,000'), 8, /CZK is the currency the rates are in/],
    ['a made-up currency', CNB.replace('|EUR|', '|AAA|'), 8, /AAA is not an ISO 4217 currency/],
    ['the same day twice in two blocks', `${CNB}\n${CNB.split('\n').slice(0, 3).join('\n')}\n`, 38, /appears twice on 2022-09-21/],
  ];
  it.each(broken)('refuses %s, naming the line', (_what, text, line, message) => {
    let error: unknown;
    try {
      parseCnbDaily(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RateFileError);
    expect((error as RateFileError).line).toBe(line);
    expect((error as RateFileError).message).toMatch(message);
  });
});

describe("the ECB's euro reference rates", () => {
  it('reads the published day and turns each rate round into euros per unit, to ten decimals', () => {
    const file = parseEcbReference(ECB);
    expect(file).toMatchObject({ source: 'ecb', base: 'EUR' });
    expect(file.rates).toHaveLength(30);
    const by = Object.fromEntries(file.rates.map((r) => [r.currency, r]));
    expect(by.USD).toEqual({ currency: 'USD', amount: 1, rate: '0.9289363679', rate_date: '2024-06-11' });
    // a currency worth little is quoted for 10, 100, 1000… units, as the CNB does
    expect(by.CZK).toMatchObject({ amount: 10, rate: '0.4050879041' });
    expect(by.JPY).toMatchObject({ amount: 100, rate: '0.5904930617' });
    expect(by.IDR).toMatchObject({ amount: 10000, rate: '0.5697161674' });
    // turned round again, every rate gives back the published quote
    const quotes = [...ECB.matchAll(/currency='(\w+)' rate='([\d.]+)'/g)];
    expect(quotes).toHaveLength(30);
    for (const [, currency, quoted] of quotes) {
      const back = new Decimal(by[currency].amount).div(by[currency].rate);
      expect(back.toDecimalPlaces(quoted.split('.')[1].length).eq(quoted), `${currency}: ${back}`).toBe(true);
    }
    // 10 000 USD in euros to the cent, as with the published quote
    expect(new Decimal(10_000).mul(by.USD.rate).toDecimalPlaces(2).toString()).toBe(new Decimal(10_000).div('1.0765').toDecimalPlaces(2).toString());
  });

  it('reads the 90-day and history layouts: many days, the newest first', () => {
    const older = ECB.replace("time='2024-06-11'", "time='2024-06-10'").replace("rate='1.0765'", "rate='1.0747'");
    const days = older.slice(older.indexOf("<Cube time="), older.lastIndexOf('</Cube>\n\t</Cube>') + '</Cube>'.length);
    const history = ECB.replace('\t</Cube>\n</gesmes:Envelope>', `\t${days}\n\t</Cube>\n</gesmes:Envelope>`);
    const file = parseEcbReference(history);
    expect(file.rates).toHaveLength(60);
    expect(file.rates.filter((r) => r.currency === 'USD').map((r) => r.rate_date)).toEqual(['2024-06-11', '2024-06-10']);
  });

  const broken: Array<[string, string, number, RegExp]> = [
    ['another XML document', '<?xml version="1.0"?><Invoice/>', 1, /not an ECB eurofxref document/],
    ['an entity declaration', ECB.replace('<gesmes:Envelope', '<!DOCTYPE x [<!ENTITY a "b">]><gesmes:Envelope'), 1, /document type declarations/],
    ['a day that does not exist', ECB.replace("time='2024-06-11'", "time='2024-02-30'"), 8, /not a calendar day/],
    ['a rate that is not a number', ECB.replace("rate='169.35'", "rate='NaN'"), 10, /is not a rate/],
    ['a zero rate', ECB.replace("rate='169.35'", "rate='0'"), 10, /out of range/],
    ['a currency twice', ECB.replace("currency='JPY'", "currency='USD'"), 10, /USD appears twice/],
    ['a line for the euro itself', ECB.replace("currency='JPY'", "currency='EUR'"), 10, /EUR is the currency the rates are in/],
    ['a made-up currency', ECB.replace("currency='JPY'", "currency='ZZZ'"), 10, /ZZZ is not an ISO 4217 currency/],
    ['a rate outside a day', ECB.replace("<Cube time='2024-06-11'>", '<Cube>'), 9, /outside a <Cube time/],
  ];
  it.each(broken)('refuses %s, naming the line', (_what, text, line, message) => {
    let error: unknown;
    try {
      parseEcbReference(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RateFileError);
    expect([(error as RateFileError).line, (error as RateFileError).message]).toEqual([line, expect.stringMatching(message)]);
  });
});

it('tells the two apart by their content', () => {
  expect(parseRateFile(CNB).source).toBe('cnb');
  expect(parseRateFile(`\n  ${ECB}`).source).toBe('ecb');
});
