import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows, tableShape } from '@ledgerline/service-kit';
import { creditAllocationTableSql } from '@ledgerline/posted-documents';
import { startStack, type ServiceKey, type Stack } from '../support/stack.js';

/*
 * Every table is declared once, as an entity (`defineEntity`), and the SQL migrations create it.
 * Hand-written statements take their columns from the declaration, so the two must agree: each
 * declared property names a column the migrated table has, with a compatible type, and is
 * nullable exactly where the column is; a column the declaration leaves out has a default.
 */

const SERVICES: ServiceKey[] = ['settings', 'sales', 'purchase', 'finance', 'accounting'];

/** The cast a declared property's parameters take, for each column type of the migrations. */
const COMPATIBLE: Record<string, string[]> = {
  bigint: ['bigint', 'integer', 'smallint'],
  numeric: ['numeric'],
  text: ['text', 'character varying', 'character'],
  jsonb: ['jsonb'],
  timestamptz: ['timestamp with time zone'],
  date: ['date'],
  boolean: ['boolean'],
  uuid: ['uuid'],
};

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: SERVICES });
}, 60_000);
afterAll(async () => stack?.close());

describe('table declarations agree with the migrations', () => {
  it.each(SERVICES)('%s', async (name) => {
    const svc = stack.services[name]!;
    const em = svc.deps.orm.em.fork();
    const problems: string[] = [];
    const entities = svc.deps.orm.getMetadata().getAll();
    let checked = 0;
    for (const meta of Object.values(entities)) {
      if (meta.embeddable || meta.virtual || !meta.tableName || !meta.class) continue;
      const shape = tableShape(em, meta.className);
      const columns = await sqlRows<{ column_name: string; data_type: string; is_nullable: 'YES' | 'NO'; column_default: string | null }>(
        em,
        `select column_name, data_type, is_nullable, column_default from information_schema.columns where table_schema = 'public' and table_name = ?`,
        [shape.table],
      );
      if (!columns.length) {
        problems.push(`${shape.table}: declared but not migrated`);
        continue;
      }
      const byName = new Map(columns.map((c) => [c.column_name, c]));
      for (const col of shape.columns.values()) {
        const db = byName.get(col.column);
        if (!db) {
          problems.push(`${shape.table}.${col.column}: declared (${col.property}) but not migrated`);
          continue;
        }
        if (!(COMPATIBLE[col.cast] ?? [col.cast]).includes(db.data_type)) problems.push(`${shape.table}.${col.column}: declared ${col.cast}, migrated ${db.data_type}`);
        const prop = meta.properties[col.property];
        const declaredNullable = !!prop.nullable;
        if (declaredNullable !== (db.is_nullable === 'YES') && !prop.primary) {
          problems.push(`${shape.table}.${col.column}: declared ${declaredNullable ? 'nullable' : 'not null'}, migrated ${db.is_nullable === 'YES' ? 'nullable' : 'not null'}`);
        }
        checked++;
      }
      const declared = new Set([...shape.columns.values()].map((c) => c.column));
      for (const c of columns) {
        if (!declared.has(c.column_name) && c.is_nullable === 'NO' && c.column_default === null) problems.push(`${shape.table}.${c.column_name}: migrated not null without a default, not declared`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(10);
  });

  it('the credit-allocation tables of sales and purchase are one declaration: the same columns, types and precision as its DDL makes', async () => {
    type Column = { column_name: string; data_type: string; numeric_precision: number | null; numeric_scale: number | null; is_nullable: string };
    const columnsOf = (name: 'sales' | 'purchase', table: string) =>
      sqlRows<Column>(
        stack.services[name]!.deps.orm.em.fork(),
        `select column_name, data_type, numeric_precision, numeric_scale, is_nullable from information_schema.columns
          where table_schema = current_schema() and table_name = ? order by ordinal_position`,
        [table],
      );
    const sales = await columnsOf('sales', 'sales_credit_allocations');
    const purchase = await columnsOf('purchase', 'purchase_credit_allocations');
    expect(sales.length).toBe(13);
    expect(purchase).toEqual(sales);
    expect(sales.find((c) => c.column_name === 'amount')).toMatchObject({ data_type: 'numeric', numeric_precision: 18, numeric_scale: 4 });
    // what the shared DDL makes is what both services have (made in a transaction rolled back)
    const ROLLBACK = new Error('rollback');
    let made: Column[] = [];
    await stack.services.sales!.deps.orm.em
      .fork()
      .transactional(async (tx) => {
        await tx.execute(creditAllocationTableSql('ddl_check_allocations', 'sales_documents'));
        made = await sqlRows<Column>(
          tx,
          `select column_name, data_type, numeric_precision, numeric_scale, is_nullable from information_schema.columns
            where table_schema = current_schema() and table_name = 'ddl_check_allocations' order by ordinal_position`,
        );
        throw ROLLBACK;
      })
      .catch((e) => {
        if (e !== ROLLBACK) throw e;
      });
    expect(made).toEqual(sales);
  });
});
