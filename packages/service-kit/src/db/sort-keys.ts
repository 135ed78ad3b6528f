import { ValidationError } from '../errors.js';

/* A list's `sort` parameter, read where the list query is built (db/list-page.ts) and re-exported for handlers (http/query.ts). */

export interface SortKey {
  field: string;
  direction: 'asc' | 'desc';
}

/** `sort=field` ascending, `sort=-field` descending; unknown fields → 400 naming them. */
export function parseSort(values: string[] | undefined, allowed: readonly string[], fallback: SortKey[]): SortKey[] {
  if (!values || values.length === 0) return fallback;
  const keys: SortKey[] = [];
  for (const raw of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)) {
    const desc = raw.startsWith('-');
    const field = raw.replace(/^[-+]/, '');
    if (!allowed.includes(field)) {
      throw new ValidationError(`Cannot sort by "${field}"; sortable fields: ${allowed.join(', ')}`, [
        { path: 'sort', message: `unknown sort field "${field}"`, code: 'invalid_value' },
      ]);
    }
    keys.push({ field, direction: desc ? 'desc' : 'asc' });
  }
  return keys;
}
