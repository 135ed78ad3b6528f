import type { z } from 'zod';
import { ValidationError, type FieldError } from '../errors.js';
import { unknownFields } from './unknown-fields.js';

/** `items[0].qty` style paths, the way integrators read them in an error list. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(root)';
}

export function zodIssuesToFieldErrors(issues: z.core.$ZodIssue[], prefix?: string): FieldError[] {
  return issues.map((i) => {
    const path = formatPath(i.path);
    return {
      path: prefix ? (path === '(root)' ? prefix : `${prefix}.${path}`) : path,
      message: i.message,
      code: i.code,
    };
  });
}

/** Parses with a zod schema or throws a 400 ValidationError that names every failing field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what = 'request body'): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const errors = zodIssuesToFieldErrors(r.error.issues);
  throw new ValidationError(`The ${what} is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
}

/**
 * Parses a request's body or query string, refusing with one 400 both what fails the schema and
 * any field the operation does not know (decision 146): a misspelt field (`street` for `address1`,
 * `stauts` for `status`) would otherwise be dropped, and a document made without it or a list
 * answered unfiltered. `readOnly` is the resource as the operation answers it: its fields a
 * request cannot set (ids, totals, timestamps) pass unread, so a resource read can be sent back.
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, what = 'request body', readOnly?: z.ZodType): z.output<S> {
  const unknown = unknownFields(schema, value, readOnly).map((p) => formatPath(p));
  const r = schema.safeParse(value);
  if (r.success && unknown.length === 0) return r.data;
  if (r.success) throw unknownFieldsError(unknown, what);
  const errors = [...zodIssuesToFieldErrors(r.error.issues), ...unknownFieldErrors(unknown, what)];
  throw new ValidationError(`The ${what} is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
}

/** `parseRequest`'s refusal of unknown fields alone, for a body parsed later (after a merge). */
export function refuseUnknownFields(schema: z.ZodType, value: unknown, what = 'request body', readOnly?: z.ZodType): void {
  const unknown = unknownFields(schema, value, readOnly).map((p) => formatPath(p));
  if (unknown.length) throw unknownFieldsError(unknown, what);
}

/** What the unknown things of a body or a query string are called. */
const nounOf = (what: string) => (what === 'query string' ? 'parameter' : 'field');

const unknownFieldErrors = (paths: string[], what: string): FieldError[] =>
  paths.map((path) => ({ path, message: `unknown ${nounOf(what)}: not one this operation takes`, code: 'unrecognized_keys' }));

/** The 400 for fields (or query parameters, `what` = 'query string') an operation does not know. */
export const unknownFieldsError = (paths: string[], what: string) =>
  new ValidationError(
    `The ${what} has ${paths.length === 1 ? `a ${nounOf(what)}` : `${nounOf(what)}s`} this operation does not know: ${paths.join(', ')}`,
    unknownFieldErrors(paths, what),
  );
