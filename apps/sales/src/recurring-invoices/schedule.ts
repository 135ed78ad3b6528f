import type { RecurringSchedule } from '@ledgerline/contracts';
import { addDays } from '@ledgerline/service-kit';

/*
 * The issue dates of a schedule as a sequence: occurrence 0 is the first issue date on or after
 * start_date, occurrence i the one i steps later. Months are counted from occurrence 0's month and
 * the day is clamped into each month, so "the 31st" is 28 February and 31 March again, never
 * drifting to the 28th for good.
 */

const MONTHS_PER_STEP = { monthly: 1, quarterly: 3, yearly: 12 } as const;
const LAST_DAY = '9999-12-31';
/** A date past the calendar the API accepts (an occurrence after 9999-12-31): never issued. */
const BEYOND = '10000-01-01';
const beyondCalendar = (d: string) => d.length !== 10 || d > LAST_DAY;

const lastDayOf = (year: number, month0: number) => new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();

function dayIn(year: number, month0: number, dayOfMonth: number | 'last'): string {
  // normalise a month index past 11 or below 0 into its year
  const d = new Date(Date.UTC(year, month0, 1));
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  if (y > 9999) return BEYOND;
  const last = lastDayOf(y, m);
  const day = dayOfMonth === 'last' ? last : Math.min(dayOfMonth, last);
  return `${String(y).padStart(4, '0')}-${String(m + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The date of occurrence `i` (ignoring count and end_date). */
export function occurrenceDate(s: Pick<RecurringSchedule, 'frequency' | 'interval' | 'day_of_month' | 'start_date'>, i: number): string {
  const interval = s.interval ?? 1;
  if (s.frequency === 'weekly') {
    const d = new Date(`${s.start_date}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() + 7 * interval * i);
    return d.getUTCFullYear() > 9999 ? BEYOND : d.toISOString().slice(0, 10);
  }
  const [y, m, d] = s.start_date.split('-').map(Number);
  const dayOfMonth = s.day_of_month ?? d;
  // the first issue date on or after start_date: this month's, else the next month's
  const firstMonth = dayIn(y, m - 1, dayOfMonth) >= s.start_date ? m - 1 : m;
  return dayIn(y, firstMonth + MONTHS_PER_STEP[s.frequency] * interval * i, dayOfMonth);
}

/** Whether occurrence `i` (on `date`) is still within the schedule's count and end date. */
function withinEnd(s: RecurringSchedule, i: number, date: string): boolean {
  if (s.count != null && i >= s.count) return false;
  if (s.end_date != null && date > s.end_date) return false;
  return !beyondCalendar(date);
}

/**
 * The index and date of the first occurrence after `lastIssued` (the first of all when nothing
 * was issued) and on or after `notBefore` when given; null when the schedule has ended before it.
 */
export function nextOccurrence(s: RecurringSchedule, lastIssued: string | null, notBefore?: string): { index: number; date: string } | null {
  if (lastIssued !== null && lastIssued >= LAST_DAY) return null;
  const floor = [lastIssued ? addDays(lastIssued, 1) : null, notBefore ?? null].filter((v): v is string => v != null).sort().at(-1) ?? null;
  let i = floor ? estimateIndex(s, floor) : 0;
  // the estimate is at most one step early; walk to the first date on or after the floor
  for (let guard = 0; guard < 1000; guard++, i++) {
    const date = occurrenceDate(s, i);
    if (!withinEnd(s, i, date)) return null;
    if (floor === null || date >= floor) return { index: i, date };
  }
  return null;
}

/** An occurrence index at or just before `day`, without walking every period since the start. */
function estimateIndex(s: RecurringSchedule, day: string): number {
  const days = (Date.parse(`${day}T00:00:00Z`) - Date.parse(`${s.start_date}T00:00:00Z`)) / 86_400_000;
  if (days <= 0) return 0;
  const interval = s.interval ?? 1;
  const stepDays = s.frequency === 'weekly' ? 7 * interval : 28 * MONTHS_PER_STEP[s.frequency] * interval;
  // a month of 28 days overestimates the steps: back off until the date is before the day
  let i = Math.floor(days / stepDays);
  // (a date past the calendar, "10000-01-01", sorts before "9999-…" as text: it is after every day)
  while (i > 0 && (beyondCalendar(occurrenceDate(s, i)) || occurrenceDate(s, i) >= day)) i--;
  return i;
}

/** The next `n` issue dates from occurrence `from` on, as far as the schedule goes. */
export function upcomingDates(s: RecurringSchedule, from: { index: number; date: string } | null, n = 5): string[] {
  if (!from) return [];
  const out: string[] = [];
  for (let i = from.index; out.length < n; i++) {
    const date = occurrenceDate(s, i);
    if (!withinEnd(s, i, date)) break;
    out.push(date);
  }
  return out;
}

/** The period an issue covers: from its issue date to the day before the next one. */
export function periodOf(s: RecurringSchedule, index: number): { start: string; end: string } {
  const next = occurrenceDate(s, index + 1);
  return { start: occurrenceDate(s, index), end: beyondCalendar(next) ? LAST_DAY : addDays(next, -1) };
}

/** The index of the occurrence falling on `date`, if one does. */
export function indexOfDate(s: RecurringSchedule, date: string): number | null {
  const next = nextOccurrence({ ...s, count: null, end_date: null }, null, date);
  return next && next.date === date ? next.index : null;
}

/** How many issue dates from occurrence `from` on fall on or before `today`, counted to `max` + 1 at most. */
export function periodsDue(s: RecurringSchedule, from: { index: number; date: string } | null, today: string, max: number): number {
  if (!from) return 0;
  let n = 0;
  for (let i = from.index; n <= max; i++) {
    const date = occurrenceDate(s, i);
    if (date > today || !withinEnd(s, i, date)) break;
    n++;
  }
  return n;
}
