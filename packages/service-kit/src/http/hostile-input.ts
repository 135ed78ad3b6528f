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
  if (!holdsHostileJson(value)) return [];
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

/**
 * Whether `findHostileJson` would find anything: the same walk, but naming nothing, so a sound
 * body (every body but an attacker's) costs no path string, stack entry or entries array per
 * value — a 10-line credit note's check allocated about 10 KB in that walk.
 */
function holdsHostileJson(value: unknown): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v === 'string') {
      if (unstorableText(v)) return true;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        values.push(v[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (unstorableText(k)) return true;
      values.push(o[k]);
      depths.push(depth + 1);
    }
  }
  return false;
}

/** 400 naming every unstorable field of a body. */
export function assertStorableJson(value: unknown): void {
  const errors = findHostileJson(value);
  if (errors.length) throw new ValidationError('The request body contains values that cannot be stored', errors, 'invalid_body');
}

/** Significant digits a JSON number (an IEEE double) carries exactly in every case. */
export const MAX_EXACT_DIGITS = 15;

/** The significant digits of a JSON number literal (`-0012.5000e3` → 3: "125"). */
function significantDigits(literal: string): number {
  const mantissa = literal.replace(/^-/, '').split(/[eE]/)[0];
  const digits = mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return digits.length;
}

/** The number literals of a JSON text (outside strings). */
function* numberLiterals(raw: string): Generator<string> {
  const re = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (const m of raw.matchAll(re)) if (m[0][0] !== '"') yield m[0];
}

/**
 * Numbers a client sent with more significant digits than a double carries exactly (e.g.
 * `999999999999999.99`, which JSON.parse reads as 1000000000000000): an amount must never be
 * silently changed on its way in. Each is named by the path where the parsed value sits.
 */
export function findInexactNumbers(raw: string, parsed: unknown, maxErrors = 20): FieldError[] {
  // fast path: no run of 16 digits (with a point among them) anywhere, no inexact literal
  if (!/[0-9][0-9.]{15,}/.test(raw)) return [];
  const inexact = new Map<number, string>();
  for (const literal of numberLiterals(raw)) {
    if (significantDigits(literal) > MAX_EXACT_DIGITS) inexact.set(Number(literal), literal);
  }
  if (inexact.size === 0) return [];
  const errors: FieldError[] = [];
  const stack: Array<{ v: unknown; path: string }> = [{ v: parsed, path: '' }];
  while (stack.length && errors.length < maxErrors) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'number' && inexact.has(v)) {
      errors.push({
        path: path || 'body',
        message: `${inexact.get(v)} has more than ${MAX_EXACT_DIGITS} significant digits, which a JSON number cannot carry exactly (it would be read as ${v}); send at most ${MAX_EXACT_DIGITS}`,
        code: 'inexact_number',
      });
    } else if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, path: joinPath(path, i) }));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push({ v: x, path: joinPath(path, k) });
  }
  return errors;
}

/** 400 naming every number that would not arrive as it was sent. */
export function assertExactNumbers(raw: string, parsed: unknown): void {
  const errors = findInexactNumbers(raw, parsed);
  if (errors.length) throw new ValidationError('The request body contains numbers that cannot be read exactly', errors, 'inexact_number');
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
