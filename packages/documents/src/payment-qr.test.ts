import { describe, expect, it } from 'vitest';
import { decode as decodePayBySquare } from 'bysquare/pay';
import { czechAccountToIban, documentVariableSymbol, domesticAccountOf, epcPayload, normaliseIban, payBySquarePayload, paymentQr, spaydPayload, variableSymbol } from './payment-qr.js';

const CZ_IBAN = 'CZ65 0800 0000 1920 0014 5399';
const SK_IBAN = 'SK3112000000198742637541';

describe('IBAN and variable symbol', () => {
  it('accepts IBANs whose check digits agree, spaces and case aside', () => {
    expect(normaliseIban(CZ_IBAN)).toBe('CZ6508000000192000145399');
    expect(normaliseIban('sk31 1200 0000 1987 4263 7541')).toBe(SK_IBAN);
    expect(normaliseIban('CZ6608000000192000145399')).toBeNull();
    expect(normaliseIban('123456789/0100')).toBeNull();
    expect(normaliseIban(null)).toBeNull();
  });
  it('turns a Czech account number into its IBAN, and refuses one that fails the Czech check', () => {
    expect(czechAccountToIban('19-2000145399/0800')).toBe('CZ6508000000192000145399');
    expect(czechAccountToIban('2000145399 / 0800')).toBe('CZ7908000000002000145399');
    expect(normaliseIban('CZ7908000000002000145399')).toBe('CZ7908000000002000145399');
    // 0123456789 weighs 210, not a multiple of 11: not an account number any Czech bank issues
    expect(czechAccountToIban('123456789/0100')).toBeNull();
    expect(czechAccountToIban('2000145398/0800')).toBeNull();
    expect(czechAccountToIban('CZ6508000000192000145399')).toBeNull();
  });
  it('takes a reference of 1–10 digits as the variable symbol', () => {
    expect(variableSymbol('20260042')).toBe('20260042');
    expect(variableSymbol('INV-42')).toBeNull();
    expect(variableSymbol('12345678901')).toBeNull();
  });
  it("a document's variable symbol: its digit-only payment reference, else the last ten digits of its number", () => {
    expect(documentVariableSymbol('20260042', 'INV-2026-0042')).toBe('20260042');
    expect(documentVariableSymbol(' 77 ', 'X')).toBe('77');
    expect(documentVariableSymbol('RF18 5390 0754 7034', 'INV-2026-0042')).toBe('20260042');
    expect(documentVariableSymbol(null, 'FV/2026/11/000123456')).toBe('1000123456');
    expect(documentVariableSymbol(null, 'ABC')).toBeNull();
    expect(documentVariableSymbol(undefined, undefined)).toBeNull();
  });
  it('reads the domestic account out of a Czech or Slovak IBAN, the inverse of czechAccountToIban', () => {
    expect(domesticAccountOf(CZ_IBAN)).toEqual({ accountNumber: '19-2000145399', bankCode: '0800' });
    expect(domesticAccountOf('CZ7908000000002000145399')).toEqual({ accountNumber: '2000145399', bankCode: '0800' });
    expect(domesticAccountOf(SK_IBAN)).toEqual({ accountNumber: '19-8742637541', bankCode: '1200' });
    expect(domesticAccountOf('DE89370400440532013000')).toBeNull();
    expect(domesticAccountOf(null)).toBeNull();
    for (const account of ['19-2000145399/0800', '2000145399/0800']) {
      const iban = czechAccountToIban(account)!;
      const back = domesticAccountOf(iban)!;
      expect(`${back.accountNumber}/${back.bankCode}`).toBe(account);
    }
  });
});

describe('Czech QR Platba (SPAYD)', () => {
  it('carries account, amount to the cent, currency, variable symbol, due date and a clean message', () => {
    expect(spaydPayload({ iban: CZ_IBAN, bic: 'gibaczpx', amount: 726, currency: 'CZK', reference: '20260042', dueDate: '2026-12-04', message: 'Faktura *2026* – Žluťoučký kůň' })).toBe(
      'SPD*1.0*ACC:CZ6508000000192000145399+GIBACZPX*AM:726.00*CC:CZK*X-VS:20260042*DT:20261204*MSG:Faktura 2026  Zlutoucky kun',
    );
    expect(spaydPayload({ iban: CZ_IBAN, amount: '0.10', currency: 'CZK' })).toBe('SPD*1.0*ACC:CZ6508000000192000145399*AM:0.10*CC:CZK');
  });
  it('is not made without a valid IBAN or for nothing to pay', () => {
    expect(spaydPayload({ iban: 'CZ00', amount: 1, currency: 'CZK' })).toBeNull();
    expect(spaydPayload({ iban: CZ_IBAN, amount: 0, currency: 'CZK' })).toBeNull();
    expect(spaydPayload({ iban: CZ_IBAN, amount: -5, currency: 'CZK' })).toBeNull();
  });
});

describe('EPC QR code (SEPA credit transfer)', () => {
  it('has the EPC069-12 lines, version 002, the payee, IBAN, EUR amount and the reference', () => {
    expect(epcPayload({ iban: SK_IBAN, bic: 'SUBASKBX', payee: 'Dodávateľ s.r.o.', amount: 1234.5, currency: 'EUR', reference: 'INV-42' })).toBe(
      'BCD\n002\n1\nSCT\nSUBASKBX\nDodávateľ s.r.o.\nSK3112000000198742637541\nEUR1234.50\n\n\nINV-42',
    );
  });
  it('needs a payee, an IBAN and EUR', () => {
    expect(epcPayload({ iban: SK_IBAN, payee: '', amount: 1, currency: 'EUR' })).toBeNull();
    expect(epcPayload({ iban: SK_IBAN, payee: 'A', amount: 1, currency: 'CZK' })).toBeNull();
  });
});

describe('PAY by square', () => {
  it('decodes (with the reference decoder) to the payment order it was made from', () => {
    const text = payBySquarePayload({ iban: 'sk31 1200 0000 1987 4263 7541', bic: 'SUBASKBX', payee: 'Dodávateľ s.r.o.', amount: '1234.50', currency: 'EUR', reference: '2026004', dueDate: '2026-12-04', message: 'INV2026004' })!;
    expect(text).toMatch(/^[0-9A-V]+$/);
    expect(decodePayBySquare(text)).toMatchObject({
      payments: [{ type: 1, amount: 1234.5, currencyCode: 'EUR', paymentDueDate: '20261204', variableSymbol: '2026004', paymentNote: 'INV2026004', bankAccounts: [{ iban: SK_IBAN, bic: 'SUBASKBX' }] }],
    });
  });
  it('is not made without an IBAN or for nothing to pay', () => {
    expect(payBySquarePayload({ iban: 'SK00', amount: 1, currency: 'EUR' })).toBeNull();
    expect(payBySquarePayload({ iban: SK_IBAN, amount: 0, currency: 'EUR' })).toBeNull();
  });
});

describe('the code of a document', () => {
  it('is QR Platba for CZK, PAY by square for EUR from a Slovak organisation, the EPC code for other EUR, none for other currencies', () => {
    expect(paymentQr({ iban: CZ_IBAN, amount: 1, currency: 'czk' })?.kind).toBe('spayd');
    expect(paymentQr({ iban: SK_IBAN, payee: 'A', amount: 1, currency: 'EUR' })?.kind).toBe('epc');
    expect(paymentQr({ iban: SK_IBAN, payee: 'A', amount: 1, currency: 'EUR', country: 'sk' })?.kind).toBe('bysquare');
    expect(paymentQr({ iban: CZ_IBAN, payee: 'A', amount: 1, currency: 'USD' })).toBeNull();
  });
});
