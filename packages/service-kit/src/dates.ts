/** A `date` column as `YYYY-MM-DD`, whether the driver hands back a string or a Date. */
export function isoDay(v: string | Date): string;
export function isoDay(v: string | Date | null | undefined): string | null;
export function isoDay(v: string | Date | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) {
    const y = v.getFullYear();
    const m = String(v.getMonth() + 1).padStart(2, '0');
    const d = String(v.getDate()).padStart(2, '0');
    return `${y}-${m}-${d}`;
  }
  return String(v).slice(0, 10);
}

/** Whole days `date` lies before `today` (0 when not past). */
export function daysPast(date: string | null, today = new Date().toISOString().slice(0, 10)): number {
  if (!date || date >= today) return 0;
  return Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / 86_400_000);
}

/** The calendar day `days` after an ISO day (negative: before), in UTC so that no time zone moves it. */
export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The local day (YYYY-MM-DD), weekday (0 Sunday) and time (HH:MM) of `at` in `timeZone`. */
export function localClock(at: Date, timeZone: string): { day: string; weekday: number; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', weekday: 'short', hourCycle: 'h23' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday);
  return { day: `${parts.year}-${parts.month}-${parts.day}`, weekday, time: `${parts.hour}:${parts.minute}` };
}
