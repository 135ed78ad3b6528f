import type { EntityMetadata, EntitySchema } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows } from './orm.js';
import { JsonText } from '../json-text.js';

export { JsonText, type JsonItem, type SplicedJson } from '../json-text.js';
export { isUniqueViolation } from './unique-violation.js';

/*
 * SQL written from a table's entity declaration. A service declares each table once
 * (`defineEntity`: columns, types, nullability; its TypeScript type is `InferEntity` of it) and
 * hand-written statements that the ORM cannot express in one round trip (insert-or-skip, counter
 * plus document plus outbox) take their column lists and casts from that declaration, so no
 * statement depends on a column order typed by hand.
 */

/** A column as a statement needs it: the property it maps, its name and the cast a bare parameter takes. */
export interface TableColumn {
  property: string;
  column: string;
  /** `?::<cast>`: parameters in `insert … select` have no target type to infer, so every one is cast. */
  cast: string;
  json: boolean;
}

export interface TableShape {
  table: string;
  columns: ReadonlyMap<string, TableColumn>;
}

const shapes = new WeakMap<EntityMetadata, TableShape>();

function castOf(columnType: string): string {
  const base = columnType.toLowerCase().replace(/\(.*\)$/, '').trim();
  if (base === 'serial' || base === 'bigserial' || base === 'int' || base === 'integer' || base === 'smallint' || base === 'bigint' || base === 'int4' || base === 'int8') return 'bigint';
  // a column declared `json` keeps its text as written (no binary form to build on insert)
  if (base === 'json' || base === 'jsonb') return base;
  if (base === 'timestamptz' || base === 'timestamp with time zone' || base === 'datetime') return 'timestamptz';
  if (base.startsWith('varchar') || base === 'character varying' || base === 'char' || base === 'character' || base === 'string') return 'text';
  if (base === 'decimal') return 'numeric';
  return base;
}

/** The table and columns of an entity as the ORM discovered them (column types resolved). */
export function tableShape(em: EntityManager, entity: EntitySchema<any, any> | string): TableShape {
  const meta = em.getMetadata().get(typeof entity === 'string' ? entity : entity.meta.className);
  let shape = shapes.get(meta);
  if (!shape) {
    const columns = new Map<string, TableColumn>();
    for (const prop of meta.props) {
      if (!prop.fieldNames?.length || prop.persist === false) continue;
      const columnType = prop.columnTypes?.[0] ?? String(prop.type);
      const cast = castOf(columnType);
      columns.set(prop.name, { property: prop.name, column: prop.fieldNames[0], cast, json: cast === 'jsonb' || cast === 'json' });
    }
    shape = { table: meta.tableName, columns };
    shapes.set(meta, shape);
  }
  return shape;
}

/**
 * A select list that reads a table's rows as its entity's plain objects: each column under its
 * property's name, a `date` column as its `YYYY-MM-DD` text (the ORM's type for it: the ORM's
 * connections leave dates as the server's text, and every session runs with `DateStyle` ISO), decimals
 * as exact strings. Timestamps arrive as text and become Dates through `asEntities`.
 */
export function entityColumns(em: EntityManager, entity: EntitySchema<any, any>): string {
  return entityReadOf(em, entity).select;
}

/** Rows read with `entityColumns` as the entity's type: timestamps parsed as the ORM parses them. */
export function asEntities<T>(em: EntityManager, entity: EntitySchema<T, any>, rows: Array<Record<string, unknown>>): T[] {
  const { stamps } = entityReadOf(em, entity);
  for (const row of rows) {
    for (const p of stamps) {
      const v = row[p];
      if (typeof v === 'string') row[p] = new Date(v);
    }
  }
  return rows as T[];
}

/**
 * Rows of an organisation's table by id as its entity's plain objects (`entityColumns`,
 * `asEntities`), by one prepared statement with nothing hydrated; ids not found (or another
 * organisation's) are left out, the rest come in no particular order. For reads that only answer
 * what they read: an entity to change is loaded through the ORM.
 */
export async function readEntities<T>(em: EntityManager, entity: EntitySchema<T, any>, orgId: number, ids: readonly number[]): Promise<T[]> {
  if (ids.length === 0) return [];
  const rows = await sqlRows(em, `select ${entityColumns(em, entity)} from ${tableShape(em, entity).table} where org_id = ? and id = any(?::bigint[])`, [orgId, `{${ids.join(',')}}`], {
    prepared: true,
  });
  return asEntities(em, entity, rows);
}

/** One row of an organisation's table by id as its entity's plain object (`readEntities`), or null. */
export async function readEntity<T>(em: EntityManager, entity: EntitySchema<T, any>, orgId: number, id: number): Promise<T | null> {
  return (await readEntities(em, entity, orgId, [id]))[0] ?? null;
}

/** What reading an entity's rows as plain objects needs, worked out once per table. */
function entityReadOf(em: EntityManager, entity: EntitySchema<any, any>): { select: string; stamps: string[] } {
  const shape = tableShape(em, entity);
  let read = entityReads.get(shape);
  if (!read) {
    const columns = [...shape.columns.values()];
    read = {
      select: columns.map((c) => `${c.column} as "${c.property}"`).join(', '),
      stamps: columns.filter((c) => c.cast === 'timestamptz').map((c) => c.property),
    };
    entityReads.set(shape, read);
  }
  return read;
}
const entityReads = new WeakMap<TableShape, { select: string; stamps: string[] }>();


function paramOf(col: TableColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof JsonText) return value.text;
  if (col.json) return JSON.stringify(value);
  if (value instanceof Date) return value.toISOString();
  return value;
}

/** The column a row's property is stored in; a property the table has none for is a defect. */
function columnOf(shape: TableShape, property: string): TableColumn {
  const col = shape.columns.get(property);
  if (!col) throw new Error(`${shape.table} has no column for property ${property}`);
  return col;
}

function columnsOf(shape: TableShape, row: object): TableColumn[] {
  const out: TableColumn[] = [];
  for (const key of Object.keys(row)) {
    if ((row as Record<string, unknown>)[key] === undefined) continue;
    out.push(columnOf(shape, key));
  }
  return out;
}

/**
 * Column list, cast placeholders and parameters of one row for `insert … select`. `expressions`
 * replaces a property's placeholder with SQL (e.g. a number taken from a CTE); an expression may
 * hold one `?`, which receives the property's value.
 */
export function rowSql(em: EntityManager, schema: EntitySchema<any, any>, row: object, expressions: Record<string, string> = {}) {
  const shape = tableShape(em, schema);
  const cols = columnsOf(shape, row);
  for (const key of Object.keys(expressions)) if (!cols.some((c) => c.property === key)) cols.push(shape.columns.get(key) ?? missing(shape, key));
  const params: unknown[] = [];
  const values = cols.map((c) => {
    const value = (row as Record<string, unknown>)[c.property];
    const expression = expressions[c.property];
    if (expression !== undefined) {
      if (expression.includes('?')) params.push(paramOf(c, value));
      return expression;
    }
    params.push(paramOf(c, value));
    return `?::${c.cast}`;
  });
  return { table: shape.table, columns: cols.map((c) => c.column).join(', '), values: values.join(', '), params };
}

function missing(shape: TableShape, key: string): never {
  throw new Error(`${shape.table} has no column for property ${key}`);
}

/**
 * A row keyed by its column names, for statements that take rows as JSON (`jsonb_populate_record`,
 * one parameter however many rows): JSON columns stay values, undefined properties are left out.
 */
export function rowJson(em: EntityManager, schema: EntitySchema<any, any>, row: object, extra?: Record<string, unknown>): Record<string, unknown> {
  return rowJsonOf(tableShape(em, schema), row, extra);
}

/** `rowJson` from a table's shape alone (plain data: a worker thread without the ORM builds rows with it). */
export function rowJsonOf(shape: TableShape, row: object, extra?: Record<string, unknown>): Record<string, unknown> {
  // one pass over the row's own keys, no list of its columns in between: a rebuild builds five
  // of these a posting, and the list and an empty `extra` copied were a fifth of their cost
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(row)) {
    const value = (row as Record<string, unknown>)[key];
    if (value === undefined) continue;
    out[columnOf(shape, key).column] = typeof value !== 'object' || value === null ? value : value instanceof JsonText ? JSON.parse(value.text) : value instanceof Date ? value.toISOString() : value;
  }
  return extra ? Object.assign(out, extra) : out;
}

export interface InsertOptions {
  /** e.g. `do nothing`, or `(org_id, no) do nothing`. */
  onConflict?: string;
  /** Return the inserted rows (database column names), or only the columns named. */
  returning?: boolean | readonly string[];
  /**
   * Run as a named prepared statement: for a caller whose rows always have the same properties
   * (one statement text), so Postgres parses and plans it once per connection.
   */
  prepared?: boolean;
}

/**
 * Inserts rows in one statement, its columns named and cast from the entity declaration: every
 * property some row defines; a row that leaves one undefined gets the column's default.
 */
export async function insertRows<T extends object>(
  em: EntityManager,
  schema: EntitySchema<T, any>,
  rows: ReadonlyArray<Partial<Record<keyof T, unknown>>>,
  opts: InsertOptions = {},
): Promise<Array<Record<string, any>>> {
  if (rows.length === 0) return [];
  const { sql, params } = insertStatement(em, schema, rows, opts);
  return sqlRows(em, sql, params, { prepared: opts.prepared });
}

/** Ids for `count` new rows of `schema`, taken from its sequence in one round trip before the rows are written. */
export async function nextIds(em: EntityManager, schema: EntitySchema<any, any>, count: number): Promise<number[]> {
  if (count < 1) return [];
  const rows = await sqlRows<{ id: number }>(em, `select nextval(pg_get_serial_sequence(?, 'id'))::bigint as id from generate_series(1, ?::int)`, [
    tableShape(em, schema).table,
    count,
  ]);
  return rows.map((r) => r.id);
}

/** The statement `insertRows` runs (at least one row), for a caller that runs it itself (`ctx.writeLast`). */
export function insertStatement<T extends object>(
  em: EntityManager,
  schema: EntitySchema<T, any>,
  rows: ReadonlyArray<Partial<Record<keyof T, unknown>>>,
  opts: Pick<InsertOptions, 'onConflict' | 'returning'> = {},
): { sql: string; params: unknown[] } {
  if (rows.length === 0) throw new Error('an insert statement needs at least one row');
  const shape = tableShape(em, schema);
  const cols = [...new Map(rows.flatMap((row) => columnsOf(shape, row)).map((c) => [c.property, c])).values()];
  const params: unknown[] = [];
  const tuples = rows.map((row) => {
    const values = cols.map((c) => {
      const value = (row as Record<string, unknown>)[c.property];
      if (value === undefined) return 'default';
      params.push(paramOf(c, value));
      return `?::${c.cast}`;
    });
    return `(${values.join(', ')})`;
  });
  const sql =
    `insert into ${shape.table} (${cols.map((c) => c.column).join(', ')}) values ${tuples.join(', ')}` +
    (opts.onConflict ? ` on conflict ${opts.onConflict}` : '') +
    returningClause(opts.returning);
  return { sql, params };
}

function returningClause(returning: InsertOptions['returning']): string {
  if (returning === true) return ' returning *';
  return Array.isArray(returning) && returning.length ? ` returning ${returning.join(', ')}` : '';
}

// tables' column names are few and fixed, and a page maps hundreds of rows of them
const propertyNames = new Map<string, string>();

/** The property a column holds under the ORM's naming: `gl_account_number` → `glAccountNumber`. */
export function propertyOfColumn(column: string): string {
  let name = propertyNames.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    if (propertyNames.size < 1000) propertyNames.set(column, name);
  }
  return name;
}

/** A row read by column name (plain SQL) as an object keyed by the entity's property names. */
export function propertiesOf<T>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const k in row) out[propertyOfColumn(k)] = row[k];
  return out as T;
}
