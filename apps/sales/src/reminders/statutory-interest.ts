import { Dec, addDays } from '@ledgerline/service-kit';
import { SHIPPED_REPO_RATES, repoRateIn, type RepoRateTable } from '@ledgerline/core/cnb-repo-rates';

/*
 * Late-payment interest at the Czech statutory rate (nařízení vlády č. 351/2013 Sb., § 2): a year's
 * interest is the Czech National Bank's two-week repo rate on the last day of the calendar
 * half-year before the half-year in which the delay began, plus 8 percentage points, and it stays
 * that rate for the whole delay. (It is the rate in force on the first day of the delay's
 * half-year unless the bank changed it with effect on that very day.) Interest runs for each day
 * from the day after the due date, on what is still due, over a 365-day year.
 */

/**
 * The history of the CNB's two-week repo rate comes from `@ledgerline/core/cnb-repo-rates` (shipped
 * as far as public sources go) and, for an organisation, from settings (its imports, hand-set
 * changes and the bank's file fetched; `rpc.settings.repo_rates`). An operator may still state the
 * rate of a fixing day beyond it (`CNB_REPO_RATES`).
 */
export { CNB_REPO_RATE_HISTORY, CNB_REPO_RATES_KNOWN_THROUGH, SHIPPED_REPO_RATES, type RepoRateTable } from '@ledgerline/core/cnb-repo-rates';

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

/** The repo rate in force on `day` (percent): the operator's word for a fixing day, else the history's; null when neither reaches it. */
export function repoRateOn(day: string, fixings: RepoFixings = new Map(), table: RepoRateTable = SHIPPED_REPO_RATES): string | null {
  return fixings.get(day) ?? repoRateIn(table, day);
}

/** The last day of the half-year before the one `day` falls in. */
export function fixingDayFor(day: string): string {
  const [y, m] = day.split('-').map(Number);
  return m <= 6 ? `${y - 1}-12-31` : `${y}-06-30`;
}

/** The statutory rate (percent a year) of a delay that began on `firstDayLate`, or null when the repo rate of its fixing day is not known. */
export function statutoryRate(firstDayLate: string, fixings?: RepoFixings, table?: RepoRateTable): string | null {
  const repo = repoRateOn(fixingDayFor(firstDayLate), fixings, table);
  return repo === null ? null : Dec(repo).plus(8).toFixed();
}

const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;

/**
 * Interest on `amountDue`, late since the day after `dateDue`, up to and including `asOf`, rounded
 * half up to `precision`; the rate with it. Not late: nothing. Rate unknown: null, said so.
 */
export function lateInterest(
  amountDue: string,
  dateDue: string,
  asOf: string,
  precision: number,
  fixings?: RepoFixings,
  table?: RepoRateTable,
): { days: number; rate: string | null; interest: string | null } {
  const days = Math.max(0, dayNumber(asOf) - dayNumber(dateDue));
  if (days === 0) return { days, rate: null, interest: '0' };
  const rate = statutoryRate(addDays(dateDue, 1), fixings, table);
  if (rate === null) return { days, rate: null, interest: null };
  const interest = Dec(amountDue).times(rate).div(100).times(days).div(365).toDecimalPlaces(precision, Dec.ROUND_HALF_UP);
  return { days, rate, interest: interest.toFixed(precision) };
}
