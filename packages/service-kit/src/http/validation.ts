import type { z } from 'zod';
import { ValidationError, type FieldError } from '../errors.js';

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
