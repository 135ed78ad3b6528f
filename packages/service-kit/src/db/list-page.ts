import type { EntityManager } from '@mikro-orm/postgresql';
import { parseSort, type SortKey } from './sort-keys.js';
import type { EntitySchema } from '@mikro-orm/core';
import { EXACT_TOTAL_LIMIT } from '@ledgerline/contracts';
import { sqlRows } from './orm.js';
import { afterKeys, encodeCursor, invalidCursor, listDigest, readCursor } from './keyset.js';
import { asEntities, entityColumns, tableShape } from './tables.js';
import type { SqlCondition } from './sql-condition.js';

export type { SqlCondition } from './sql-condition.js';

/** `%`, `_` and `\` taken literally inside an ILIKE pattern that finds `s` anywhere. */
export function containsPattern(s: string): string {
  return `%${s.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** The conditions a list query's filters use, each with its own parameters. */
export const where = {
  eq: (column: string, value: unknown): SqlCondition => ({ sql: `${column} = ?`, params: [value] }),
  gte: (column: string, value: unknown): SqlCondition => ({ sql: `${column} >= ?`, params: [value] }),
  lte: (column: string, value: unknown): SqlCondition => ({ sql: `${column} <= ?`, params: [value] }),
  /** `column` is one of `values` (at least one: an empty list is the caller's to refuse or skip). */
  oneOf: (column: string, values: readonly unknown[]): SqlCondition => {
    if (values.length === 0) throw new Error(`where.oneOf(${column}) needs at least one value`);
    return { sql: `${column} in (${values.map(() => '?').join(', ')})`, params: [...values] };
  },
  /** Any of `columns` contains `text`, case-insensitively and literally. */
  containsAny: (columns: readonly string[], text: string): SqlCondition => {
    const pattern = containsPattern(text);
    return { sql: `(${columns.map((c) => `${c} ilike ?`).join(' or ')})`, params: columns.map(() => pattern) };
  },
  /**
   * The inclusive range a parsed `[from;to]` filter names (either end optional). A range of one
   * value is an equality: an index on (…, column, id) then reads that value's rows in id order,
   * where a range of one value still has them sorted first (a day of ten thousand invoices,
   * bodies and all, sorted to answer twenty of them: issue 59's soak).
   */
  within: (column: string, range: { from?: unknown; to?: unknown } | undefined): SqlCondition[] =>
    range?.from !== undefined && range.from === range.to
      ? [where.eq(column, range.from)]
      : [...(range?.from !== undefined ? [where.gte(column, range.from)] : []), ...(range?.to !== undefined ? [where.lte(column, range.to)] : [])],
};

export interface ListPageQuery {
  /** The table, owned by the calling service. */
  table: string;
  /** The select list of a row (must name `id`, which tells an empty page's placeholder row from a row). */
  columns: string;
  /** The caller's organisation: every list is tenant-scoped, so it cannot be left out. */
  orgId: number;
  conditions: SqlCondition[];
  /** Validated sort keys (`parseSort`) and the column each sortable field reads. */
  sort: SortKey[];
  sortColumns: Record<string, string>;
  /** Sortable fields whose column is never null (a cursor after them can start an index scan). */
  notNull?: readonly string[];
  /** Ties are broken by id, in this direction, unless the sort already names id. */
  tieBreak: 'asc' | 'desc';
  from: number;
  take: number;
  /** The `next_cursor` of the page before: this page starts after its last row (`from` must be 0). */
  cursor?: string;
  /** Count every match, however many; else the count stops at EXACT_TOTAL_LIMIT and estimates beyond. */
  exactTotal?: boolean;
}

/** A page of a list, its total (counted, or estimated past EXACT_TOTAL_LIMIT) and the cursor after it. */
export interface ListedPage<T> {
  rows: T[];
  total: number;
  totalExact: boolean;
  nextCursor: string | null;
}

/**
 * The sort and paging of a list query: `sort=` checked against the list's sortable fields (400
 * naming an unknown one), `fallback` when none is asked, ties broken by id ascending.
 */
export function sortedPage(
  q: { sort?: string[]; from: number; take: number; cursor?: string; exact_total?: boolean },
  sortColumns: Record<string, string>,
  fallback: SortKey[] = [{ field: 'id', direction: 'asc' }],
): Pick<ListPageQuery, 'sort' | 'sortColumns' | 'tieBreak' | 'from' | 'take' | 'cursor' | 'exactTotal'> {
  return { sort: parseSort(q.sort, Object.keys(sortColumns), fallback), sortColumns, tieBreak: 'asc', ...pagingOf(q) };
}

/** The paging of a list query as `listPage` takes it. */
export function pagingOf(q: { from: number; take: number; cursor?: string; exact_total?: boolean }): Pick<ListPageQuery, 'from' | 'take' | 'cursor' | 'exactTotal'> {
  return { from: q.from, take: q.take, cursor: q.cursor, exactTotal: q.exact_total };
}

/**
 * One page of a list and the count of what matches, in one statement: the rows come straight
 * from the driver as plain objects, with no entity hydrated, identity-mapped and snapshotted for
 * change tracking that a read never uses (issue 15: a 100-row page cost sales 20 ms of CPU
 * through the ORM). The filters' values travel as bind parameters.
 *
 * A large organisation's list stays as cheap as a small one's (decision 213): the page after a
 * cursor is read from where the last one stopped (an offset reads every row before it), and the
 * count stops after EXACT_TOTAL_LIMIT matches, beyond which the planner's estimate stands for it
 * (an exact count of a million rows costs more than the page) unless `exactTotal` asks for it.
 * An estimate rides in the cursor: the pages after it answer the first page's estimate without
 * counting again (a count to the limit and the planner's estimate were most of a large list's
 * page in Postgres, issue 79); a list counted exactly is counted again on every page.
 */
export async function listPage<T extends { id: unknown }>(em: EntityManager, q: ListPageQuery): Promise<ListedPage<T>> {
  const conditions = [{ sql: 'org_id = ?', params: [q.orgId] }, ...q.conditions];
  const whereSql = conditions.map((c) => c.sql).join(' and ');
  const whereParams = conditions.flatMap((c) => c.params);
  const counting = conditions.filter((c) => !c.planOnly);
  const countSql = counting.map((c) => c.sql).join(' and ');
  const countParams = counting.flatMap((c) => c.params);
  const keys = q.sort.map((s) => ({ field: s.field, column: sortColumn(q, s.field), direction: s.direction }));
  if (!q.sort.some((s) => s.field === 'id')) keys.push({ field: 'id', column: 'id', direction: q.tieBreak });
  const order = keys.map((k) => `${k.column} ${k.direction}`);
  const orderNames = keys.map((k) => `${k.direction === 'desc' ? '-' : ''}${k.field}`);
  const digest = listDigest(q.table, whereSql, whereParams, orderNames);
  let pageSql = whereSql;
  let pageParams = whereParams;
  let carried: number | undefined;
  if (q.cursor !== undefined) {
    if (q.from !== 0) throw invalidCursor('a cursor continues a list by itself; leave from out (or 0)');
    const { values, estimatedTotal } = readCursor(q.cursor, orderNames, digest, EXACT_TOTAL_LIMIT);
    // asked to count, it counts; else an estimate the list's first page made stands for the walk
    carried = q.exactTotal ? undefined : estimatedTotal;
    const after = afterKeys(keys.map((k, i) => ({ column: k.column, direction: k.direction, notNull: k.field === 'id' || (q.notNull ?? []).includes(k.field), value: values[i] })));
    pageSql = `${whereSql} and ${after.sql}`;
    pageParams = [...whereParams, ...after.params];
  }
  const keyColumns = keys.map((k, i) => `(${k.column})::text as list_key_${i}`).join(', ');
  const countQuery = q.exactTotal
    ? `select count(*)::int as list_total from ${q.table} where ${countSql}`
    : `select count(*)::int as list_total from (select 1 from ${q.table} where ${countSql} limit ${EXACT_TOTAL_LIMIT + 1}) m`;
  const pageQuery = `select ${q.columns}, ${keyColumns} from ${q.table} where ${pageSql} order by ${order.join(', ')} limit ? offset ?`;
  // The count and the page are separate subqueries (each planned on its own: the count from an
  // index alone, the page reading only its rows), joined so that an empty page still answers
  // the count on its one placeholder row. One row more than the page tells whether another follows.
  const sql = carried !== undefined ? pageQuery : `select n.list_total, p.* from (${countQuery}) n left join lateral (${pageQuery}) p on true`;
  let rows: Array<T & Record<string, unknown>>;
  try {
    rows = await sqlRows<T & Record<string, unknown>>(em, sql, [...(carried !== undefined ? [] : countParams), ...pageParams, q.take + 1, q.from]);
  } catch (err) {
    // a forged cursor's value the column's type refuses (22xxx: data exceptions)
    if (q.cursor !== undefined && /^22/.test(String((err as { code?: string }).code ?? ''))) throw invalidCursor('not a cursor this list answered');
    throw err;
  }
  const counted = Number(rows[0]?.list_total ?? 0);
  // an empty page's placeholder row carries the count alone
  const found = rows.filter((r) => r.id !== null && r.id !== undefined);
  const shown = found.slice(0, q.take);
  // the page's own columns, found once: every row of a result has the same fields, so each row is
  // copied by one list of names rather than by its entries filtered again
  const own = shown.length ? Object.keys(shown[0]).filter((k) => k !== 'list_total' && !k.startsWith('list_key_')) : [];
  const page = shown.map((r) => {
    const row: Record<string, unknown> = {};
    for (const k of own) row[k] = r[k];
    return row as T;
  });
  const last = shown[shown.length - 1];
  const cursorAfter = (estimatedTotal?: number) =>
    found.length > q.take && last ? encodeCursor(orderNames, digest, keys.map((_, i) => (last[`list_key_${i}`] ?? null) as string | null), estimatedTotal) : null;
  if (carried !== undefined) return { rows: page, total: carried, totalExact: false, nextCursor: cursorAfter(carried) };
  if (q.exactTotal || counted <= EXACT_TOTAL_LIMIT) return { rows: page, total: counted, totalExact: true, nextCursor: cursorAfter() };
  const estimate = Math.max(EXACT_TOTAL_LIMIT + 1, await plannedRows(em, `select 1 from ${q.table} where ${countSql}`, countParams));
  return { rows: page, total: estimate, totalExact: false, nextCursor: cursorAfter(estimate) };
}

/** The planner's estimate of how many rows a query answers (what EXPLAIN reads from the statistics). */
async function plannedRows(em: EntityManager, sql: string, params: unknown[]): Promise<number> {
  const [plan] = await sqlRows<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(em, `explain (format json) ${sql}`, params);
  return Math.round(Number(plan?.['QUERY PLAN']?.[0]?.Plan?.['Plan Rows'] ?? 0));
}

function sortColumn(q: ListPageQuery, field: string): string {
  const column = q.sortColumns[field];
  // parseSort has refused unknown fields already; this keeps a caller's slip from reaching SQL
  if (!column) throw new Error(`no column for sort field ${field}`);
  return column;
}

/**
 * `listPage` over an entity's table, its rows as the entity's plain objects (`entityColumns`,
 * `asEntities`): the views written for entities serve them unchanged, with nothing hydrated.
 */
export async function listEntityPage<T extends object>(
  em: EntityManager,
  entity: EntitySchema<T, any>, // eslint-disable-line @typescript-eslint/no-explicit-any
  q: Omit<ListPageQuery, 'table' | 'columns'>,
): Promise<ListedPage<T>> {
  const listed = await listPage<Record<string, unknown> & { id: unknown }>(em, { ...q, table: tableShape(em, entity).table, columns: entityColumns(em, entity) });
  return { ...listed, rows: asEntities(em, entity, listed.rows) };
}
