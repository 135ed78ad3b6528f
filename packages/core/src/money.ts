import Decimal from 'decimal.js';
import { AMOUNT_LIMIT } from './limits.js';
import { ValidationError } from './errors.js';

/**
 * Decimal arithmetic for money. Every amount is a decimal.js value in code, `numeric` in
 * Postgres and a JSON number on the wire; no amount ever passes through binary float math.
 * Rounding is half away from zero (ROUND_HALF_UP in decimal.js terms).
 */
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Dec = Decimal;

export type DecimalInput = Decimal.Value;

export function dec(v: DecimalInput | null | undefined): Decimal {
  return new Dec(v ?? 0);
}

export function roundMoney(v: DecimalInput, precision = 2): Decimal {
  // a Dec is rounded as it is (rounding answers a new one); anything else becomes a Dec first
  const d = Decimal.isDecimal(v) && v.constructor === Dec ? v : new Dec(v);
  // decimals are immutable, so one that already fits is its own rounding (most figures are
  // rounded once and then only added up): no copy, no second pass over its digits
  if (d.decimalPlaces() <= precision) return d;
  return d.toDecimalPlaces(precision, Decimal.ROUND_HALF_UP);
}

/**
 * A plain decimal string as Postgres and `toDb` write it (`-12.50`): the only text the fast paths
 * below read without the decimal library. Anything else (exponents, `Infinity`, hex) takes the
 * general path.
 */
const PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** A stored decimal (string from Postgres) as a JSON number for the wire. */
export function toWire(v: DecimalInput): number;
export function toWire(v: DecimalInput | null | undefined): number | null;
export function toWire(v: DecimalInput | null | undefined): number | null {
  if (v === null || v === undefined) return null;
  // Both conversions round the same decimal value to the nearest double, so they agree; the
  // library's goes through a Decimal and its string again (a hot path: every figure of every view).
  if (typeof v === 'string' && PLAIN_DECIMAL.test(v)) return Number(v);
  return new Dec(v).toNumber();
}

/** The fixed-scale string Postgres stores, e.g. `298.00`. */
export function toDb(v: DecimalInput, precision = 2): string {
  // A decimal that already fits is only written out: its plain digits (`toFixed()` without a scale
  // neither rounds nor copies, and writes a negative zero as `0`) padded to the scale. The library's
  // `toFixed(scale)` copies and rounds again, which made this the dearest step of a document's
  // arithmetic (issue 15).
  if (Decimal.isDecimal(v) && v.decimalPlaces() <= precision) return padScale(v.toFixed(), precision);
  // rounded before formatting, so what rounds to zero reads `0.00`, never `-0.00` (toFixed with a
  // rounding mode keeps the sign)
  return roundMoney(v, precision).toFixed(precision);
}

/** `plain` (digits, at most `scale` of them after a point) with zeros up to `scale` decimals. */
function padScale(plain: string, scale: number): string {
  if (scale === 0) return plain;
  const point = plain.indexOf('.');
  const decimals = point < 0 ? 0 : plain.length - point - 1;
  return (point < 0 ? `${plain}.` : plain) + '0'.repeat(scale - decimals);
}

/**
 * Figures beyond AMOUNT_LIMIT (in magnitude) are refused: every amount a request carries and
 * every figure computed from them must fit the narrowest column downstream (decision 55).
 */
export { AMOUNT_LIMIT };

/** AMOUNT_LIMIT (10^13) as digits: a plain decimal with fewer integer digits is within it. */
const LIMIT_TEXT = String(AMOUNT_LIMIT);

/** Whether `value`'s magnitude exceeds AMOUNT_LIMIT. */
export function overAmountLimit(value: DecimalInput): boolean {
  if (typeof value === 'string' && PLAIN_DECIMAL.test(value)) {
    // read from the digits: the integer part (without sign and leading zeros) decides, but for
    // exactly 10^13 with a fraction
    const unsigned = value.startsWith('-') ? value.slice(1) : value;
    const point = unsigned.indexOf('.');
    const whole = (point < 0 ? unsigned : unsigned.slice(0, point)).replace(/^0+(?=\d)/, '');
    if (whole.length !== LIMIT_TEXT.length) return whole.length > LIMIT_TEXT.length;
    return whole !== LIMIT_TEXT || (point >= 0 && /[1-9]/.test(unsigned.slice(point + 1)));
  }
  return (Decimal.isDecimal(value) ? value : new Dec(value)).abs().gt(AMOUNT_LIMIT);
}

/** The paths of figures whose magnitude exceeds AMOUNT_LIMIT, for a 400 naming each. */
export function figuresOverLimit(figures: Array<[path: string, value: DecimalInput | null | undefined]>): Array<{ path: string; message: string; code: string }> {
  const out: Array<{ path: string; message: string; code: string }> = [];
  for (const [path, value] of figures) {
    if (value === null || value === undefined) continue;
    if (overAmountLimit(value)) out.push({ path, message: `the computed figure ${new Dec(value).toFixed()} exceeds 10^13 in magnitude`, code: 'too_big' });
  }
  return out;
}

/** 400 naming every figure whose magnitude exceeds AMOUNT_LIMIT. */
export function assertWithinAmountLimit(figures: Array<[path: string, value: DecimalInput | null | undefined]>): void {
  const over = figuresOverLimit(figures);
  if (over.length) throw new ValidationError(over.length === 1 ? `${over[0].path}: ${over[0].message}` : `${over.length} figures are too large`, over);
}
