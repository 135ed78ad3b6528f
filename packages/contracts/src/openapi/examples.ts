/*
 * Request and response examples of the operations (issue 14). They are recorded from a live
 * scenario (tests/platform/openapi-examples.e2e.test.ts), never written by hand, so they show
 * what the API really answers; a unit test validates each one against its operation's schemas.
 */

export type { OperationExample } from './operation-example.js';
export { RECORDED_EXAMPLES as OPERATION_EXAMPLES } from './recorded-examples.js';

export type Shape = string | Shape[] | { [key: string]: Shape };

/**
 * The structure of a JSON value without its figures: objects keep their keys, arrays the shape
 * of their first element, scalars their JSON type. Two answers of one operation in the same
 * scenario have the same shape unless the API changed.
 */
export function exampleShape(value: unknown): Shape {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length ? [exampleShape(value[0])] : [];
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, exampleShape(v)]));
  }
  return typeof value;
}
