import { Dec } from './money.js';

/*
 * The Czech National Bank's two-week repo rate (2T repo sazba), which the statutory late-payment
 * interest is computed from (nařízení vlády č. 351/2013 Sb.). The history ships with the code as
 * far as public sources take it, each value with its source; an organisation extends it by
 * importing the bank's own history file or setting a change by hand (settings), and settings
 * fetches the file by itself where REPO_RATES_URL is set (issue 70).
 */

export interface RepoRateChange {
  /** The first day the rate was in force. */
  valid_from: string;
  /** Percent a year, as a decimal string. */
  rate: string;
  source: string;
}

const BANK_HISTORY = "CNB, the two-week repo rate's history (vyvoj_repo_historie.txt)";

/** Each change of the rate since it was last 0.05 %, and the day it took effect. */
export const CNB_REPO_RATE_HISTORY: readonly RepoRateChange[] = (
  [
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
  ] as const
).map(([valid_from, rate]) => ({ valid_from, rate, source: BANK_HISTORY }));

/**
 * The last day the shipped history is known to be complete through. The bank's daily liquidity
 * page of 12 December 2025 lists the 2T repo rate at 3.50 % in force since 9 May 2025; the bank
 * board left it unchanged on 18 December 2025 and again on 5 February 2026, the last decision
 * public when this was written. A change decided at the next meeting would take effect after it.
 */
export const CNB_REPO_RATES_KNOWN_THROUGH = { day: '2026-02-05', source: 'CNB bank board decision of 5 February 2026: rates unchanged, 2T repo 3.50 %' } as const;

/** A repo-rate history: its changes (any order) and the last day it is known to be complete through. */
export interface RepoRateTable {
  changes: ReadonlyArray<Pick<RepoRateChange, 'valid_from' | 'rate'>>;
  known_through: string;
}

export const SHIPPED_REPO_RATES: RepoRateTable = { changes: CNB_REPO_RATE_HISTORY, known_through: CNB_REPO_RATES_KNOWN_THROUGH.day };

/** The rate in force on `day` (percent), or null when the history does not reach it. */
export function repoRateIn(table: RepoRateTable, day: string): string | null {
  if (day > table.known_through) return null;
  let found: { valid_from: string; rate: string } | null = null;
  for (const c of table.changes) if (c.valid_from <= day && (!found || c.valid_from > found.valid_from)) found = c;
  return found ? found.rate : null;
}

/** A history file that is not one: every bad line, so the whole file is refused (a skipped line would serve the previous rate). */
export class RepoRateFileError extends Error {
  constructor(readonly problems: ReadonlyArray<{ line: number; message: string }>) {
    super(`Not the CNB repo-rate history: ${problems.slice(0, 5).map((p) => (p.line ? `line ${p.line}: ${p.message}` : p.message)).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`);
  }
}

export const REPO_FILE_HEADER = 'PLATNA_OD|CNB_REPO_SAZBA_V_%';
/** More lines than the bank's history will ever have (about one change a month since 1995). */
export const REPO_FILE_MAX_LINES = 5_000;

const isCalendarDay = (iso: string) => {
  const d = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === iso;
};

/**
 * The bank's repo-rate history file (`PLATNA_OD|CNB_REPO_SAZBA_V_%`, then `YYYYMMDD|rate` with a
 * decimal comma; UTF-8, perhaps with a BOM, CRLF or LF). Every line must be a change: a wrong
 * header, a day that is not a calendar day, a rate that is not a percentage between −10 and 100
 * with at most four decimals, or a day given twice refuses the whole file.
 */
export function parseCnbRepoHistory(text: string): Array<{ valid_from: string; rate: string }> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines.length > REPO_FILE_MAX_LINES) throw new RepoRateFileError([{ line: 0, message: `more than ${REPO_FILE_MAX_LINES} lines` }]);
  if ((lines[0] ?? '').trim() !== REPO_FILE_HEADER) throw new RepoRateFileError([{ line: 1, message: `the header is not ${REPO_FILE_HEADER}` }]);
  const problems: Array<{ line: number; message: string }> = [];
  const seen = new Set<string>();
  const out: Array<{ valid_from: string; rate: string }> = [];
  lines.slice(1).forEach((raw, i) => {
    const line = raw.trim();
    const n = i + 2;
    if (!line) return;
    const m = /^(\d{4})(\d{2})(\d{2})\|(-?\d{1,3}(?:,\d{1,4})?)$/.exec(line);
    if (!m) return problems.push({ line: n, message: `"${line.slice(0, 40)}" is not YYYYMMDD|rate` });
    const day = `${m[1]}-${m[2]}-${m[3]}`;
    if (!isCalendarDay(day)) return problems.push({ line: n, message: `${day} is not a calendar day` });
    const rate = new Dec(m[4].replace(',', '.'));
    if (rate.lt(-10) || rate.gt(100)) return problems.push({ line: n, message: `${rate.toString()} % is not a repo rate` });
    if (seen.has(day)) return problems.push({ line: n, message: `${day} is given twice` });
    seen.add(day);
    out.push({ valid_from: day, rate: rate.toFixed(Math.max(2, rate.decimalPlaces())) });
  });
  if (problems.length) throw new RepoRateFileError(problems);
  if (!out.length) throw new RepoRateFileError([{ line: 0, message: 'the file lists no change' }]);
  return out.sort((a, b) => a.valid_from.localeCompare(b.valid_from));
}
