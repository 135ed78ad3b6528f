import { describe, expect, it } from 'vitest';
import type { RecurringSchedule } from '@ledgerline/contracts';
import { indexOfDate, nextOccurrence, occurrenceDate, periodOf, periodsDue, upcomingDates } from './schedule.js';
import { invoiceOfPeriod, unknownPlaceholders } from './template.js';

const monthly = (over: Partial<RecurringSchedule> = {}): RecurringSchedule => ({ frequency: 'monthly', interval: 1, start_date: '2026-01-31', ...over });
const dates = (s: RecurringSchedule, n = 5) => upcomingDates(s, nextOccurrence(s, null), n);

describe('recurring schedule dates', () => {
  it('a month-end day clamps into short months and comes back (31 Jan, 28 Feb, 31 Mar)', () => {
    expect(dates(monthly())).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31']);
    expect(dates(monthly({ start_date: '2028-01-31' }), 2)).toEqual(['2028-01-31', '2028-02-29']);
  });

  it("'last' is every month's last day; a day before start_date's day starts next month", () => {
    expect(dates(monthly({ start_date: '2026-02-10', day_of_month: 'last' }), 3)).toEqual(['2026-02-28', '2026-03-31', '2026-04-30']);
    expect(dates(monthly({ start_date: '2026-09-15', day_of_month: 1 }), 2)).toEqual(['2026-10-01', '2026-11-01']);
    expect(dates(monthly({ start_date: '2026-09-15', day_of_month: 15 }), 1)).toEqual(['2026-09-15']);
  });

  it('weekly, quarterly and yearly steps, with an interval', () => {
    expect(dates({ frequency: 'weekly', interval: 2, start_date: '2026-12-28' }, 3)).toEqual(['2026-12-28', '2027-01-11', '2027-01-25']);
    expect(dates({ frequency: 'quarterly', interval: 1, start_date: '2026-11-30' }, 3)).toEqual(['2026-11-30', '2027-02-28', '2027-05-30']);
    expect(dates({ frequency: 'yearly', interval: 1, start_date: '2024-02-29' }, 3)).toEqual(['2024-02-29', '2025-02-28', '2026-02-28']);
    expect(dates(monthly({ start_date: '2026-01-01', interval: 5 }), 3)).toEqual(['2026-01-01', '2026-06-01', '2026-11-01']);
  });

  it('count and end_date end the schedule', () => {
    expect(dates(monthly({ start_date: '2026-01-01', count: 2 }))).toEqual(['2026-01-01', '2026-02-01']);
    expect(dates(monthly({ start_date: '2026-01-01', end_date: '2026-03-01' }))).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    expect(nextOccurrence(monthly({ start_date: '2026-01-01', count: 2 }), '2026-02-01')).toBeNull();
    expect(nextOccurrence(monthly({ start_date: '2026-01-15', end_date: '2026-01-20', day_of_month: 1 }), null)).toBeNull();
  });

  it('the next date after the last issued, and not before a given day, without walking from the start', () => {
    const s = monthly({ start_date: '2000-01-31' });
    expect(nextOccurrence(s, '2026-02-28')).toEqual({ index: 314, date: '2026-03-31' });
    expect(nextOccurrence(s, '2026-02-28', '2026-06-15')).toEqual({ index: 317, date: '2026-06-30' });
    expect(nextOccurrence(s, null, '2026-03-31')?.date).toBe('2026-03-31');
    expect(occurrenceDate(s, 314)).toBe('2026-03-31');
    expect(indexOfDate(s, '2026-03-31')).toBe(314);
    expect(indexOfDate(s, '2026-03-30')).toBeNull();
    const w = { frequency: 'weekly', interval: 1, start_date: '2026-01-05' } as RecurringSchedule;
    expect(nextOccurrence(w, '2026-11-23')).toEqual({ index: 47, date: '2026-11-30' });
  });

  it('stops at the end of the calendar: nothing after 9999-12-31, the last period ends on it', () => {
    const far = { frequency: 'yearly', interval: 52, start_date: '9990-06-15' } as RecurringSchedule;
    expect(dates(far)).toEqual(['9990-06-15']);
    expect(periodOf(far, 0)).toEqual({ start: '9990-06-15', end: '9999-12-31' });
    const weekly = { frequency: 'weekly', interval: 52, start_date: '9999-06-01' } as RecurringSchedule;
    expect(dates(weekly)).toEqual(['9999-06-01']);
    expect(periodOf(weekly, 0).end).toBe('9999-12-31');
    expect(nextOccurrence(monthly({ start_date: '9999-12-31' }), '9999-12-31')).toBeNull();
    expect(dates(monthly({ start_date: '9999-11-30' }))).toEqual(['9999-11-30', '9999-12-30']);
  });

  it('a period runs from its issue date to the day before the next', () => {
    expect(periodOf(monthly(), 0)).toEqual({ start: '2026-01-31', end: '2026-02-27' });
    expect(periodOf(monthly({ start_date: '2026-11-01', day_of_month: 1 }), 1)).toEqual({ start: '2026-12-01', end: '2026-12-31' });
    expect(periodOf({ frequency: 'yearly', interval: 1, start_date: '2026-01-01' }, 0)).toEqual({ start: '2026-01-01', end: '2026-12-31' });
  });
});

describe('recurring invoice template', () => {
  const template = {
    customer: { business_name: 'Acme' },
    currency: 'CZK',
    due_in_days: 14,
    notes: 'Period {{period_start}} to {{ period_end }}',
    items: [{ title: 'Hosting {{ period_start }}–{{ period_end }}', description: 'Issued {{ issue_date }}, {{ unknown }}', qty: 1, rate: 100 }],
  };

  it('fills the period into line texts and notes, dates the invoice and its due date', () => {
    const invoice = invoiceOfPeriod(template as never, { start: '2026-11-01', end: '2026-11-30' });
    expect(invoice.date_issued).toBe('2026-11-01');
    expect(invoice.date_due).toBe('2026-11-15');
    expect(invoice.notes).toBe('Period 2026-11-01 to 2026-11-30');
    expect(invoice.items[0].title).toBe('Hosting 2026-11-01–2026-11-30');
    expect(invoice.items[0].description).toBe('Issued 2026-11-01, {{ unknown }}');
    expect('due_in_days' in invoice).toBe(false);
  });

  it('names each unknown placeholder with its path', () => {
    expect(unknownPlaceholders(template as never)).toEqual([expect.objectContaining({ path: 'template.items[0].description', code: 'unknown_placeholder' })]);
    expect(unknownPlaceholders({ ...template, items: [{ qty: 1, rate: 1 }] } as never)).toEqual([]);
  });

  it('counts the periods already due, and stops counting past the bound', () => {
    const weekly = { frequency: 'weekly' as const, interval: 1, start_date: '1900-01-01' };
    expect(periodsDue(weekly, nextOccurrence(weekly, null), '2026-12-02', 60)).toBe(61);
    const monthly = { frequency: 'monthly' as const, interval: 1, start_date: '2026-01-01' };
    expect(periodsDue(monthly, nextOccurrence(monthly, null), '2026-12-02', 60)).toBe(12);
    expect(periodsDue(monthly, nextOccurrence(monthly, null), '2025-12-31', 60)).toBe(0);
    expect(periodsDue({ ...monthly, count: 3 }, nextOccurrence({ ...monthly, count: 3 }, null), '2026-12-02', 60)).toBe(3);
    expect(periodsDue(monthly, null, '2026-12-02', 60)).toBe(0);
  });

  it('finds the last day of the calendar as an issue date (issue 71: 9999-12-31 had no upcoming dates)', () => {
    const s = { frequency: 'monthly' as const, interval: 1, day_of_month: 'last' as const, start_date: '9999-12-01' };
    expect(nextOccurrence(s, null, '9999-12-31')).toEqual({ index: 0, date: '9999-12-31' });
    expect(upcomingDates(s, nextOccurrence(s, null, '9999-12-31'))).toEqual(['9999-12-31']);
    expect(indexOfDate(s, '9999-12-31')).toBe(0);
    expect(nextOccurrence(s, '9999-12-31')).toBeNull();
  });
});
