import { z } from 'zod';
import { DATE_MAX_YEAR, DATE_MIN_YEAR, INT32_MAX, MAX_TAKE, SHORT_TEXT, yearInWindow } from './common.js';

// --- paging, sorting, ranges (architecture §2) -----------------------------------------------------

/**
 * Paged list envelope `{total, from, take, entities, aggregations}`. When `item` is a named
 * component, the envelope is named `<Item>Page`.
 */
export function pagedEnvelope<T extends z.ZodType>(item: T) {
  const schema = z.object({
    total: z.int().min(0).describe('Number of matching records'),
    from: z.int().min(0).describe('Offset of the first entity'),
    take: z.int().min(0).describe('Page size'),
    entities: z.array(item),
    aggregations: z.array(z.unknown()).describe('Reserved; empty'),
  });
  const itemId = z.globalRegistry.get(item)?.id;
  return itemId ? schema.meta({ id: `${itemId}Page`, description: `A page of ${itemId}` }) : schema;
}
export interface Paged<T> {
  total: number;
  from: number;
  take: number;
  entities: T[];
  aggregations: unknown[];
}

/**
 * The counted total of a list stops at this many matches: beyond it the total is the database's
 * estimate and `total_exact` is false, unless `exact_total=true` asks for the count (decision 213).
 */
export const EXACT_TOTAL_LIMIT = 10_000;

/**
 * A page of a list that pages by cursor as well as by offset: `next_cursor` continues after its
 * last entity at the cost of the first page, wherever that is; `total` is exact up to
 * EXACT_TOTAL_LIMIT matches and an estimate beyond (decision 213), which the cursor carries to the
 * pages after it (decision 274).
 */
export function keysetPagedEnvelope<T extends z.ZodType>(item: T) {
  const schema = z.object({
    total: z
      .int()
      .min(0)
      .describe(
        `Number of matching records: counted up to ${EXACT_TOTAL_LIMIT.toLocaleString('en')} (total_exact true), the database's estimate beyond (total_exact false; the pages after a next_cursor repeat the first page's estimate) unless exact_total=true`,
      ),
    total_exact: z.boolean().describe('Whether total was counted (true) or estimated (false)'),
    from: z.int().min(0).describe('Offset of the first entity (0 when the page was asked for by cursor)'),
    take: z.int().min(0).describe('Page size'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` (with the same filters and sort) for the page after this one; null on the last page'),
    entities: z.array(item),
    aggregations: z.array(z.unknown()).describe('Reserved; empty'),
  });
  const itemId = z.globalRegistry.get(item)?.id;
  return itemId ? schema.meta({ id: `${itemId}Page`, description: `A page of ${itemId}` }) : schema;
}

/** Coerced query integer (query strings carry text). */
const queryInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** `from` (offset, default 0) and `take` (page size, default per endpoint, at most 1000). */
export function pagingQuery(defaultTake: number) {
  return {
    from: queryInt(0, INT32_MAX).default(0).describe('Offset of the first record'),
    take: queryInt(0, MAX_TAKE).default(defaultTake).describe(`Page size, at most ${MAX_TAKE} (default ${defaultTake})`),
  };
}

/**
 * `pagingQuery` and, for the lists that page by cursor, `cursor` (the `next_cursor` of the page
 * before, with the same filters and sort; `from` stays 0) and `exact_total`.
 */
export function keysetPagingQuery(defaultTake: number) {
  return {
    ...pagingQuery(defaultTake),
    cursor: z
      .string()
      .max(2048)
      .regex(/^[A-Za-z0-9_-]+$/, 'a next_cursor as it was answered')
      .optional()
      .describe('The next_cursor of the previous page: the page after it, as cheap as the first wherever it is (same filters and sort; not with from)'),
    exact_total: z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .transform((v) => v === 'true' || v === '1')
      .describe(`Count every match for total, however many (beyond ${EXACT_TOTAL_LIMIT.toLocaleString('en')} the total is otherwise estimated)`),
  };
}

/**
 * A query parameter that may repeat (`?x=a&x=b`): accepts one value or an array and yields an
 * array. `item` validates each value.
 */
export function repeatedParam<T extends z.ZodType>(item: T) {
  return z.union([item, z.array(item).max(MAX_TAKE)]).transform((v): z.output<T>[] => (Array.isArray(v) ? v : [v]));
}

/** Sort keys: `field` ascending, `-field` descending, repeatable; the service rejects unknown fields (400). */
export const sortQuery = repeatedParam(
  z.string().regex(/^[-+]?[a-z_][a-z0-9_.]*(,[-+]?[a-z_][a-z0-9_.]*)*$/, 'sort key: field or -field'),
).describe('Sort keys: field ascending, -field descending; repeatable');

export const searchQuery = z.string().max(SHORT_TEXT).describe('Case-insensitive substring over number, name or description');

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A real `YYYY-MM-DD` calendar date inside the accepted years (`DATE_MIN_YEAR`…`DATE_MAX_YEAR`). */
export function isCalendarDate(s: string): boolean {
  if (!ISO_DATE.test(s) || !yearInWindow(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

export interface Range {
  from?: string;
  to?: string;
}

/**
 * Parses the range syntax of the interface: `v` equal, `[v;]` from, `[;v]` to, `[a;b]` between
 * (inclusive). Returns null when malformed. With `kind: 'date'` each end must be a calendar date.
 */
export function parseRangeFilter(raw: string, kind: 'date' | 'string'): Range | null {
  let from: string | undefined;
  let to: string | undefined;
  if (raw.startsWith('[')) {
    if (!raw.endsWith(']')) return null;
    const parts = raw.slice(1, -1).split(';');
    if (parts.length !== 2) return null;
    from = parts[0].trim() || undefined;
    to = parts[1].trim() || undefined;
    if (from === undefined && to === undefined) return null;
  } else {
    if (raw.trim() === '' || raw.includes(';')) return null;
    from = to = raw.trim();
  }
  if (kind === 'date' && [from, to].some((v) => v !== undefined && !isCalendarDate(v))) return null;
  if (from !== undefined && to !== undefined && from > to) return null;
  return { from, to };
}

/**
 * A range query parameter, kept as text (services parse it with `parseRangeFilter` or the kit's
 * `parseRange`); malformed ranges fail validation (400).
 */
export function rangeQuery(kind: 'date' | 'string') {
  const example = kind === 'date' ? '[2025-01-01;2025-12-31]' : '[300;399]';
  return z
    .string()
    .max(SHORT_TEXT)
    .refine((v) => parseRangeFilter(v, kind) !== null, {
      message: `malformed ${kind} range; use v, [v;], [;v] or [a;b]${kind === 'date' ? ' with YYYY-MM-DD dates' : ''}`,
    })
    .describe(`${kind === 'date' ? 'Date' : 'String'} range: v equal, [v;] from, [;v] to, [a;b] between (inclusive), e.g. ${example}`);
}
