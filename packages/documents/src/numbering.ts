import { InvalidMaskError, NumberingError } from './errors.js';

/**
 * Numbering masks of document series, e.g. `INV{YYYY}{#####}`, `CN{YY}{MM}-{####}`, `{YYYY}/{###}`.
 *
 * Grammar: literal text plus the tokens `{YYYY}` `{YY}` `{MM}` `{DD}` (from the document date) and
 * exactly one counter `{#…}` of 1–12 `#` (its zero-padded width). Braces are only allowed as token
 * delimiters, control characters not at all; at most 64 characters.
 *
 * Counters restart per year when the mask shows the year (`{YYYY}` or `{YY}`), per month when it also
 * shows `{MM}`; otherwise they never restart. (`{MM}` without a year does not restart monthly, which
 * would repeat numbers a year later.) `{DD}` never makes counters restart.
 */

export const MAX_MASK_LENGTH = 64;
export const MAX_COUNTER_WIDTH = 12;

export type MaskPart =
  | { kind: 'literal'; text: string }
  | { kind: 'year4' }
  | { kind: 'year2' }
  | { kind: 'month' }
  | { kind: 'day' }
  | { kind: 'counter'; width: number };

export type SeriesPeriod = 'year' | 'month' | 'none';

export interface ParsedMask {
  mask: string;
  parts: MaskPart[];
  counterWidth: number;
  /** When the counter restarts. */
  period: SeriesPeriod;
}

/** A document date: `YYYY-MM-DD` (a date-time string is cut to its date as written) or a Date (UTC). */
export type NumberingDate = Date | string;

export type CounterValue = number | bigint | string;

const DATE_TOKENS: Record<string, MaskPart> = {
  YYYY: { kind: 'year4' },
  YY: { kind: 'year2' },
  MM: { kind: 'month' },
  DD: { kind: 'day' },
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export function parseMask(mask: string): ParsedMask {
  if (typeof mask !== 'string') throw new InvalidMaskError(String(mask), 'a mask must be a string');
  if (mask.length === 0) throw new InvalidMaskError(mask, 'the mask is empty');
  if (mask.length > MAX_MASK_LENGTH) {
    throw new InvalidMaskError(mask, `a mask has at most ${MAX_MASK_LENGTH} characters`);
  }
  if (CONTROL.test(mask)) throw new InvalidMaskError(mask, 'control characters are not allowed');

  const parts: MaskPart[] = [];
  let literal = '';
  let i = 0;
  while (i < mask.length) {
    const ch = mask[i];
    if (ch === '}') throw new InvalidMaskError(mask, `unexpected "}" at position ${i + 1}`);
    if (ch !== '{') {
      literal += ch;
      i++;
      continue;
    }
    const close = mask.indexOf('}', i + 1);
    if (close < 0) throw new InvalidMaskError(mask, `"{" at position ${i + 1} is not closed`);
    const token = mask.slice(i + 1, close);
    if (token.includes('{')) throw new InvalidMaskError(mask, `"{" at position ${i + 1} is not closed`);
    let part: MaskPart;
    if (DATE_TOKENS[token]) part = DATE_TOKENS[token];
    else if (/^#+$/.test(token)) {
      if (token.length > MAX_COUNTER_WIDTH) {
        throw new InvalidMaskError(mask, `a counter has 1 to ${MAX_COUNTER_WIDTH} "#", not ${token.length}`);
      }
      part = { kind: 'counter', width: token.length };
    } else {
      throw new InvalidMaskError(
        mask,
        `unknown token {${token}}; allowed are {YYYY}, {YY}, {MM}, {DD} and a counter {#…}`,
      );
    }
    if (literal) parts.push({ kind: 'literal', text: literal });
    literal = '';
    parts.push(part);
    i = close + 1;
  }
  if (literal) parts.push({ kind: 'literal', text: literal });

  const counters = parts.filter((p): p is Extract<MaskPart, { kind: 'counter' }> => p.kind === 'counter');
  if (counters.length === 0) throw new InvalidMaskError(mask, 'the mask needs a counter such as {####}');
  if (counters.length > 1) throw new InvalidMaskError(mask, 'the mask may have only one counter');

  const hasYear = parts.some((p) => p.kind === 'year4' || p.kind === 'year2');
  const hasMonth = parts.some((p) => p.kind === 'month');
  const period: SeriesPeriod = hasYear ? (hasMonth ? 'month' : 'year') : 'none';
  return { mask, parts, counterWidth: counters[0].width, period };
}

export function isValidMask(mask: unknown): boolean {
  if (typeof mask !== 'string') return false;
  try {
    parseMask(mask);
    return true;
  } catch {
    return false;
  }
}

/** The document number for `counter` on `date`; the counter is zero-padded, or written in full when wider. */
export function formatNumber(mask: string | ParsedMask, date: NumberingDate, counter: CounterValue): string {
  const parsed = typeof mask === 'string' ? parseMask(mask) : mask;
  const d = readDate(date);
  const digits = readCounter(counter);
  return parsed.parts
    .map((p) => {
      switch (p.kind) {
        case 'literal':
          return p.text;
        case 'year4':
          return String(d.year).padStart(4, '0');
        case 'year2':
          return String(d.year % 100).padStart(2, '0');
        case 'month':
          return String(d.month).padStart(2, '0');
        case 'day':
          return String(d.day).padStart(2, '0');
        case 'counter':
          return digits.padStart(p.width, '0');
      }
    })
    .join('');
}

/**
 * The period the series counter runs in for `date`: `'2026'` (restarts yearly), `'2026-11'` (monthly)
 * or `''` (never restarts). Counters are kept per (series, period key).
 */
export function seriesPeriodKey(mask: string | ParsedMask, date: NumberingDate): string {
  const parsed = typeof mask === 'string' ? parseMask(mask) : mask;
  if (parsed.period === 'none') return '';
  const d = readDate(date);
  const year = String(d.year).padStart(4, '0');
  return parsed.period === 'year' ? year : `${year}-${String(d.month).padStart(2, '0')}`;
}

function readDate(date: NumberingDate): { year: number; month: number; day: number } {
  if (date instanceof Date) {
    if (Number.isNaN(date.getTime())) throw new NumberingError('The document date is not a valid date', 'invalid_date', 'date');
    return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
  }
  const m = typeof date === 'string' ? /^(\d{4})-(\d{2})-(\d{2})(?:T.*)?$/.exec(date) : null;
  if (m) {
    const year = Number(m[1]);
    const month = Number(m[2]);
    const day = Number(m[3]);
    const check = new Date(Date.UTC(year, month - 1, day));
    if (check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day) {
      return { year, month, day };
    }
  }
  throw new NumberingError(`The document date ${JSON.stringify(date)} is not a YYYY-MM-DD date`, 'invalid_date', 'date');
}

function readCounter(counter: CounterValue): string {
  if (typeof counter === 'bigint' && counter >= 0n) return counter.toString();
  if (typeof counter === 'number' && Number.isSafeInteger(counter) && counter >= 0) return String(counter);
  if (typeof counter === 'string' && /^\d+$/.test(counter)) return BigInt(counter).toString();
  throw new NumberingError(
    `The counter ${String(counter)} is not a non-negative integer`,
    'invalid_counter',
    'counter',
  );
}

/**
 * A mask's number for one document date, split around the counter so SQL can format it while it
 * takes the counter: `prefix || lpad(counter, width) || suffix` (a wider counter is written in
 * full, as `formatNumber` does).
 */
export interface NumberPattern {
  /** The counter's period (`seriesPeriodKey`). */
  period: string;
  prefix: string;
  width: number;
  suffix: string;
}

export function numberPattern(mask: string | ParsedMask, date: NumberingDate): NumberPattern {
  const parsed = typeof mask === 'string' ? parseMask(mask) : mask;
  const at = parsed.parts.findIndex((p) => p.kind === 'counter');
  const part = (parts: ParsedMask['parts']) => formatNumber({ ...parsed, parts }, date, 0);
  return {
    period: seriesPeriodKey(parsed, date),
    prefix: part(parsed.parts.slice(0, at)),
    width: parsed.counterWidth,
    suffix: part(parsed.parts.slice(at + 1)),
  };
}
