import { createHash } from 'node:crypto';
import { ValidationError } from '../errors.js';
import type { SqlCondition } from './sql-condition.js';

/**
 * Keyset ("cursor") paging (decision 213). A list's page is `order by k1, …, id limit n`; the
 * page after it is the same query with "after the last row's keys" added, which an index on the
 * keys reads from where the last page stopped: page 10 000 costs what page 1 costs, where an
 * offset reads and throws away every row before it.
 */

/** One key of a list's order, and the last row's value of it as Postgres wrote it out (text). */
export interface KeyValue {
  column: string;
  direction: 'asc' | 'desc';
  /** The column is never null: the condition can bound it from one side, which an index uses. */
  notNull: boolean;
  value: string | null;
}

/**
 * Rows after `keys` in their order, Postgres' default placement of nulls included (last
 * ascending, first descending): for each key, the rows equal on the keys before it and after it
 * on this one. The first key's bound is repeated alone (`k1 >= v`), which an index range scan can
 * start from; the disjunction alone it cannot.
 */
export function afterKeys(keys: readonly KeyValue[]): SqlCondition {
  const disjuncts: SqlCondition[] = [];
  for (let i = 0; i < keys.length; i++) {
    const after = afterOne(keys[i]);
    if (!after) continue;
    const equal = keys.slice(0, i).map(equalTo);
    disjuncts.push(joined([...equal, after], ' and '));
  }
  if (disjuncts.length === 0) return { sql: 'false', params: [] };
  const any = joined(disjuncts, ' or ');
  const bound = leadingBound(keys[0]);
  return bound ? joined([bound, { sql: `(${any.sql})`, params: any.params }], ' and ') : { sql: `(${any.sql})`, params: any.params };
}

function equalTo(k: KeyValue): SqlCondition {
  return k.value === null ? { sql: `${k.column} is null`, params: [] } : { sql: `${k.column} = ?`, params: [k.value] };
}

/** Rows after `k`'s value on `k` alone, or null when none can be (the last place is null's). */
function afterOne(k: KeyValue): SqlCondition | null {
  if (k.direction === 'asc') {
    if (k.value === null) return null; // nulls sort last ascending: nothing comes after one
    return k.notNull ? { sql: `${k.column} > ?`, params: [k.value] } : { sql: `(${k.column} > ? or ${k.column} is null)`, params: [k.value] };
  }
  // descending, nulls first: after a null come the values; after a value, the smaller ones
  return k.value === null ? { sql: `${k.column} is not null`, params: [] } : { sql: `${k.column} < ?`, params: [k.value] };
}

function leadingBound(k: KeyValue | undefined): SqlCondition | null {
  if (!k || k.value === null) return null;
  if (k.direction === 'desc') return { sql: `${k.column} <= ?`, params: [k.value] };
  return k.notNull ? { sql: `${k.column} >= ?`, params: [k.value] } : null;
}

function joined(parts: readonly SqlCondition[], by: string): SqlCondition {
  return { sql: parts.map((p) => p.sql).join(by), params: parts.flatMap((p) => p.params) };
}

/** What a cursor holds: which list it continues (its order and filters) and the last row's keys. */
interface CursorContent {
  /** The list's order, `field` or `-field` each. */
  o: string[];
  /** A digest of the list's filters and organisation. */
  f: string;
  /** The last row's value of each key of the order. */
  v: Array<string | null>;
  /** The list's estimated total, when it was past the counted limit (`listPage`); absent when counted. */
  t?: number;
}

/** A digest of a list's table, filters and order: a cursor continues only the list it came from. */
export function listDigest(table: string, whereSql: string, params: readonly unknown[], order: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([table, whereSql, params.map((p) => (p instanceof Date ? p.toISOString() : p)), order]))
    .digest('base64url')
    .slice(0, 16);
}

export function encodeCursor(order: readonly string[], digest: string, values: ReadonlyArray<string | null>, estimatedTotal?: number): string {
  const content: CursorContent = { o: [...order], f: digest, v: [...values], ...(estimatedTotal === undefined ? {} : { t: estimatedTotal }) };
  return Buffer.from(JSON.stringify(content), 'utf8').toString('base64url');
}

export function invalidCursor(why: string): ValidationError {
  return new ValidationError(`The cursor cannot continue this list: ${why}`, [{ path: 'cursor', message: why, code: 'invalid_cursor' }], 'invalid_cursor');
}

/**
 * The last row's keys a cursor holds, when it continues this list (same order, filters and
 * organisation); anything else is 400 `invalid_cursor`. The values go to Postgres as bind
 * parameters, so a forged one can only be a value the column refuses (also 400, from the query).
 */
export function decodeCursor(cursor: string, order: readonly string[], digest: string): Array<string | null> {
  return readCursor(cursor, order, digest).values;
}

/**
 * `decodeCursor`'s keys, and the estimated total the cursor carries (a whole number past
 * `estimatedAbove`, else 400 `invalid_cursor`), when it carries one.
 */
export function readCursor(cursor: string, order: readonly string[], digest: string, estimatedAbove = Infinity): { values: Array<string | null>; estimatedTotal?: number } {
  let content: unknown;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('not a cursor this list answered');
  }
  const c = content as Partial<CursorContent> | null;
  if (!c || typeof c !== 'object' || !Array.isArray(c.o) || !Array.isArray(c.v) || typeof c.f !== 'string') throw invalidCursor('not a cursor this list answered');
  if (c.o.length !== order.length || c.o.some((o, i) => o !== order[i])) throw invalidCursor('it was answered for another sort');
  if (c.f !== digest) throw invalidCursor('it was answered for other filters');
  if (c.v.length !== order.length || c.v.some((v) => v !== null && (typeof v !== 'string' || v.length > 512 || v.includes('\u0000')))) {
    throw invalidCursor('not a cursor this list answered');
  }
  if (c.t === undefined) return { values: c.v as Array<string | null> };
  if (!Number.isSafeInteger(c.t) || !(c.t > estimatedAbove)) throw invalidCursor('not a cursor this list answered');
  return { values: c.v as Array<string | null>, estimatedTotal: c.t };
}
