import { ValidationError, type FieldError } from '../errors.js';

/** Deepest nesting of arrays and objects a request body may have (real bodies stay below 8). */
export const MAX_JSON_DEPTH = 32;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a text cannot be stored, or null. Postgres text and jsonb refuse the NUL character and
 * UTF-16 halves without their pair (which JSON's `\ud800` escape can produce), so such input
 * would fail deep inside a write as a 500; it is refused at the door instead.
 */
export function unstorableText(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (not valid Unicode)';
  return null;
}

function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

/**
 * Walks a parsed JSON body and lists what no service could store: text with NUL or lone
 * surrogates (in values and in keys) and nesting deeper than `MAX_JSON_DEPTH`. Iterative, so a
 * hostile depth cannot overflow the stack here; at most `maxErrors` problems are reported.
 */
export function findHostileJson(value: unknown, maxErrors = 20): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: '', depth: 0 }];
  while (stack.length && errors.length < maxErrors) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const why = unstorableText(v);
      if (why) errors.push({ path: path || 'body', message: why, code: 'invalid_text' });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      errors.push({ path: path || 'body', message: `nested deeper than ${MAX_JSON_DEPTH} levels`, code: 'too_deep' });
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: joinPath(path, i), depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i];
      const why = unstorableText(k);
      if (why) {
        errors.push({ path: joinPath(path, JSON.stringify(k)), message: `field name ${why}`, code: 'invalid_text' });
        continue;
      }
      stack.push({ v: child, path: joinPath(path, k), depth: depth + 1 });
    }
  }
  return errors;
}

/** 400 naming every unstorable field of a body. */
export function assertStorableJson(value: unknown): void {
  const errors = findHostileJson(value);
  if (errors.length) throw new ValidationError('The request body contains values that cannot be stored', errors, 'invalid_body');
}

/** 400 naming every query parameter whose name or value holds NUL or lone surrogates. */
export function assertStorableQuery(url: string): void {
  const q = url.indexOf('?');
  if (q < 0) return;
  const errors: FieldError[] = [];
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(url.slice(q + 1));
  } catch {
    throw new ValidationError('The query string cannot be read', [{ path: 'query', message: 'malformed query string', code: 'invalid_query' }], 'invalid_query');
  }
  for (const [k, v] of params) {
    const why = unstorableText(k) ?? unstorableText(v);
    if (why) errors.push({ path: `query.${unstorableText(k) ? '(name)' : k}`, message: why, code: 'invalid_text' });
  }
  if (errors.length) throw new ValidationError('The query string contains values that cannot be used', errors, 'invalid_query');
}

/** 400 when a path segment decodes to NUL or lone surrogates (`/hosting/%00`). */
export function assertStorablePath(pathname: string): void {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    throw new ValidationError('The path cannot be decoded', [{ path: 'path', message: 'malformed percent-encoding', code: 'invalid_path' }], 'invalid_path');
  }
  const why = unstorableText(decoded);
  if (why) throw new ValidationError(`The path ${why}`, [{ path: 'path', message: why, code: 'invalid_text' }], 'invalid_path');
}
