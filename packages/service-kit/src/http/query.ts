import type { Context } from 'hono';
import { z } from 'zod';
import { DATE_MAX_YEAR, DATE_MIN_YEAR, isCalendarDate } from '@ledgerline/contracts';
import { ValidationError } from '../errors.js';
import { JsonText, type JsonItem } from '../db/tables.js';
import { parseRequest, unknownFieldsError } from './validation.js';

/**
 * Reads the query string into an object for a zod schema: keys listed in `arrays` keep every
 * value (`?sort=a&sort=-b`); any other key given twice is refused (issue 71: the last one won
 * silently, so `date_from=…&date_from=…` answered a period the client did not mean), as is a
 * parameter the schema does not know (a misspelt filter would otherwise answer the list unfiltered).
 */
export function readQuery<S extends z.ZodType>(c: Context, schema: S, arrays: string[] = []): z.output<S> {
  const all = c.req.queries();
  const obj: Record<string, unknown> = {};
  const repeated: string[] = [];
  for (const [k, values] of Object.entries(all)) {
    if (arrays.includes(k)) obj[k] = values;
    else {
      if (values.length > 1) repeated.push(k);
      obj[k] = values[values.length - 1];
    }
  }
  if (repeated.length) {
    throw new ValidationError(
      `The query string is invalid: ${repeated.map((k) => `${k.slice(0, 64)} is given more than once`).join('; ')}`,
      repeated.slice(0, 50).map((k) => ({ path: k.slice(0, 64), message: 'given more than once; it takes one value', code: 'repeated_parameter' })),
    );
  }
  return parseRequest(schema, obj, 'query string');
}

/** An operation that takes no query parameters refuses any it is sent, as `readQuery` refuses unknown ones. */
export function refuseQuery(c: Context): void {
  if (!c.req.url.includes('?')) return;
  const names = Object.keys(c.req.queries());
  if (names.length) throw unknownFieldsError(names, 'query string');
}

export const MAX_TAKE = 1000;

/** `from`/`take` paging with the endpoint's default page size; take above 1000 → 400. */
export function pagingShape(defaultTake: number) {
  return {
    from: z.coerce.number().int().min(0).max(2_147_483_647).default(0),
    take: z.coerce.number().int().min(0).max(MAX_TAKE).default(defaultTake),
  };
}

export { parseSort, type SortKey } from '../db/sort-keys.js';

export interface Range<T> {
  from?: T;
  to?: T;
}


/**
 * Range filter syntax of the interface: `v` equal, `[v;]` from, `[;v]` to, `[a;b]` between,
 * all inclusive. `kind: 'date'` checks ISO 8601 calendar dates.
 */
export function parseRange(param: string, raw: string | undefined, kind: 'date' | 'string'): Range<string> | undefined {
  if (raw === undefined || raw === '') return undefined;
  const bad = (why: string) =>
    new ValidationError(`Query parameter ${param} is not a valid range: ${why}`, [
      { path: param, message: `${why}; use v, [v;], [;v] or [a;b]`, code: 'invalid_range' },
    ]);
  let from: string | undefined;
  let to: string | undefined;
  if (raw.startsWith('[')) {
    if (!raw.endsWith(']')) throw bad('missing closing ]');
    const inner = raw.slice(1, -1);
    const parts = inner.split(';');
    if (parts.length !== 2) throw bad('expected one ";"');
    from = parts[0].trim() || undefined;
    to = parts[1].trim() || undefined;
    if (from === undefined && to === undefined) throw bad('both ends are empty');
  } else {
    from = to = raw.trim();
  }
  if (kind === 'date') {
    for (const v of [from, to]) if (v !== undefined && !isCalendarDate(v)) throw bad(`"${v}" is not an ISO 8601 date (YYYY-MM-DD) from ${DATE_MIN_YEAR} to ${DATE_MAX_YEAR}`);
  }
  if (from !== undefined && to !== undefined && from > to) throw bad('the start is after the end');
  return { from, to };
}

/** 400 `range_reversed` naming `date_to` when a period given as `date_from` and `date_to` ends before it starts. */
export function refuseReversedPeriod(q: { date_from: string; date_to: string }): void {
  if (q.date_to >= q.date_from) return;
  throw new ValidationError(`The request query is invalid: date_to: ${q.date_to} is before date_from ${q.date_from}`, [
    { path: 'date_to', message: `is before date_from (${q.date_from})`, code: 'range_reversed' },
  ]);
}

export interface Page<T> {
  total: number;
  from: number;
  take: number;
  entities: T[];
  aggregations: unknown[];
}

export function page<T>(entities: T[], total: number, from: number, take: number, aggregations: unknown[] = []): Page<T> {
  return { total, from, take, entities, aggregations };
}

/** A page of a list that pages by cursor too (`keysetPagedEnvelope`): its count, whether exact, and the cursor after it. */
export interface KeysetPage<T> extends Page<T> {
  total_exact: boolean;
  next_cursor: string | null;
}

export function keysetPage<T>(entities: T[], listed: { total: number; totalExact: boolean; nextCursor: string | null }, q: { from: number; take: number }): KeysetPage<T> {
  return { total: listed.total, total_exact: listed.totalExact, from: q.from, take: q.take, next_cursor: listed.nextCursor, entities, aggregations: [] };
}

/** `keysetPage` of entities already serialised as JSON text (or to be spliced as written), answered without joining them into one string. */
export function keysetPageOfJson(entities: readonly JsonItem[], listed: { total: number; totalExact: boolean; nextCursor: string | null }, q: { from: number; take: number }): JsonText {
  return JsonText.ofList(
    `{"total":${JSON.stringify(listed.total)},"total_exact":${listed.totalExact},"from":${JSON.stringify(q.from)},"take":${JSON.stringify(q.take)},` +
      `"next_cursor":${JSON.stringify(listed.nextCursor)},"entities":[`,
    entities,
    '],"aggregations":[]}',
  );
}

/** A range query parameter as an ORM condition (`$gte`/`$lte`), or undefined when absent. */
export function rangeCondition(param: string, raw: string | undefined, kind: 'date' | 'string'): Record<string, string> | undefined {
  const range = parseRange(param, raw, kind);
  if (!range) return undefined;
  const cond: Record<string, string> = {};
  if (range.from) cond.$gte = range.from;
  if (range.to) cond.$lte = range.to;
  return cond;
}
