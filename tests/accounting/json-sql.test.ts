import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWire } from '@ledgerline/core';
import { jsonInteger, jsonMembers, jsonNumber, jsonString } from '../../apps/accounting/src/domain/json-sql.js';
import { accountLineRestSql } from '../../apps/accounting/src/domain/account-ledger.js';
import { seededRandom } from '../support/seeded-random.js';

/*
 * The JSON Postgres writes of a report's lines (json-sql.ts) is what JSON.stringify writes of the
 * view the service built before: compared byte for byte over hostile texts and many decimals.
 */

let db: pg.Client;
beforeAll(async () => {
  db = new pg.Client({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await db.connect();
});
afterAll(async () => db?.end());

/** Each value run through `expression` (over the column `v` of type `type`), in order. */
async function written(values: readonly unknown[], type: string, expression: (column: string) => string): Promise<string[]> {
  const { rows } = await db.query<{ json: string }>(`select ${expression('v')} as json from unnest($1::${type}[]) with ordinality as u(v, i) order by i`, [values]);
  return rows.map((r) => r.json);
}

// every control character, quotes and backslashes, the separators JSON leaves unescaped, Czech,
// an emoji (a surrogate pair in UTF-16), markup, the empty text
const TEXTS = [
  ...Array.from({ length: 31 }, (_, i) => `a${String.fromCharCode(i + 1)}b`),
  'a"b',
  'back\\slash',
  '\\"',
  '/',
  '\u007f\u0080\u00a0',
  '\u2028\u2029',
  'Příliš žluťoučký kůň úpěl ďábelské ódy',
  '🧾 faktura',
  '</script><!--',
  '\uffff\ufffd',
  '',
];

describe('JSON written by Postgres', () => {
  it('writes texts as JSON.stringify does, byte for byte, and null for none', async () => {
    expect(await written([...TEXTS, null], 'text', jsonString)).toEqual([...TEXTS.map((t) => JSON.stringify(t)), 'null']);
  });

  it('writes decimals as JSON.stringify writes their wire numbers, over 2 000 values of money and rates within a double’s 15 digits', async () => {
    const next = seededRandom(79);
    const values = ['0', '0.00', '-0.00', '0.01', '-0.01', '0.50', '1', '10', '100.10', '12600.00', '-12600.00', '1e3', '0.125', '21.0000', '99999999999.99', '-1234567890123.45'];
    for (let i = 0; i < 2000; i++) {
      const scale = [0, 2, 2, 2, 4, 6][Math.floor(next() * 6)];
      const digits = Math.floor(next() * (15 - scale)) + 1;
      const whole = String(Math.floor(next() * 10 ** digits));
      const fraction = scale ? `.${String(Math.floor(next() * 10 ** scale)).padStart(scale, '0')}` : '';
      values.push(`${next() < 0.3 ? '-' : ''}${whole}${fraction}`);
    }
    expect(await written(values, 'numeric', jsonNumber)).toEqual(values.map((v) => JSON.stringify(toWire(v))));
  });

  it('keeps a decimal past a double’s digits exact', async () => {
    expect(await written(['12345678901234567890.12'], 'numeric', jsonNumber)).toEqual(['12345678901234567890.12']);
  });

  it('writes ids as JSON integers and members in the order given', async () => {
    expect(await written(['1', '9007199254740991'], 'bigint', jsonInteger)).toEqual(['1', '9007199254740991']);
    const [object] = await written(['x"y'], 'text', (v) => `'{' || ${jsonMembers([['a', jsonString(v)], ['n', jsonNumber('1.50')], ['inner', `'{' || ${jsonMembers([['b', jsonString('null')]])} || '}'`]])} || '}'`);
    expect(object).toBe('{"a":"x\\"y","n":1.5,"inner":{"b":null}}');
  });

  it('writes an account ledger line as the line view serialised, byte for byte', async () => {
    const next = seededRandom(7);
    const lines = Array.from({ length: 300 }, (_, i) => {
      const ord = i;
      const cents = Math.floor(next() * 10_000_000);
      const debit = next() < 0.5 ? `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}` : '0.00';
      const credit = debit === '0.00' ? `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}` : '0.00';
      return {
        transaction_id: String(1 + i * 7919),
        no: next() < 0.2 ? null : TEXTS[Math.floor(next() * TEXTS.length)],
        type: ['sales_invoice', 'journal_entry', 'reversal'][i % 3],
        source_type: ['sales_invoice', 'bank_transaction'][i % 2],
        source_id: String(1 + Math.floor(next() * 1e12)),
        source_version: 1 + (i % 4),
        row_description: next() < 0.5 ? null : TEXTS[Math.floor(next() * TEXTS.length)],
        entry_description: next() < 0.3 ? null : TEXTS[Math.floor(next() * TEXTS.length)],
        debit,
        credit,
        balance: `${next() < 0.4 ? '-' : ''}${Math.floor(next() * 1e9)}.${String(Math.floor(next() * 100)).padStart(2, '0')}`,
        ord,
      };
    });
    const { rows } = await db.query<{ rest: string }>(
      `select ${accountLineRestSql('p.balance')} as rest
         from jsonb_to_recordset($1::jsonb) as v(transaction_id bigint, no text, type text, source_type text, source_id bigint, source_version int,
              row_description text, entry_description text, debit numeric, credit numeric, balance numeric, ord int)
        cross join lateral (select v.transaction_id, v.row_description as description, v.debit, v.credit, v.balance) p
        cross join lateral (select v.no, v.type, v.source_type, v.source_id, v.source_version, v.entry_description as description) t
        order by v.ord`,
      [JSON.stringify(lines)],
    );
    // the line as the service built it before (its day and account aside)
    const view = (l: (typeof lines)[number]) =>
      JSON.stringify({
        transaction_id: Number(l.transaction_id),
        no: l.no,
        type: l.type,
        source: { type: l.source_type, id: Number(l.source_id), version: l.source_version },
        description: l.row_description ?? l.entry_description,
        debit: toWire(l.debit),
        credit: toWire(l.credit),
        balance: toWire(l.balance),
      });
    expect(rows.map((r) => r.rest)).toEqual(lines.map((l) => `,${view(l).slice(1)}`));
  });
});
