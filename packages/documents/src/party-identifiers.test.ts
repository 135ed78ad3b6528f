import { describe, expect, it } from 'vitest';
import { checkCompanyNumber, checkCzechAccount, checkIban, checkVatNumber, VAT_NUMBER_FORMATS } from './party-identifiers.js';

/*
 * Identifiers of real, public parties: the IČO of the Ministry of Finance (00006947), Alza.cz a.s.
 * (27082440) and ČEZ, a. s. (45274649) as the business register (ARES) lists them; the Czech
 * example of the SWIFT IBAN Registry (CZ65 0800 0000 1920 0014 5399, domestically
 * 19-2000145399/0800); the VAT numbers' formats as the European Commission's VIES FAQ gives them.
 */
describe('IČO (mod 11)', () => {
  it.each(['00006947', '27082440', '45274649', '6947'])('%s holds', (ico) => {
    expect(checkCompanyNumber(ico)).toEqual({ value: ico.padStart(8, '0') });
  });
  it.each([
    ['27082441', 'check digit'],
    ['45274648', 'check digit'],
    ['123456789', 'at most eight digits'],
    ['2708244A', 'at most eight digits'],
    ['00000000', 'all zeros'],
    ['', 'at most eight digits'],
  ])('%s is refused (%s)', (ico, why) => {
    const r = checkCompanyNumber(ico);
    expect('problem' in r && r.problem).toContain(why);
  });
  it('every remainder maps to its digit: r = 0 → 1, r = 1 → 0, else 11 − r', () => {
    // 0000001x: the sum is 1·2 = 2 → 9; 0000010x: 1·3 = 3 → 8; 0000100x: 4 → 7; 0011000x: 6+5 = 11 → r 0 → 1; 0000005x: 5·2 = 10 → 1; 0000006x: 12 → r 1 → 0
    for (const [ico, ok] of [['00000019', true], ['00000108', true], ['00001007', true], ['00110001', true], ['00000051', true], ['00000060', true], ['00000061', false]] as const) {
      expect('value' in checkCompanyNumber(ico), ico).toBe(ok);
    }
  });
});

describe('VAT numbers (DIČ) by country', () => {
  it.each([
    ['CZ27082440', 'CZ27082440'],
    ['cz 270 82 440', 'CZ27082440'],
    ['CZ7103192745', 'CZ7103192745'],
    ['CZ640903926', 'CZ640903926'],
    ['SK2020317068', 'SK2020317068'],
    ['DE123456789', 'DE123456789'],
    ['ATU12345678', 'ATU12345678'],
    ['EL123456789', 'EL123456789'],
    ['FRK7123456789', 'FRK7123456789'],
    ['NL123456789B01', 'NL123456789B01'],
    ['IE1234567WA', 'IE1234567WA'],
    ['ESX1234567L', 'ESX1234567L'],
    ['SE123456789701', 'SE123456789701'],
    ['CHE123456789MWST', 'CHE123456789MWST'],
    ['GB123456789', 'GB123456789'],
    ['US123456789', 'US123456789'],
  ])('%s holds as %s', (raw, value) => expect(checkVatNumber(raw)).toEqual({ value }));
  it.each([
    ['CZ27082441', 'IČO'],
    ['CZ7103192746', 'divisible by 11'],
    ['CZ1234567', 'format of a CZ'],
    ['DE12345678', 'format of a DE'],
    ['ATU1234567', 'format of a AT'],
    ['NL123456789', 'format of a NL'],
    ['SK0020317068', 'format of a SK'],
    ['27082440', 'country code'],
    ['CZ', 'country code'],
    ['CZ2708244\u0000', 'country code'],
  ])('%s is refused (%s)', (raw, why) => {
    const r = checkVatNumber(raw);
    expect('problem' in r && r.problem).toContain(why);
  });
  it('every EU member state has a format', () => {
    for (const p of 'AT BE BG CY CZ DE DK EE EL ES FI FR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' ')) expect(VAT_NUMBER_FORMATS[p], p).toBeDefined();
  });
});

describe('bank accounts', () => {
  it('the IBAN Registry example holds, with spaces or without', () => {
    expect(checkIban('CZ65 0800 0000 1920 0014 5399')).toEqual({ value: 'CZ6508000000192000145399' });
    expect(checkIban('DE89370400440532013000')).toEqual({ value: 'DE89370400440532013000' });
    expect('problem' in checkIban('CZ66 0800 0000 1920 0014 5399')).toBe(true);
    expect('problem' in checkIban('not an iban')).toBe(true);
  });
  it('a Czech account: the weighted check and its IBAN', () => {
    expect(checkCzechAccount('19-2000145399/0800')).toEqual({ value: '19-2000145399/0800', iban: 'CZ6508000000192000145399' });
    expect(checkCzechAccount('000019 - 2000145399 / 0800')).toEqual({ value: '19-2000145399/0800', iban: 'CZ6508000000192000145399' });
    expect(checkCzechAccount('2000145399/0800').hasOwnProperty('iban')).toBe(true);
    const wrong = checkCzechAccount('19-2000145398/0800');
    expect('problem' in wrong && wrong.problem).toContain('weighted check');
    const shape = checkCzechAccount('2000145399');
    expect('problem' in shape && shape.problem).toContain('bank code');
  });
});
