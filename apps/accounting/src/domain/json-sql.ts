/*
 * SQL expressions that write a value as the JSON the API answers with, for reports whose lines
 * Postgres writes whole (issue 79: a line read as one text costs the service a fraction of
 * reading its columns, building a view and serialising it). Each is byte for byte what
 * `JSON.stringify` writes of the view the service would have built, which the tests compare.
 */

/**
 * A decimal as a JSON number: its exact digits with the trailing zeros of its scale trimmed
 * (`12600.00` → `12600`, `0.50` → `0.5`, `0.00` → `0`), as `JSON.stringify(toWire(x))` writes a
 * money value (within a double's 15 digits; past them this stays exact where a double would not).
 * Never null: an expression that may be null is the caller's to coalesce first.
 */
export const jsonNumber = (expression: string): string => `trim_scale(${expression})::text`;

/** A whole number (an id, a version) as a JSON number. */
export const jsonInteger = (expression: string): string => `(${expression})::text`;

/** A text as a JSON string, escaped as JSON.stringify escapes it; `null` for none. */
export const jsonString = (expression: string): string => `coalesce(to_json(${expression}::text)::text, 'null')`;

/**
 * A JSON object's members in order, each `[name, expression]` an expression above, joined by `||`:
 * `"name":value,"name":value` without the braces (a caller adds them, or more members).
 */
export function jsonMembers(members: ReadonlyArray<readonly [string, string]>): string {
  return members.map(([name, value], i) => `'${i ? ',' : ''}${JSON.stringify(name)}:' || ${value}`).join(' || ');
}
