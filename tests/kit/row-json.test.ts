import { describe, expect, it } from 'vitest';
import { JsonText, rowJsonOf, type TableShape } from '@ledgerline/service-kit';

/*
 * `rowJsonOf`: an entity-shaped row as its table's columns, what a ledger generation's COPY lines
 * and the posting functions' JSON are built from. Pure; rewritten for a rebuild's drafting cost,
 * so what it answers is pinned here value by value.
 */

const column = (property: string, name: string, json = false) => [property, { property, column: name, cast: json ? 'jsonb' : 'text', json }] as const;
const shape: TableShape = {
  table: 'ledger_rows',
  columns: new Map([column('glAccountNumber', 'gl_account_number'), column('debit', 'debit'), column('paidRecord', 'paid_record', true), column('createdAt', 'created_at'), column('ord', 'ord'), column('closed', 'closed')]),
};

describe('rowJsonOf', () => {
  it('names each defined property by its column and keeps its value as the column stores it', () => {
    const out = rowJsonOf(shape, {
      glAccountNumber: '311',
      debit: '1210.00',
      paidRecord: new JsonText('{"type":"sales_invoice","id":7}'),
      createdAt: new Date('2024-06-30T22:00:00.000Z'),
      ord: 0,
      closed: false,
    });
    expect(out).toEqual({ gl_account_number: '311', debit: '1210.00', paid_record: { type: 'sales_invoice', id: 7 }, created_at: '2024-06-30T22:00:00.000Z', ord: 0, closed: false });
    // the row's own order, which the JSON a function receives follows
    expect(Object.keys(out)).toEqual(['gl_account_number', 'debit', 'paid_record', 'created_at', 'ord', 'closed']);
  });

  it('leaves undefined properties out and keeps null ones as null; objects that are not JSON text pass as they are', () => {
    const record = { type: 'bank_transaction', id: 3 };
    expect(rowJsonOf(shape, { glAccountNumber: '221', debit: undefined, paidRecord: record, ord: null })).toEqual({ gl_account_number: '221', paid_record: record, ord: null });
  });

  it('adds what `extra` holds, under its own names, after the columns', () => {
    const out = rowJsonOf(shape, { glAccountNumber: '343' }, { row_ord: 2 });
    expect(out).toEqual({ gl_account_number: '343', row_ord: 2 });
    expect(Object.keys(out)).toEqual(['gl_account_number', 'row_ord']);
    // no extra at all: the row alone, a fresh object each time
    const row = { glAccountNumber: '343' };
    expect(rowJsonOf(shape, row)).not.toBe(rowJsonOf(shape, row));
  });

  it('refuses a property its table has no column for', () => {
    expect(() => rowJsonOf(shape, { glAccountNumber: '311', credit: '1.00' })).toThrow('ledger_rows has no column for property credit');
    // an undefined one is not looked up: it is left out like any undefined property
    expect(rowJsonOf(shape, { credit: undefined })).toEqual({});
  });
});
