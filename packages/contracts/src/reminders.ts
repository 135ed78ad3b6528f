import { z } from 'zod';
import { CONTENT_TEXT, currencyCode, culture, id, isoDate, isoDateTime, money } from './common.js';
import { pagedEnvelope, pagingQuery } from './paging.js';

// --- payment reminders (PUT /v1/settings/reminders, POST /v1/sales/reminders/run, …/reminders) -------

/** The placeholders a reminder's subject and text may hold. */
export const REMINDER_PLACEHOLDERS = ['org', 'customer', 'date', 'invoices', 'total_due', 'level'] as const;

const reminderEmailSchema = z.object({
  subject: z.string().trim().min(1).max(998),
  body: z.string().trim().min(1).max(CONTENT_TEXT),
});

export const reminderLevelSchema = z.object({
  days_after_due: z.int().min(1).max(3650).describe('Sent once an invoice is this many days past its due date'),
  fee: z
    .record(currencyCode, money.min(0))
    .nullish()
    .describe('The fee charged with this reminder, per invoice currency, e.g. {"CZK": 250, "EUR": 10}; an invoice in a currency not named is charged none'),
  email: z
    .record(culture, reminderEmailSchema)
    .refine((m) => Object.keys(m).length >= 1 && Object.keys(m).length <= 20, 'one to twenty languages')
    .describe(`The e-mail per language (BCP 47 tag → subject and text); the customer's language when there is one, else the first. Placeholders: ${REMINDER_PLACEHOLDERS.map((p) => `{{ ${p} }}`).join(', ')}`),
});

export const reminderSettingsRequestSchema = z
  .object({
    enabled: z.boolean().default(true).describe('false: the daily run sends nothing for this organisation'),
    statutory_interest: z.boolean().default(true).describe('Show the late-payment interest at the Czech statutory rate (the CNB repo rate + 8 percentage points)'),
    levels: z
      .array(reminderLevelSchema)
      .min(1)
      .max(5)
      .superRefine((levels, ctx) => {
        for (let i = 1; i < levels.length; i++) {
          if (levels[i].days_after_due <= levels[i - 1].days_after_due) ctx.addIssue({ code: 'custom', path: [i, 'days_after_due'], message: 'later than the level before' });
        }
      })
      .describe('The reminder levels, each later than the one before'),
  })
  .meta({ id: 'ReminderSettingsRequest', description: 'How overdue invoices are reminded: the levels, their fees and e-mails' });
export type ReminderSettingsRequest = z.output<typeof reminderSettingsRequestSchema>;

export const reminderSettingsSchema = z
  .object({
    enabled: z.boolean(),
    statutory_interest: z.boolean(),
    levels: z.array(reminderLevelSchema).max(5).describe('The reminder levels; none until they are set'),
    updated_at: isoDateTime.nullable(),
  })
  .meta({ id: 'ReminderSettings', description: "The organisation's reminder levels (none set: the run sends nothing)" });

export const reminderRunRequestSchema = z
  .object({ date: isoDate.nullish().describe('The day to run for (today when absent): what is overdue on it, interest up to it; not after today') })
  .meta({ id: 'ReminderRunRequest', description: 'Run the reminders of a day' });

export const reminderLineSchema = z
  .object({
    id: id,
    reminder_id: id.describe('The letter (one per customer and run) the line is in'),
    invoice_id: id,
    invoice_no: z.string(),
    level: z.int().min(1).max(5),
    date: isoDate.describe('The day of the run'),
    currency: currencyCode,
    amount_due: money.describe('What was still due on the day'),
    days_overdue: z.int().min(1),
    interest_rate: z.number().nullable().describe('Statutory rate, percent a year (null: not shown, or no repo rate known for the period)'),
    interest: money.nullable().describe('Late-payment interest from the day after the due date to the day of the run'),
    fee: money,
    email_status: z.enum(['pending', 'sent', 'written', 'failed', 'no_recipient']),
    to: z.string().nullable(),
    created_at: isoDateTime,
  })
  .meta({ id: 'ReminderLine', description: 'An overdue invoice reminded at one level' });
export type ReminderLine = z.infer<typeof reminderLineSchema>;

export const reminderRunResultSchema = z
  .object({
    date: isoDate,
    reminders: z.array(
      z.object({
        id: id,
        customer: z.string().nullable(),
        to: z.string().nullable(),
        lines: z.array(reminderLineSchema),
      }),
    ),
  })
  .meta({ id: 'ReminderRunResult', description: 'The letters a run wrote (one per customer), each listing its invoices; e-mails go right after' });

export const reminderLinePageSchema = pagedEnvelope(reminderLineSchema);
export const reminderListQuerySchema = z.object({ ...pagingQuery(100) });
