/*
 * The Czech payment symbols (variable, constant, specific) as statements, payment orders and the
 * bank's API carry them: up to ten digits, read without their leading zeros.
 */

/** A symbol field as digits without leading zeros; null when empty or all zeros. */
export function symbolDigits(raw: string | null | undefined): string | null {
  const t = (raw ?? '').trim();
  if (!/^\d{1,10}$/.test(t)) return null;
  const v = t.replace(/^0+/, '');
  return v === '' ? null : v;
}
