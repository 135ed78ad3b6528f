import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAresAnswer } from './ares.js';
import { readViesAnswer, ViesUnavailable } from './vies.js';
import { readVatPayerAnswer, vatPayerRequest } from './vat-payers.js';
import { RegisterFormatError } from './register-answers.js';
import { GUARANTEE_THRESHOLD_CZK } from './registers.js';

/* The registers' answers as they come (tests/fixtures/registers, sources in its README), read. */
const fixture = (name: string) => readFileSync(path.resolve(import.meta.dirname, '../../../../tests/fixtures/registers', name), 'utf8');

describe('ARES', () => {
  it('reads a business as a contact: name, seat as a Czech address, DIČ, legal form', () => {
    expect(readAresAnswer('26835746', 200, fixture('ares-26835746.json'))).toEqual({
      reg_no: '26835746',
      business_name: 'AUTOMOTOLAND CZ s.r.o.',
      vat_no: 'CZ26835746',
      address: { address1: 'Ostravská 1941/38a', address2: null, postal_code: '748 01', city: 'Hlučín', country: 'CZ' },
      legal_form: '112',
      date_established: '2004-05-31',
      date_dissolved: null,
    });
  });
  it('a part of town and a seat without a street', () => {
    const seat = { kodStatu: 'CZ', nazevObce: 'Praha', nazevCastiObce: 'Holešovice', nazevUlice: 'Jankovcova', cisloDomovni: 1522, cisloOrientacni: 53, psc: 17000 };
    const found = (sidlo: object) => readAresAnswer('27082440', 200, JSON.stringify({ ico: '27082440', obchodniJmeno: 'Alza.cz a.s.', sidlo })) as { address: unknown };
    expect(found(seat).address).toEqual({ address1: 'Jankovcova 1522/53', address2: 'Holešovice', postal_code: '170 00', city: 'Praha', country: 'CZ' });
    const village = { kodStatu: 'CZ', nazevObce: 'Lhota', cisloDomovni: 7, psc: '39001' };
    expect(found(village).address).toMatchObject({ address1: 'Lhota 7', address2: null, postal_code: '390 01', city: 'Lhota' });
  });
  it('not found, and what is not its answer', () => {
    expect(readAresAnswer('00006947', 404, fixture('ares-not-found.json'))).toEqual({ not_found: true });
    expect(() => readAresAnswer('26835746', 500, '<html>')).toThrow(RegisterFormatError);
    expect(() => readAresAnswer('26835746', 400, JSON.stringify({ kod: 'CHYBA_VSTUPU', popis: 'Chybný vstup' }))).toThrow(/400: Chybný vstup/);
    expect(() => readAresAnswer('26835746', 200, JSON.stringify({ ico: '27082440', obchodniJmeno: 'Other' }))).toThrow(/another IČO/);
  });
});

describe('VIES', () => {
  it('valid with name, address and consultation number; undisclosed as null', () => {
    expect(readViesAnswer(200, fixture('vies-sk-valid.json'))).toEqual({ valid: true, name: 'Slovenská sporiteľňa, a.s.', address: 'Tomášikova 48, 832 37 Bratislava', request_date: '2026-12-02', consultation_number: 'WAPIAAAAY5xH0Zb2' });
    expect(readViesAnswer(200, fixture('vies-de-valid.json'))).toMatchObject({ valid: true, name: null, address: null, consultation_number: null });
  });
  it('a member state that cannot answer is unavailable; a broken answer is a format error', () => {
    expect(() => readViesAnswer(200, fixture('vies-ms-unavailable.json'))).toThrow(ViesUnavailable);
    expect(() => readViesAnswer(200, JSON.stringify({ isValid: true }))).toThrow(/requestDate/);
    expect(() => readViesAnswer(502, 'Bad Gateway')).toThrow(RegisterFormatError);
  });
});

describe("the VAT payers' register", () => {
  it('asks for the digits of one DIČ', () => {
    expect(vatPayerRequest('26835746')).toContain('<roz:dic>26835746</roz:dic>');
    expect(vatPayerRequest('<x>1')).toContain('<roz:dic>1</roz:dic>');
  });
  it('a reliable payer with a published standard account', () => {
    expect(readVatPayerAnswer('CZ26835746', 200, fixture('vat-payers-26835746.xml'))).toEqual({
      registered: true,
      unreliable: false,
      unreliable_since: null,
      tax_office: '463',
      name: 'AUTOMOTOLAND CZ',
      published_accounts: [{ account_number: '351361/5500', iban: 'CZ7555000000000000351361', published_on: '2020-04-04' }],
    });
  });
  it('an unreliable payer with a prefixed and a non-standard account; one not registered', () => {
    expect(readVatPayerAnswer('CZ12345679', 200, fixture('vat-payers-unreliable.xml'))).toMatchObject({
      unreliable: true,
      unreliable_since: '2026-03-01',
      published_accounts: [
        { account_number: '19-2000145399/0800', iban: 'CZ6508000000192000145399', published_on: '2019-01-02' },
        { account_number: null, iban: 'SK3112000000198742637541', published_on: '2021-06-30' },
      ],
    });
    expect(readVatPayerAnswer('CZ00006947', 200, fixture('vat-payers-not-found.xml'))).toMatchObject({ registered: false, unreliable: null });
  });
  it('a SOAP fault, a bad status or HTML is a format error', () => {
    const fault = '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault><faultstring>Bad request</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>';
    expect(() => readVatPayerAnswer('CZ1', 500, fault)).toThrow(/SOAP fault: Bad request/);
    expect(() => readVatPayerAnswer('CZ26835746', 200, fixture('vat-payers-26835746.xml').replace('statusCode="0"', 'statusCode="2"'))).toThrow(/status 2/);
    expect(() => readVatPayerAnswer('CZ26835746', 200, '<html><body>down</body></html>')).toThrow(RegisterFormatError);
  });
  it('§109(2)(c): the threshold is twice the cash-payment limit', () => {
    expect(GUARANTEE_THRESHOLD_CZK.toFixed(0)).toBe('540000');
  });
});
