import { describe, expect, it } from 'vitest';
import { readStatementFile, recogniseFormat } from './read-statement-file.js';
import { balanceDifference, variableSymbolIn, type ParsedStatement } from './statement.js';
import { camt053File, gpcFile, mt940File, type FixtureStatement } from './statement-files.fixtures.js';

const bytes = (s: string, encoding: 'utf8' | 'cp1250' = 'utf8') => (encoding === 'utf8' ? new TextEncoder().encode(s) : encodeCp1250(s));

/** windows-1250 bytes of a text (the Czech letters the fixtures use). */
function encodeCp1250(s: string): Uint8Array {
  const table: Record<string, number> = { 'á': 0xe1, 'č': 0xe8, 'ď': 0xef, 'é': 0xe9, 'ě': 0xec, 'í': 0xed, 'ň': 0xf2, 'ó': 0xf3, 'ř': 0xf8, 'š': 0x9a, 'ť': 0x9d, 'ú': 0xfa, 'ů': 0xf9, 'ý': 0xfd, 'ž': 0x9e, 'Č': 0xc8, 'Ř': 0xd8, 'Š': 0x8a, 'Ž': 0x8e };
  return Uint8Array.from([...s].map((c) => table[c] ?? c.charCodeAt(0)));
}

const STATEMENT: FixtureStatement = {
  account: 'CZ6508000000192000145399',
  number: '12',
  opening: '1000.00',
  closing: '1845.50',
  from: '2026-11-19',
  to: '2026-11-20',
  movements: [
    { amount: '1210.00', vs: '202600001', name: 'Odběratel s.r.o.', counterAccount: 'CZ7908000000002000145399', message: 'Faktura 202600001' },
    { amount: '-12.50', fee: true, message: 'Poplatek za vedení účtu' },
    { amount: '-352.00', name: 'Neznámý', message: 'Platba kartou' },
  ],
};

const only = (statements: ParsedStatement[]) => {
  expect(statements).toHaveLength(1);
  return statements[0];
};

describe('camt.053', () => {
  it.each(['02', '08'] as const)('version %s: account, number, balances, period and each entry with its variable symbol, fee and party', (version) => {
    const s = only(readStatementFile(bytes(camt053File([STATEMENT], version)), 'auto', 'CZK'));
    expect(s).toMatchObject({ format: 'camt053', account: 'CZ6508000000192000145399', statementNo: '12', currency: 'CZK', openingBalance: '1000', closingBalance: '1845.5', dateFrom: '2026-11-19', dateTo: '2026-11-20' });
    expect(s.entries.map((e) => [e.order, e.amount, e.variableSymbol, e.isFee, e.partnerName, e.bankReference])).toEqual([
      [1, '1210', '202600001', false, 'Odběratel s.r.o.', 'REF-12-1'],
      [2, '-12.5', null, true, null, 'REF-12-2'],
      [3, '-352', null, false, 'Neznámý', 'REF-12-3'],
    ]);
    expect(s.entries[0].partnerAccount).toBe('CZ7908000000002000145399');
    expect(balanceDifference(s).isZero()).toBe(true);
  });

  it('splits a batch entry into its transactions, which must add up to it', () => {
    const batch = camt053File([{ ...STATEMENT, movements: [] }]).replace(
      '</Stmt>',
      '<Ntry><Amt Ccy="CZK">845.50</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt><AcctSvcrRef>BATCH-1</AcctSvcrRef><NtryDtls>' +
        '<TxDtls><Refs><EndToEndId>VS111/SS/KS</EndToEndId></Refs><AmtDtls><TxAmt><Amt Ccy="CZK">800.00</Amt></TxAmt></AmtDtls></TxDtls>' +
        '<TxDtls><Refs><AcctSvcrRef>TX-2</AcctSvcrRef></Refs><AmtDtls><TxAmt><Amt Ccy="CZK">45.50</Amt></TxAmt></AmtDtls><RmtInf><Ustrd>platba VS: 222</Ustrd></RmtInf></TxDtls>' +
        '</NtryDtls></Ntry><Ntry><Amt Ccy="CZK">99.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>PDNG</Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt></Ntry></Stmt>',
    );
    const s = only(readStatementFile(bytes(batch), 'camt053', 'CZK'));
    // the pending entry moves no balance and is not a movement
    expect(s.entries.map((e) => [e.order, e.amount, e.variableSymbol, e.bankReference])).toEqual([
      [1, '800', '111', 'BATCH-1/1'],
      [2, '45.5', '222', 'TX-2'],
    ]);
    const wrong = batch.replace('<Amt Ccy="CZK">45.50</Amt></TxAmt>', '<Amt Ccy="CZK">45.00</Amt></TxAmt>');
    expect(() => readStatementFile(bytes(wrong), 'camt053', 'CZK')).toThrow(/Stmt\[1\]\/Ntry\[1\]: its transactions add up to 845, the entry says 845.5/);
  });

  it('a reversal keeps its direction from CdtDbtInd and is marked; a statement in euros; several statements per file', () => {
    const eur: FixtureStatement = { ...STATEMENT, account: 'SK3112000000198742637541', number: '3', currency: 'EUR', opening: '0', closing: '-50', movements: [{ amount: '-50.00', reversal: true, message: 'Storno' }] };
    const [first, second] = readStatementFile(bytes(camt053File([STATEMENT, eur])), 'auto', 'CZK');
    expect(first.statementNo).toBe('12');
    expect(second).toMatchObject({ account: 'SK3112000000198742637541', currency: 'EUR', openingBalance: '0', closingBalance: '-50' });
    expect(second.entries[0]).toMatchObject({ amount: '-50', isReversal: true, currency: 'EUR' });
  });

  it('names the element of what it cannot read', () => {
    const file = camt053File([STATEMENT]);
    const cases: Array<[string, RegExp]> = [
      [file.replace('<Amt Ccy="CZK">1210.00</Amt>', '<Amt Ccy="CZK">12,10</Amt>'), /Stmt\[1\]\/Ntry\[1\]\/Amt is not an amount/],
      [file.replace('<Amt Ccy="CZK">1210.00</Amt>', '<Amt Ccy="CZK">1e3</Amt>'), /Ntry\[1\]\/Amt is not an amount/],
      [file.replace('<Amt Ccy="CZK">1210.00</Amt>', '<Amt>1210.00</Amt>'), /Ntry\[1\]\/Amt has no currency/],
      [file.replace('<BookgDt><Dt>2026-11-20</Dt></BookgDt>', '<BookgDt><Dt>2026-02-30</Dt></BookgDt>'), /Ntry\[1\]\/BookgDt is not a date/],
      [file.replace('<BookgDt><Dt>2026-11-20</Dt></BookgDt>', '<BookgDt><Dt>0001-11-20</Dt></BookgDt>'), /Ntry\[1\]\/BookgDt is not a date/],
      [file.replace(/<Bal><Tp><CdOrPrtry><Cd>CLBD[\s\S]*?<\/Bal>/, ''), /Stmt\[1\] has no CLBD balance/],
      [file.replace('<CdtDbtInd>CRDT</CdtDbtInd><Sts>', '<CdtDbtInd>IN</CdtDbtInd><Sts>'), /CdtDbtInd must be CRDT or DBIT/],
      [file.replace('camt.053.001.02', 'camt.052.001.02'), /expected a camt.053.001.02–08 Document/],
      ['<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x "x">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">&x;</Document>', /DOCTYPE or entities/],
      ['<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt></Document>', /not well-formed XML/],
    ];
    for (const [xml, message] of cases) expect(() => readStatementFile(bytes(xml), 'auto', 'CZK'), String(message)).toThrow(message);
  });
});

describe('GPC (ABO)', () => {
  const gpcStatement: FixtureStatement = {
    account: '19-2000145399',
    number: '7',
    opening: '1000.00',
    closing: '1845.50',
    from: '2026-11-19',
    to: '2026-11-20',
    movements: [
      { amount: '1210.00', vs: '202600001', ks: '0308', counterAccount: '2000145399/0800', name: 'Odběratel s.r.o.', reference: 'TX0001' },
      { amount: '-12.50', name: 'Poplatek', message: 'Poplatek za vedení' },
      { amount: '-352.00', vs: '0000000077', ss: '42', name: 'Dodavatel Šťastný' },
    ],
  };

  it('reads the header and movements at their positions, in windows-1250', () => {
    const file = gpcFile(gpcStatement);
    for (const line of file.split('\r\n').filter(Boolean)) expect(line.length, line).toBe(line.startsWith('078') ? 73 : 128);
    const s = only(readStatementFile(bytes(file, 'cp1250'), 'auto', 'EUR'));
    expect(s).toMatchObject({ format: 'gpc', account: '19-2000145399', statementNo: '7', currency: 'CZK', openingBalance: '1000', closingBalance: '1845.5', dateFrom: '2026-11-19', dateTo: '2026-11-20' });
    expect(s.entries.map((e) => [e.amount, e.variableSymbol, e.constantSymbol, e.specificSymbol, e.partnerAccount, e.partnerName, e.bankReference])).toEqual([
      ['1210', '202600001', '308', null, '2000145399/0800', 'Odběratel s.r.o.', 'TX0001'],
      ['-12.5', null, null, null, null, 'Poplatek', '1001'],
      ['-352', '77', null, '42', null, 'Dodavatel Šťastný', '1002'],
    ]);
    expect(s.entries[1].message).toBe('Poplatek Poplatek za vedení');
    expect(balanceDifference(s).isZero()).toBe(true);
  });

  it('a hand-written ČSOB line, LF line ends, reversal codes 4 and 5, a negative opening balance, two statements', () => {
    const header = '0740000192000145399Dodavatel a.s.      19112600000000100000-00000000001000+000000000000000000000001100000001201126              ';
    const credit = '07500001920001453990000002000145399TX000000000010000001100004020260000100080003080000000000201126                    00203201126';
    expect(header.length).toBe(128);
    expect(credit.length).toBe(128);
    const s = only(readStatementFile(bytes(`${header}\n${credit}\n`), 'gpc', 'CZK'));
    // reversal of a debit (4): money back in
    expect(s).toMatchObject({ openingBalance: '-1000', closingBalance: '10', statementNo: '1' });
    expect(s.entries[0]).toMatchObject({ amount: '1100', isReversal: true, variableSymbol: '202600001', partnerAccount: '2000145399/0800', constantSymbol: '308' });
    expect(balanceDifference(s).toString()).toBe('90');
    const two = readStatementFile(bytes(gpcFile(gpcStatement) + gpcFile({ ...gpcStatement, number: '8', from: '2026-11-20', to: '2026-11-21', opening: '1845.50', closing: '1845.50', movements: [] }), 'cp1250'), 'gpc', 'CZK');
    expect(two.map((x) => [x.statementNo, x.entries.length])).toEqual([['7', 3], ['8', 0]]);
  });

  it('names the line and position of what it cannot read', () => {
    const file = gpcFile(gpcStatement);
    const lines = file.split('\r\n');
    const cases: Array<[string, RegExp]> = [
      [lines.slice(1).join('\r\n'), /line 1: a movement \(075\) before any header/],
      [file.replace(lines[1], lines[1].slice(0, 60) + '9' + lines[1].slice(61)), /line 2 is not a GPC movement/],
      [file.replace(lines[1], lines[1].slice(0, 91) + '310226' + lines[1].slice(97)), /line 2:92 is not a date/],
      [file.replace(lines[1], lines[1].slice(0, 118) + '0999' + lines[1].slice(122)), /line 2: unknown currency code 0999/],
      [file.replace(lines[0], lines[0].slice(0, 59) + '*' + lines[0].slice(60)), /line 1 is not a GPC header/],
      [`${file}099xyz\r\n`, /line 6: unknown GPC record type 099/],
    ];
    for (const [text, message] of cases) expect(() => readStatementFile(bytes(text, 'cp1250'), 'gpc', 'CZK'), String(message)).toThrow(message);
  });
});

describe('MT940', () => {
  it('statement fields, :61: lines with their :86: text, charges, in and out of the SWIFT envelope', () => {
    for (const envelope of [false, true]) {
      const s = only(readStatementFile(bytes(mt940File([STATEMENT], { envelope })), 'auto', 'CZK'));
      expect(s).toMatchObject({ format: 'mt940', account: 'CZ6508000000192000145399', statementNo: '12/1', currency: 'CZK', openingBalance: '1000', closingBalance: '1845.5', dateFrom: '2026-11-19', dateTo: '2026-11-20' });
      expect(s.entries.map((e) => [e.amount, e.variableSymbol, e.isFee, e.bankReference, e.partnerName, e.partnerAccount])).toEqual([
        ['1210', '202600001', false, 'B121', 'Odběratel s.r.o.', 'CZ7908000000002000145399'],
        ['-12.5', null, true, 'B122', null, null],
        ['-352', null, false, 'B123', 'Neznámý', null],
      ]);
      expect(balanceDifference(s).isZero()).toBe(true);
    }
  });

  it('RC and RD are reversals (RD brings money back in); a negative balance is D', () => {
    const s = only(
      readStatementFile(bytes(mt940File([{ ...STATEMENT, opening: '-100.00', closing: '-10.00', movements: [{ amount: '100.00', reversal: true }, { amount: '-10.00', reversal: true }] }])), 'mt940', 'CZK'),
    );
    expect(s.entries.map((e) => [e.amount, e.isReversal])).toEqual([['100', true], ['-10', true]]);
    expect(s.openingBalance).toBe('-100');
  });

  it('names the line of what it cannot read', () => {
    const file = mt940File([STATEMENT]);
    const cases: Array<[string, RegExp]> = [
      [file.replace(':60F:C261119CZK1000,00', ':60F:C261119CZK10O0,00'), /line 4: :60F: is not a balance/],
      // read as banks write them: a decimal point, no separator; a third decimal is no amount
      [file.replace(':60F:C261119CZK1000,00', ':60F:C261119CZK1000,005'), /line 4: :60F: is not a balance/],
      [file.replace(':61:2611201120C1210,00', ':61:2611201120X1210,00'), /line 5: :61: is not a statement line/],
      [file.replace(':61:2611201120C1210,00', ':61:2613201320C1210,00'), /line 5 is not a date/],
      [file.replace(/:62F:.*\r\n/, ''), /lacks its closing \(:62F:\) balance/],
      [file.replace(':25:CZ6508000000192000145399\r\n', ''), /has no account \(:25:\)/],
      // a bank's preamble before the first field is passed over; the statement still needs its fields
      ['hello\r\n:20:1', /statement 1 \(line 2\) has no account \(:25:\)/],
    ];
    for (const [text, message] of cases) expect(() => readStatementFile(bytes(text), 'mt940', 'CZK'), String(message)).toThrow(message);
  });
});

describe('recognising the format and the variable symbol', () => {
  it('by the first bytes; anything else is refused', () => {
    expect(recogniseFormat(bytes(camt053File([STATEMENT])))).toBe('camt053');
    expect(recogniseFormat(bytes(`\uFEFF${gpcFile(STATEMENT)}`))).toBe('gpc');
    expect(recogniseFormat(bytes(mt940File([STATEMENT])))).toBe('mt940');
    expect(recogniseFormat(bytes(mt940File([STATEMENT], { envelope: true })))).toBe('mt940');
    expect(() => recogniseFormat(bytes('date;amount\n2026-11-20;10'))).toThrow(/not a statement we read/);
    expect(() => readStatementFile(new Uint8Array(), 'auto', 'CZK')).toThrow(/empty/);
    expect(() => readStatementFile(bytes(':20:1\u0000'), 'mt940', 'CZK')).toThrow(/NUL/);
  });

  it('finds VS in the ways banks write it, never inside a longer number', () => {
    expect(variableSymbolIn('VS:202600001')).toBe('202600001');
    expect(variableSymbolIn('platba VS 0042 děkuji')).toBe('42');
    expect(variableSymbolIn('/VS/123/SS/9')).toBe('123');
    expect(variableSymbolIn('VS123')).toBe('123');
    expect(variableSymbolIn('CVS:1')).toBeNull();
    expect(variableSymbolIn('VS:12345678901')).toBeNull();
    expect(variableSymbolIn(null)).toBeNull();
  });
});

describe('accounts, numbers and references as one spelling (issue 52)', () => {
  it('a reference a bank leaves blank, all zeros or a placeholder is no reference', () => {
    const gpc = only(readStatementFile(bytes(gpcFile({ ...STATEMENT, movements: [{ amount: '100.00', reference: '0000000000000' }, { amount: '250.00', reference: ' ' }, { amount: '-504.50', reference: 'TX-1' }] })), 'gpc', 'CZK'));
    expect(gpc.entries.map((e) => e.bankReference)).toEqual([null, null, 'TX-1']);
    const camt = only(readStatementFile(bytes(camt053File([{ ...STATEMENT, movements: STATEMENT.movements.map((m, i) => ({ ...m, reference: ['NOTPROVIDED', 'NONREF', 'A\u200B-1'][i] })) }])), 'camt053', 'CZK'));
    expect(camt.entries.map((e) => e.bankReference)).toEqual([null, null, 'A-1']);
  });

  it('an account with spaces or invisible characters is the same account; one too long is refused, never cut', () => {
    const spaced = only(readStatementFile(bytes(camt053File([{ ...STATEMENT, account: 'CZ65\u200B0800 0000\u00A01920 0014 5399' }])), 'camt053', 'CZK'));
    expect(spaced.account).toBe('CZ6508000000192000145399');
    const mt = only(readStatementFile(bytes(mt940File([{ ...STATEMENT, account: 'cz65\uFEFF08000000192000145399' }])), 'mt940', 'CZK'));
    expect(mt.account).toBe('CZ6508000000192000145399');
    expect(() => readStatementFile(bytes(camt053File([{ ...STATEMENT, account: 'X'.repeat(65) }])), 'camt053', 'CZK')).toThrow(/the account is 65 characters long; at most 64/);
    expect(() => readStatementFile(bytes(mt940File([{ ...STATEMENT, account: 'X'.repeat(65) }])), 'mt940', 'CZK')).toThrow(/the account is 65 characters long/);
  });

  it('a statement number or a reference too long is refused, never cut', () => {
    const long = 'N'.repeat(65);
    expect(() => readStatementFile(bytes(mt940File([STATEMENT]).replace(':28C:12/1', `:28C:${long}`)), 'mt940', 'CZK')).toThrow(/the statement number is 65 characters long/);
    expect(() => readStatementFile(bytes(camt053File([{ ...STATEMENT, number: long }])), 'camt053', 'CZK')).toThrow(/the statement number is 65 characters long/);
    expect(() => readStatementFile(bytes(camt053File([{ ...STATEMENT, movements: [{ ...STATEMENT.movements[0], reference: 'R'.repeat(141) }, ...STATEMENT.movements.slice(1)] }])), 'camt053', 'CZK')).toThrow(/the bank reference is 141 characters long/);
  });
});
