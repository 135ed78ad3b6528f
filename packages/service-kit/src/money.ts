import Decimal from 'decimal.js';

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
export function toWire(v: DecimalInput | null | undefined): number | null {
  if (v === null || v === undefined) return null;
  return new Dec(v).toNumber();
}

/** The fixed-scale string Postgres stores, e.g. `298.00`. */
export function toDb(v: DecimalInput, precision = 2): string {
  return roundMoney(v, precision).toFixed(precision);
}
