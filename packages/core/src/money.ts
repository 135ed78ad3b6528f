import Decimal from 'decimal.js';
import { AMOUNT_LIMIT } from '@ledgerline/contracts/common';
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
  return new Dec(v).toDecimalPlaces(precision, Decimal.ROUND_HALF_UP);
}

/** A stored decimal (string from Postgres) as a JSON number for the wire. */
export function toWire(v: DecimalInput): number;
export function toWire(v: DecimalInput | null | undefined): number | null;
export function toWire(v: DecimalInput | null | undefined): number | null {
  if (v === null || v === undefined) return null;
  return new Dec(v).toNumber();
}

/** The fixed-scale string Postgres stores, e.g. `298.00`. */
export function toDb(v: DecimalInput, precision = 2): string {
  return roundMoney(v, precision).toFixed(precision);
}

/**
 * Figures beyond AMOUNT_LIMIT (in magnitude) are refused: every amount a request carries and
 * every figure computed from them must fit the narrowest column downstream (decision 55).
 */
export { AMOUNT_LIMIT };

/** The paths of figures whose magnitude exceeds AMOUNT_LIMIT, for a 400 naming each. */
export function figuresOverLimit(figures: Array<[path: string, value: DecimalInput | null | undefined]>): Array<{ path: string; message: string; code: string }> {
  const out: Array<{ path: string; message: string; code: string }> = [];
  for (const [path, value] of figures) {
    if (value === null || value === undefined) continue;
    if (new Dec(value).abs().gt(AMOUNT_LIMIT)) out.push({ path, message: `the computed figure ${new Dec(value).toFixed()} exceeds 10^13 in magnitude`, code: 'too_big' });
  }
  return out;
}

/** 400 naming every figure whose magnitude exceeds AMOUNT_LIMIT. */
export function assertWithinAmountLimit(figures: Array<[path: string, value: DecimalInput | null | undefined]>): void {
  const over = figuresOverLimit(figures);
  if (over.length) throw new ValidationError(over.length === 1 ? `${over[0].path}: ${over[0].message}` : `${over.length} figures are too large`, over);
}
