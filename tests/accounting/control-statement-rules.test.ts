import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWire } from '@ledgerline/core';
import {
  controlStatementJson,
  controlStatementJsonSql,
  controlStatementSections,
  controlStatementSql,
  type ControlStatementDocumentFigures,
  type RateFigures,
  type SectionJsonRow,
  type SectionRow,
} from '../../apps/accounting/src/domain/control-statement.js';
import { seededRandom } from '../support/seeded-random.js';

/*
 * The control statement's rules, which the database applies (decision 218), run by Postgres on
 * tax rows given as values: one line per document in a listed section with its rates split, sums
 * per rate in the summed ones, A.1 without tax, reversals negated and cancelling, the order of
 * each document's first row.
 */

let db: pg.Client;
beforeAll(async () => {
  db = new pg.Client({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await db.connect();
});
afterAll(async () => db?.end());

interface TaxRow {
  section: string;
  id: number;
  rate: number;
  base: string;
  tax: string;
  type?: string;
  documentNo?: string | null;
  partnerVatNo?: string | null;
  dateTaxable?: string;
  day?: string;
  entry?: number;
}

const TAX_ROW = ['section text', 'source_type text', 'source_id bigint', 'day date', 'entry_id bigint', 'ord int', 'rate numeric', 'base numeric', 'tax numeric'];
const ENTRY = ['entry_id bigint', 'document_no text', 'vat_no text', 'date_taxable text'];

/** A relation of these columns holding these values, its parameters numbered from `first`. */
function relation(columns: string[], values: unknown[][], first: number): string {
  const names = columns.map((c) => c.split(' ')[0]).join(', ');
  const typed = (k: number) => `(${columns.map((c, j) => `$${first + k * columns.length + j}::${c.split(' ')[1]}`).join(', ')})`;
  if (!values.length) return `select ${columns.map((c) => `null::${c.split(' ')[1]} as ${c.split(' ')[0]}`).join(', ')} where false`;
  return `select * from (values ${values.map((_, k) => typed(k)).join(', ')}) as v(${names})`;
}

/** The statement's SQL over these rows and its parameters, each row its own entry unless it names one, in the order given. */
function statementOf(rows: TaxRow[]): { sql: string; params: unknown[] } {
  const taxRows = rows.map((r, i) => [
    r.section,
    r.type ?? (r.section.startsWith('A') ? 'sales_invoice' : 'purchase_bill'),
    r.id,
    r.day ?? '2026-10-05',
    r.entry ?? i + 1,
    i + 1,
    String(r.rate),
    r.base,
    r.tax,
  ]);
  // what each entry states of its document (rows of one entry state the same)
  const entries = new Map<number, unknown[]>();
  rows.forEach((r, i) =>
    entries.set(r.entry ?? i + 1, [r.entry ?? i + 1, r.documentNo === undefined ? `D${r.id}` : r.documentNo, r.partnerVatNo === undefined ? 'CZ11223344' : r.partnerVatNo, r.dateTaxable ?? '2026-10-05']),
  );
  const sql = controlStatementSql(relation(TAX_ROW, taxRows, 1), relation(ENTRY, [...entries.values()], 1 + taxRows.length * TAX_ROW.length));
  return { sql, params: [...taxRows.flat(), ...[...entries.values()].flat()] };
}

/** The sections Postgres sums from these rows. */
async function sections(rows: TaxRow[]) {
  const { sql, params } = statementOf(rows);
  return controlStatementSections((await db.query<SectionRow>(sql, params)).rows);
}

const STATE = { currency: 'CZK', date_from: '2026-10-01', date_to: '2026-10-31', closed: false };

/** The answer's text as Postgres writes its lines (what the endpoint sends). */
async function answerText(rows: TaxRow[]): Promise<string> {
  const { sql, params } = statementOf(rows);
  return controlStatementJson(STATE, (await db.query<SectionJsonRow>(controlStatementJsonSql(sql), params)).rows).text;
}

/** The same answer built from the sections in Node and serialised by JSON.stringify, as it was before Postgres wrote it. */
async function answerOfSections(rows: TaxRow[]): Promise<string> {
  const s = await sections(rows);
  const wire = (f: RateFigures) => ({ base_basic: toWire(f.base_basic), tax_basic: toWire(f.tax_basic), base_reduced: toWire(f.base_reduced), tax_reduced: toWire(f.tax_reduced) });
  const doc = (d: ControlStatementDocumentFigures) => ({ partner_vat_no: d.partnerVatNo, document_no: d.documentNo, date_taxable: d.dateTaxable, source: d.source, ...wire(d) });
  return JSON.stringify({ currency: STATE.currency, date_from: STATE.date_from, date_to: STATE.date_to, a1: s.a1.map(doc), a2: s.a2.map(doc), a4: s.a4.map(doc), a5: wire(s.a5), b1: s.b1.map(doc), b2: s.b2.map(doc), b3: wire(s.b3), closed: STATE.closed });
}

const figures = (f: { base_basic: string; tax_basic: string; base_reduced: string; tax_reduced: string }) => [f.base_basic, f.tax_basic, f.base_reduced, f.tax_reduced].map((v) => Number(v).toFixed(2));

describe('control statement rules (summed by Postgres)', () => {
  it('lists one line per document of A.4 and B.2 with its rates summed, and sums A.5 and B.3 per rate', async () => {
    const s = await sections([
      { section: 'A.4', id: 1, rate: 21, base: '10000', tax: '2100' },
      { section: 'A.4', id: 1, rate: 12, base: '1000', tax: '120', entry: 1 },
      { section: 'A.5', id: 2, rate: 21, base: '100.10', tax: '21.02' },
      { section: 'A.5', id: 3, rate: 12, base: '50', tax: '6' },
      { section: 'A.5', id: 4, rate: 21, base: '0.20', tax: '0.04' },
      { section: 'B.2', id: 5, rate: 21, base: '20000', tax: '4200', documentNo: 'ACME-1' },
      { section: 'B.3', id: 6, rate: 15, base: '100', tax: '15' },
      { section: 'A.4', id: 7, rate: 21, base: '-1000', tax: '-210' },
    ]);
    expect(s.a4.map((d) => [d.source.id, d.documentNo, ...figures(d)])).toEqual([
      [1, 'D1', '10000.00', '2100.00', '1000.00', '120.00'],
      [7, 'D7', '-1000.00', '-210.00', '0.00', '0.00'],
    ]);
    expect(figures(s.a5)).toEqual(['100.30', '21.06', '50.00', '6.00']);
    expect(s.b2.map((d) => [d.documentNo, ...figures(d)])).toEqual([['ACME-1', '20000.00', '4200.00', '0.00', '0.00']]);
    expect(figures(s.b3)).toEqual(['0.00', '0.00', '100.00', '15.00']);
    expect([s.a1, s.a2, s.b1]).toEqual([[], [], []]);
  });

  it('splits the rates: 20 % and up or none basic, the rest reduced, below 12 % also the second reduced rate', async () => {
    const s = await sections([
      { section: 'A.4', id: 1, rate: 21, base: '10000', tax: '2100' },
      { section: 'A.4', id: 1, rate: 15, base: '2000', tax: '300', entry: 1 },
      { section: 'A.4', id: 1, rate: 10, base: '1000', tax: '100', entry: 1 },
      { section: 'A.4', id: 1, rate: 0, base: '7', tax: '0', entry: 1 },
      { section: 'A.5', id: 2, rate: 20, base: '100', tax: '20' },
      { section: 'A.5', id: 3, rate: 10, base: '50', tax: '5' },
      { section: 'A.5', id: 4, rate: 12, base: '30', tax: '3.60' },
    ]);
    expect(s.a4).toEqual([
      {
        partnerVatNo: 'CZ11223344',
        documentNo: 'D1',
        dateTaxable: '2026-10-05',
        source: { type: 'sales_invoice', id: 1 },
        base_basic: '10007',
        tax_basic: '2100',
        base_reduced: '3000',
        tax_reduced: '400',
        base_second_reduced: '1000',
        tax_second_reduced: '100',
      },
    ]);
    expect(s.a5).toEqual({ base_basic: '100', tax_basic: '20', base_reduced: '80', tax_reduced: '8.60', base_second_reduced: '50', tax_second_reduced: '5' });
  });

  it('reports A.1 bases without tax and B.1 with the tax self-assessed', async () => {
    const s = await sections([
      { section: 'A.1', id: 1, rate: 21, base: '5000', tax: '1050' },
      { section: 'B.1', id: 2, rate: 21, base: '3000', tax: '630' },
    ]);
    expect(s.a1.map(figures)).toEqual([['5000.00', '0.00', '0.00', '0.00']]);
    expect(s.b1.map(figures)).toEqual([['3000.00', '630.00', '0.00', '0.00']]);
  });

  it('leaves out a document whose posting and reversal cancel, and a section it does not report', async () => {
    const s = await sections([
      { section: 'A.4', id: 1, rate: 21, base: '10000', tax: '2100' },
      { section: 'A.4', id: 1, rate: 21, base: '-10000', tax: '-2100' },
      { section: 'A.3', id: 2, rate: 21, base: '1', tax: '0.21' },
      { section: 'A.4', id: 3, rate: 21, base: '12000', tax: '2520' },
    ]);
    expect(s.a4.map((d) => d.source.id)).toEqual([3]);
  });

  it('keeps two documents of one number apart when they are different documents', async () => {
    const s = await sections([
      { section: 'B.2', id: 1, rate: 21, base: '20000', tax: '4200', documentNo: 'INV-1' },
      { section: 'B.2', id: 2, rate: 21, base: '30000', tax: '6300', documentNo: 'INV-1', partnerVatNo: 'CZ99999999' },
    ]);
    expect(s.b2.map((d) => [d.partnerVatNo, d.base_basic])).toEqual([
      ['CZ11223344', '20000'],
      ['CZ99999999', '30000'],
    ]);
  });

  it('orders documents by their first row (day, entry, row) and names each as its first entry does', async () => {
    const s = await sections([
      { section: 'A.4', id: 5, rate: 21, base: '20000', tax: '4200', day: '2026-10-09', entry: 50, documentNo: 'V1-5' },
      // a newer version of document 5: its reversal and posting, a later entry
      { section: 'A.4', id: 5, rate: 21, base: '-20000', tax: '-4200', day: '2026-10-12', entry: 90, documentNo: 'V1-5' },
      { section: 'A.4', id: 5, rate: 21, base: '25000', tax: '5250', day: '2026-10-12', entry: 91, documentNo: 'V2-5', dateTaxable: '2026-10-12', partnerVatNo: 'CZ99999999' },
      { section: 'A.4', id: 9, rate: 21, base: '15000', tax: '3150', day: '2026-10-02', entry: 99 },
      { section: 'A.4', id: 3, rate: 21, base: '11000', tax: '2310', day: '2026-10-09', entry: 40 },
      { section: 'A.4', id: 3, rate: 12, base: '1000', tax: '120', day: '2026-10-09', entry: 40 },
    ]);
    expect(s.a4.map((d) => [d.source.id, d.documentNo, d.partnerVatNo, d.dateTaxable, d.base_basic, d.base_reduced])).toEqual([
      [9, 'D9', 'CZ11223344', '2026-10-05', '15000', '0'],
      [3, 'D3', 'CZ11223344', '2026-10-05', '11000', '1000'],
      [5, 'V1-5', 'CZ11223344', '2026-10-05', '25000', '0'],
    ]);
  });

  it('answers empty sections for a period without tax rows', async () => {
    const s = await sections([]);
    expect(s).toEqual({ a1: [], a2: [], a4: [], a5: expect.objectContaining({ base_basic: '0' }), b1: [], b2: [], b3: expect.objectContaining({ tax_reduced: '0' }) });
  });
});

describe('control statement answer (its lines written by Postgres)', () => {
  // what a document number or VAT id may hold: quotes, backslashes, control characters, Czech, an
  // emoji, the line separators JSON allows unescaped, an empty VAT id (none)
  const TEXTS = ['FV-2026/001', 'a"b', 'back\\slash', 'tab\there\nnew', '\u0001\u001f\u007f', 'Příliš žluťoučký', '🧾 1', '\u2028\u2029', '</script>', 'CZ12345678', null, ''];
  const SECTIONS = ['A.1', 'A.2', 'A.4', 'A.5', 'B.1', 'B.2', 'B.3', 'A.3'];
  const RATES = [21, 15, 12, 10, 0, 20];

  it('is byte for byte the answer built from the sections, over 40 arrangements of documents, rates, signs and texts', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = seededRandom(seed);
      const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
      const rows: TaxRow[] = [];
      for (let i = 0; i < 30; i++) {
        const id = 1 + Math.floor(next() * 12);
        const cents = BigInt(Math.floor(next() * 2_000_000_000)) * (next() < 0.2 ? -1n : 1n);
        const base = `${cents / 100n}.${String((cents < 0n ? -cents : cents) % 100n).padStart(2, '0')}`.replace(/^0\./, cents < 0n ? '-0.' : '0.');
        rows.push({ section: pick(SECTIONS), id, rate: pick(RATES), base, tax: (Number(base) / 5).toFixed(2), documentNo: pick(TEXTS), partnerVatNo: pick(TEXTS), day: `2026-10-${String(1 + Math.floor(next() * 28)).padStart(2, '0')}` });
      }
      const expected = await answerOfSections(rows);
      expect(await answerText(rows), `arrangement ${seed}`).toBe(expected);
    }
  });

  it('writes the figures as exact JSON numbers: trailing zeros trimmed, zero as 0, negatives signed', async () => {
    const text = await answerText([
      { section: 'A.4', id: 1, rate: 21, base: '12600.00', tax: '2646.10' },
      { section: 'A.4', id: 2, rate: 12, base: '-0.50', tax: '-0.06' },
      { section: 'A.5', id: 3, rate: 21, base: '0.00', tax: '0.00' },
    ]);
    const answer = JSON.parse(text);
    expect(answer.a4.map((d: RateFigures) => [d.base_basic, d.tax_basic, d.base_reduced, d.tax_reduced])).toEqual([
      [12600, 2646.1, 0, 0],
      [0, 0, -0.5, -0.06],
    ]);
    expect(text).toContain('"base_basic":12600,"tax_basic":2646.1,"base_reduced":0,"tax_reduced":0}');
    expect(answer.a5).toEqual({ base_basic: 0, tax_basic: 0, base_reduced: 0, tax_reduced: 0 });
    expect(answer.b3).toEqual({ base_basic: 0, tax_basic: 0, base_reduced: 0, tax_reduced: 0 });
  });

  it('answers the empty statement with every section present', async () => {
    expect(JSON.parse(await answerText([]))).toEqual({ ...STATE, a1: [], a2: [], a4: [], a5: { base_basic: 0, tax_basic: 0, base_reduced: 0, tax_reduced: 0 }, b1: [], b2: [], b3: { base_basic: 0, tax_basic: 0, base_reduced: 0, tax_reduced: 0 } });
    expect(await answerText([])).toBe(await answerOfSections([]));
  });
});
