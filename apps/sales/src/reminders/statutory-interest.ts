import { Dec, addDays } from '@ledgerline/service-kit';

/*
 * Late-payment interest at the Czech statutory rate (nařízení vlády č. 351/2013 Sb., § 2): a year's
 * interest is the Czech National Bank's two-week repo rate on the last day of the calendar
 * half-year before the half-year in which the delay began, plus 8 percentage points, and it stays
 * that rate for the whole delay. (It is the rate in force on the first day of the delay's
 * half-year unless the bank changed it with effect on that very day.) Interest runs for each day
 * from the day after the due date, on what is still due, over a 365-day year.
 */

/** The CNB's two-week repo rate: each change and the day it took effect (percent). */
export const CNB_REPO_RATE_CHANGES: ReadonlyArray<readonly [day: string, rate: string]> = [
  ['2012-11-02', '0.05'],
  ['2017-08-04', '0.25'],
  ['2017-11-03', '0.50'],
  ['2018-02-02', '0.75'],
  ['2018-06-28', '1.00'],
  ['2018-08-03', '1.25'],
  ['2018-09-27', '1.50'],
  ['2018-11-02', '1.75'],
  ['2019-05-03', '2.00'],
  ['2020-02-07', '2.25'],
  ['2020-03-17', '1.75'],
  ['2020-03-27', '1.00'],
  ['2020-05-08', '0.25'],
  ['2021-06-24', '0.50'],
  ['2021-08-06', '0.75'],
  ['2021-09-30', '1.50'],
  ['2021-11-04', '2.75'],
  ['2021-12-23', '3.75'],
  ['2022-02-04', '4.50'],
  ['2022-03-31', '5.00'],
  ['2022-05-06', '5.75'],
  ['2022-06-23', '7.00'],
  ['2023-12-22', '6.75'],
  ['2024-02-09', '6.25'],
  ['2024-03-21', '5.75'],
  ['2024-05-03', '5.25'],
  ['2024-06-28', '4.75'],
  ['2024-08-02', '4.50'],
  ['2024-09-26', '4.25'],
  ['2024-11-08', '4.00'],
  ['2025-02-07', '3.75'],
  ['2025-05-09', '3.50'],
];
/** The last day the table above is known to be complete through; a later fixing day comes from `CNB_REPO_RATES`. */
export const CNB_REPO_RATES_KNOWN_THROUGH = '2025-06-30';

/** Repo rates on fixing days (the last day of a half-year) given by the operator, e.g. `2025-12-31=3.50`. */
export type RepoFixings = ReadonlyMap<string, string>;

/** Parses `CNB_REPO_RATES`: comma-separated `YYYY-MM-DD=rate` (the rate on that day), each day the last of June or December. */
export function parseRepoFixings(text: string | undefined): RepoFixings {
  const out = new Map<string, string>();
  for (const part of (text ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d{4}-(?:06-30|12-31))=(\d{1,2}(?:\.\d{1,4})?)$/.exec(part);
    if (!m) throw new Error(`CNB_REPO_RATES: "${part}" is not YYYY-06-30=rate or YYYY-12-31=rate`);
    out.set(m[1], m[2]);
  }
  return out;
}

/** The repo rate in force on `day` (percent), or null when the table does not reach it. */
export function repoRateOn(day: string, fixings: RepoFixings = new Map()): string | null {
  const given = fixings.get(day);
  if (given !== undefined) return given;
  if (day > CNB_REPO_RATES_KNOWN_THROUGH || day < CNB_REPO_RATE_CHANGES[0][0]) return null;
  let rate: string | null = null;
  for (const [from, r] of CNB_REPO_RATE_CHANGES) if (from <= day) rate = r;
  return rate;
}

/** The last day of the half-year before the one `day` falls in. */
export function fixingDayFor(day: string): string {
  const [y, m] = day.split('-').map(Number);
  return m <= 6 ? `${y - 1}-12-31` : `${y}-06-30`;
}

/** The statutory rate (percent a year) of a delay that began on `firstDayLate`, or null when the repo rate of its fixing day is not known. */
export function statutoryRate(firstDayLate: string, fixings?: RepoFixings): string | null {
  const repo = repoRateOn(fixingDayFor(firstDayLate), fixings);
  return repo === null ? null : Dec(repo).plus(8).toFixed();
}

const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;

/**
 * Interest on `amountDue`, late since the day after `dateDue`, up to and including `asOf`, rounded
 * half up to `precision`; the rate with it. Not late: nothing. Rate unknown: null, said so.
 */
export function lateInterest(amountDue: string, dateDue: string, asOf: string, precision: number, fixings?: RepoFixings): { days: number; rate: string | null; interest: string | null } {
  const days = Math.max(0, dayNumber(asOf) - dayNumber(dateDue));
  if (days === 0) return { days, rate: null, interest: '0' };
  const rate = statutoryRate(addDays(dateDue, 1), fixings);
  if (rate === null) return { days, rate: null, interest: null };
  const interest = Dec(amountDue).times(rate).div(100).times(days).div(365).toDecimalPlaces(precision, Dec.ROUND_HALF_UP);
  return { days, rate, interest: interest.toFixed(precision) };
}
