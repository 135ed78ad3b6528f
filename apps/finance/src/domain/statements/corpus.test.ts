import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '@ledgerline/service-kit';
import { readStatementFile } from './read-statement-file.js';
import { balanceDifference, type ParsedStatement } from './statement.js';

/*
 * The bank statement corpus (issue 53): files in the layouts of some thirty banks
 * (`tests/fixtures/bank/README.md`). Every file reads into the statements `expected.json` names,
 * each balancing (opening + Σ entries = closing), or is refused with the 4xx it names.
 */

const DIR = path.resolve(import.meta.dirname, '../../../../../tests/fixtures/bank');
type Expected = { statements: Array<{ account: string; currency: string; entries: number }> } | { refused: { status: number; code: string } };
const EXPECTED = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as Record<string, Expected>;
const read = (file: string): ParsedStatement[] => readStatementFile(new Uint8Array(readFileSync(path.join(DIR, file))), 'auto', 'CZK');
const statementOf = (file: string, i = 0) => read(file)[i];

describe('the bank statement corpus', () => {
  it('holds at least 40 files of at least 25 banks, each with an expectation', () => {
    const files = Object.keys(EXPECTED);
    expect(files.length).toBeGreaterThanOrEqual(40);
    const readme = readFileSync(path.join(DIR, 'README.md'), 'utf8');
    for (const f of files) expect(readme, f).toContain(`\`${f}\``);
    expect(new Set(files.map((f) => f.split('-').slice(0, 2).join('-'))).size).toBeGreaterThanOrEqual(25);
  });

  for (const [file, want] of Object.entries(EXPECTED)) {
    it(file, () => {
      if ('refused' in want) {
        let error: AppError | null = null;
        try {
          read(file);
        } catch (e) {
          error = e as AppError;
        }
        // an unbalanced statement is read; the import refuses it (balances are checked there, for every format)
        if (want.refused.code === 'statement_does_not_balance') {
          expect(error).toBeNull();
          expect(read(file).some((s) => !balanceDifference(s).isZero())).toBe(true);
          return;
        }
        expect({ status: error?.status, code: error?.code }).toEqual(want.refused);
        return;
      }
      const statements = read(file);
      expect(statements.map((s) => ({ account: s.account, currency: s.currency, entries: s.entries.length }))).toEqual(want.statements);
      for (const s of statements) {
        expect(balanceDifference(s).toString(), `${file} ${s.statementNo}`).toBe('0');
        expect(s.entries.map((e) => e.order)).toEqual(s.entries.map((_, i) => i + 1));
        for (const e of s.entries) expect(e.bookingDate, `${file} ${e.order}`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
    });
  }
});

describe('what the corpus files say, read as the bank meant it', () => {
  it('MT940 pages (:62M: then :60M:) are one statement of all their entries', () => {
    expect(read('de-deutschebank-mt940.sta')).toHaveLength(1);
    expect(statementOf('ch-postfinance-mt940.sta')).toMatchObject({ statementNo: '999/1', openingBalance: '0', closingBalance: '159.4' });
  });

  it('a 30 February is the month’s last day, and the entry says so', () => {
    const [late] = statementOf('fr-bnpparibas-mt940.sta').entries;
    expect(late).toMatchObject({ valueDate: '2027-02-28', bookingDate: '2027-02-28', extra: 'the bank dated it 2027-02-30, read as 2027-02-28' });
  });

  it('an entry date in January after a December value date is in the next year', () => {
    expect(statementOf('be-kbc-mt940.sta').entries.map((e) => [e.valueDate, e.bookingDate])).toEqual([
      ['2026-12-31', '2027-01-02'],
      ['2026-12-31', '2027-01-02'],
    ]);
  });

  it('German subfields: the payee, IBAN, remittance text and end-to-end id; NOTPROVIDED is none', () => {
    const [first, second] = statementOf('de-deutschebank-mt940.sta').entries;
    expect(first).toMatchObject({ amount: '100', partnerName: 'Mueller Handels GmbH', partnerAccount: 'DE89370400440532013000', message: 'Rechnung 2026000118 danke', reference: 'RE-2026-4411' });
    expect(second).toMatchObject({ amount: '-40.05', partnerName: 'Lagerhaus Nord KG', message: 'Miete Lager November' });
  });

  it('Dutch tags: name, IBAN, remittance text and the end-to-end id that EREF in :61: points to', () => {
    const entries = statementOf('nl-rabobank-mt940.sta').entries;
    expect(entries[0]).toMatchObject({ partnerName: 'CONTRA ACCOUNT HOLDER', partnerAccount: 'NL70ABNA0987654321', reference: '22-11-2026 12:00 0030000987654321' });
    expect(entries[2]).toMatchObject({ partnerName: 'KLANT BV', message: 'Factuur 2026000120', reference: 'INV-2026000120' });
    const ing = statementOf('nl-ing-mt940.sta');
    expect(ing.account).toBe('NL20INGB0001234567');
    expect(ing.entries[0]).toMatchObject({ partnerName: 'Jansen Bouw BV', partnerAccount: 'NL91ABNA0417164300', reference: 'SEPA-2026000121', message: 'Factuur 2026000121 | /TRCD/00100/' });
  });

  it('Polish ~subfields and windows-1250 letters; mBank’s CN funds code', () => {
    const pko = statementOf('pl-pko-mt940.sta');
    expect(pko.account).toBe('PL61102055581111123456789012');
    expect(pko.entries[0]).toMatchObject({ partnerName: 'Hurtownia Łąka Sp. z o.o.', partnerAccount: 'PL27114020040000300201355387', message: 'Zapłata za fakturę 2026000126', variableSymbol: null });
    expect(statementOf('pl-mbank-mt940.sta').entries.map((e) => e.amount)).toEqual(['0.01', '1500', '-320.5']);
  });

  it('ISO-8859-1 files of German, Austrian and French banks keep their letters', () => {
    expect(statementOf('de-postbank-mt940.sta').entries[0].partnerName).toBe('Stadtwerke München');
    expect(statementOf('de-sparkasse-mt940.sta').entries[0]).toMatchObject({ amount: '30', partnerName: 'Jürgen Weiß', extra: ':NS: 22Jürgen Weiß' });
    expect(statementOf('fr-bnpparibas-mt940.sta').entries[1].message).toBe('VIR SEPA RECU DE SOCIÉTÉ GÉNÉRALE FACTURE 2026000128');
  });

  it('variable symbols of Czech and Slovak banks, in every place they write them', () => {
    expect(statementOf('cz-csob-mt940.sta').entries.map((e) => e.variableSymbol)).toEqual(['2026000112', '7788', null]);
    expect(statementOf('sk-tatrabanka-mt940.sta').entries.map((e) => e.variableSymbol)).toEqual(['2026000116', '9988']);
    expect(statementOf('sk-slsp-camt053-v02.xml').entries[0].variableSymbol).toBe('2026000137');
    expect(statementOf('cz-kb-camt053-v06-addtl.xml').entries[0].variableSymbol).toBe('2026000140');
  });

  it('GPC: UTF-8 as well as windows-1250, a 076 record, and account numbers in the internal digit order', () => {
    expect(statementOf('cz-csob-gpc-utf8.gpc').entries[1]).toMatchObject({ partnerName: 'Kovář a syn', message: 'Kovář a syn Úhrada faktury 2026000131' });
    const kb = statementOf('cz-kb-gpc-internal-order.gpc');
    expect(kb.account).toBe('115-1234567899');
    expect(kb.entries[0].partnerAccount).toBe('19-2000145399/0800');
  });

  it('camt.053: a batch entry is its transactions; a pending entry moves nothing; a reversal is money back', () => {
    expect(statementOf('de-commerzbank-camt053-v08-batch.xml').entries.map((e) => [e.amount, e.bankReference])).toEqual([
      ['-1000', 'B1-1'],
      ['-1500', 'B1-2'],
      ['-1000', 'BATCH-1/3'],
      ['2000', 'COBA-IN-1'],
    ]);
    expect(statementOf('pl-pekao-camt053-v08-pending.xml').entries).toHaveLength(1);
    expect(statementOf('fi-nordea-camt053-v02-reversal.xml').entries[1]).toMatchObject({ amount: '250', isReversal: true });
  });
});

describe('hostile variants of the corpus files', () => {
  it('any file with bytes changed, cut or repeated reads, or is refused with a 4xx naming where — never another error', async () => {
    const fc = (await import('fast-check')).default;
    const files = Object.keys(EXPECTED).map((f) => new Uint8Array(readFileSync(path.join(DIR, f))));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: files.length - 1 }),
        fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), op: fc.constantFrom('set', 'cut', 'repeat') }), { minLength: 1, maxLength: 8 }),
        (which, edits) => {
          let bytes = files[which];
          for (const e of edits) {
            const at = e.at % Math.max(1, bytes.length);
            if (e.op === 'set') bytes = Uint8Array.from(bytes, (b, i) => (i === at ? e.byte : b));
            else if (e.op === 'cut') bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + 1 + (e.byte % 40))]);
            else bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at, at + 1 + (e.byte % 40)), ...bytes.subarray(at)]);
          }
          try {
            readStatementFile(bytes, 'auto', 'CZK');
          } catch (e) {
            const err = e as AppError;
            expect(err instanceof AppError, String(e)).toBe(true);
            expect(err.status).toBeGreaterThanOrEqual(400);
            expect(err.status).toBeLessThan(500);
            expect(err.errors?.[0]?.path ?? '').not.toBe('');
          }
        },
      ),
      { numRuns: 3000, seed: 53 },
    );
  });
});
