import { describe, expect, it } from 'vitest';
import { AboRefusal, aboFile } from './abo.js';
import { orderAccount } from './accounts.js';
import { bankReference, bankText } from './bank-text.js';
import { endToEndId, type OrderFile } from './order-file.js';
import { pain001Xml } from './pain001.js';

const order = (over: Partial<OrderFile> = {}): OrderFile => ({
  id: 7,
  messageId: 'LL-1-PO-7',
  createdAt: new Date('2026-12-03T09:15:00.500Z'),
  executionDate: '2026-12-04',
  currency: 'CZK',
  total: '1234.50',
  debtor: { name: 'Strojírny Vysočina s.r.o.', account: orderAccount('19-2000145399/0800')! },
  items: [
    {
      line: 1,
      amount: '1234.50',
      creditor: { name: 'Dřevo Šťastný & syn', country: 'CZ', addressLines: ['Nádražní 1', '674 01 Třebíč'] },
      account: orderAccount('35-1234567899/0100')!,
      endToEndId: '/VS123/KS0308',
      message: 'Faktura č. 2026/118 – děkujeme',
      variableSymbol: '123',
      constantSymbol: '0308',
      specificSymbol: '77',
    },
  ],
  ...over,
});

describe("the banks' character set (EPC132-08)", () => {
  it('takes diacritics off and turns anything else into a space, within the length', () => {
    expect(bankText('Dřevo Šťastný & syn', 70)).toBe('Drevo Stastny syn');
    expect(bankText('Müller Straße 5, Łódź', 70)).toBe('Muller Strasse 5, Lodz');
    expect(bankText('  a\u0000b\nc  ', 70)).toBe('a b c');
    expect(bankText('日本語', 70)).toBe('');
    expect(bankText('x'.repeat(200), 140)).toHaveLength(140);
    expect(bankText(null, 10)).toBe('');
  });
  it('a reference neither starts nor ends with a slash nor holds two', () => {
    expect(bankReference('/VS123//KS0308/')).toBe('VS123/KS0308');
    expect(bankReference('PO 7 1')).toBe('PO-7-1');
    expect(bankReference('x'.repeat(50))).toHaveLength(35);
  });
});

describe('accounts', () => {
  it('a Czech domestic number gets its IBAN; a Czech IBAN its domestic number; others only an IBAN', () => {
    expect(orderAccount('19-2000145399/0800')).toEqual({ account_number: '19-2000145399/0800', iban: 'CZ6508000000192000145399', bic: null });
    expect(orderAccount({ iban: 'cz65 0800 0000 1920 0014 5399', bic: 'gibaczpx' })).toEqual({ account_number: '19-2000145399/0800', iban: 'CZ6508000000192000145399', bic: 'GIBACZPX' });
    expect(orderAccount('DE89 3704 0044 0532 0130 00')).toEqual({ account_number: null, iban: 'DE89370400440532013000', bic: null });
    // the weighted check fails, or the check digits do
    expect(orderAccount('124/0100')).toBeNull();
    expect(orderAccount('DE89370400440532013001')).toBeNull();
    expect(orderAccount(null)).toBeNull();
  });
});

describe('end-to-end ids', () => {
  it('a CZK payment with a variable symbol carries the symbols; otherwise the order item', () => {
    expect(endToEndId({ orderId: 7, line: 2, currency: 'CZK', variableSymbol: '2026118', specificSymbol: '77', constantSymbol: '308' })).toBe('/VS2026118/SS77/KS0308');
    expect(endToEndId({ orderId: 7, line: 2, currency: 'CZK', variableSymbol: '1', specificSymbol: null, constantSymbol: null })).toBe('/VS1');
    expect(endToEndId({ orderId: 7, line: 2, currency: 'CZK', variableSymbol: null, specificSymbol: '77', constantSymbol: null })).toBe('LL-7-2');
    expect(endToEndId({ orderId: 7, line: 2, currency: 'EUR', variableSymbol: '1', specificSymbol: null, constantSymbol: null })).toBe('LL-7-2');
  });
});

describe('ABO', () => {
  it('writes the published records with CR LF, amounts in hellers, the symbols in their fields', () => {
    expect(aboFile(order()).split('\r\n')).toEqual([
      'UHL1031226STROJIRNY VYSOCINA S0000000000001001000000000000',
      '1 1501 001000 0800',
      '2 000019-2000145399 123450 041226',
      '000035-1234567899 123450 123 01000308 77 AV:Faktura c. 2026/118 - dekujeme',
      '3 +',
      '5 +',
      '',
    ]);
  });
  it('refuses another currency, a payer or payee account that is not Czech', () => {
    expect(() => aboFile(order({ currency: 'EUR' }))).toThrow(AboRefusal);
    expect(() => aboFile(order({ debtor: { name: 'x', account: orderAccount('DE89370400440532013000')! } }))).toThrow(/from|Czech/);
    const foreign = order();
    foreign.items[0].account = orderAccount('DE89370400440532013000')!;
    try {
      aboFile(foreign);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AboRefusal);
      expect((err as AboRefusal).path).toBe('items[0].account');
    }
  });
});

describe('pain.001', () => {
  it('a CZK order: no SEPA service level, the symbols in EndToEndId, texts in the EPC set, CtrlSum with two places', () => {
    const xml = pain001Xml(order());
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03">')).toBe(true);
    expect(xml).toContain('<CreDtTm>2026-12-03T09:15:00</CreDtTm>');
    expect(xml).toContain('<EndToEndId>/VS123/KS0308</EndToEndId>');
    expect(xml).toContain('<Nm>Drevo Stastny syn</Nm>');
    expect(xml).toContain('<AdrLine>674 01 Trebic</AdrLine>');
    expect(xml).toContain('<Othr>');
    expect(xml).not.toContain('SEPA');
    expect(xml).not.toContain('ChrgBr');
  });
  it('a EUR order is SEPA: service level, SLEV, an EPC reference as EndToEndId', () => {
    const xml = pain001Xml(order({ currency: 'EUR', items: [{ ...order().items[0], endToEndId: '/VS1//x/' }] }));
    expect(xml).toContain('<SvcLvl>');
    expect(xml).toContain('<ChrgBr>SLEV</ChrgBr>');
    expect(xml).toContain('<EndToEndId>VS1/x</EndToEndId>');
  });
});
