/*
 * Rows as the text format of Postgres' COPY (decision 256): one line a row, its values in a fixed
 * column order separated by tabs, `\N` for null. What a ledger generation stages is loaded this
 * way: Postgres reads such lines with each column's input function alone, where a JSON array of
 * objects costs it a parse of every object and a key lookup for every column (ten times the CPU
 * for the same rows).
 */

/** Backslash, tab, newline and carriage return: the characters a value's text must escape. */
const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text value as COPY reads it back unchanged. */
export function copyEscape(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPED[c]) : text;
}

/**
 * One value as COPY text: null and undefined as `\N`; booleans as `t`/`f`; numbers and bigints as
 * written (integer columns: ids, orders); strings escaped (decimals and days are already their
 * text); dates as ISO timestamps; arrays and objects as their JSON text (json/jsonb columns).
 */
export function copyValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return copyEscape(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`${value} has no COPY text`);
      return String(value);
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 't' : 'f';
    case 'undefined':
      return '\\N';
    case 'object':
      if (value === null) return '\\N';
      if (value instanceof Date) return value.toISOString();
      return copyEscape(JSON.stringify(value));
    default:
      throw new Error(`a ${typeof value} has no COPY text`);
  }
}

/**
 * A row's line (newline included): the row's value of each column, in the columns' order (a
 * column the row lacks is null), then `tail`, values already in COPY text each led by its tab
 * (what every row of a batch shares, e.g. its organisation, written once). The values are joined
 * once: a string added to piece by piece costs two and a half times as much, flattened later.
 */
export function copyLine(columns: readonly string[], row: Readonly<Record<string, unknown>>, tail = ''): string {
  const values = new Array<string>(columns.length);
  for (let i = 0; i < columns.length; i++) values[i] = copyValue(row[columns[i]]);
  return `${values.join('\t')}${tail}\n`;
}
