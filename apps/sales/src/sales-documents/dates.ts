import { ValidationError } from '@ledgerline/service-kit';

/**
 * A sales document cannot fall due before it is issued: such a date is a slip (a year or a month
 * typed wrong), and the document would be overdue the day it is sent. Dates are ISO 8601 calendar
 * dates of four-digit years, so they compare as text. Due on the day of issue is allowed (cash).
 */
export function refuseDueBeforeIssue(input: { date_issued: string; date_due?: string | null }): void {
  if (input.date_due == null || input.date_due >= input.date_issued) return;
  throw new ValidationError(`The request body is invalid: date_due: ${input.date_due} is before date_issued ${input.date_issued}`, [
    { path: 'date_due', message: `is before date_issued (${input.date_issued})`, code: 'due_before_issue' },
  ]);
}
