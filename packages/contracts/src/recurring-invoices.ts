import { z } from 'zod';
import { id, int32, isoDate, isoDateTime, nullish, shortText } from './common.js';
import { pagedEnvelope, pagingQuery } from './paging.js';
import { invoiceRequestSchema } from './sales.js';

// --- recurring invoices (/v1/sales/recurring-invoices) --------------------------------------------

export const RECURRING_FREQUENCIES = ['weekly', 'monthly', 'quarterly', 'yearly'] as const;
export const RECURRING_STATUSES = ['active', 'paused', 'finished'] as const;
/** The placeholders a template's texts may hold, replaced by each issued invoice's own dates. */
export const RECURRING_PLACEHOLDERS = ['period_start', 'period_end', 'issue_date'] as const;

export const recurringScheduleSchema = z
  .object({
    frequency: z.enum(RECURRING_FREQUENCIES).describe('How often an invoice is issued'),
    interval: z.int().min(1).max(52).default(1).describe('Every how many weeks, months, quarters or years (1 when absent)'),
    day_of_month: nullish(z.union([z.int().min(1).max(31), z.literal('last')])).describe(
      "The day of the month an invoice is issued on (monthly, quarterly, yearly): 1–31 (a shorter month takes its last day) or 'last'; start_date's day when absent",
    ),
    start_date: isoDate.describe('The first period begins on the first issue date on or after this day'),
    end_date: nullish(isoDate).describe('No invoice is issued after this day'),
    count: nullish(z.int().min(1).max(1000)).describe('How many invoices in all'),
  })
  .superRefine((s, ctx) => {
    if (s.frequency === 'weekly' && s.day_of_month != null) ctx.addIssue({ code: 'custom', path: ['day_of_month'], message: 'a weekly schedule repeats start_date’s weekday; day_of_month is for months' });
    if (s.end_date != null && s.end_date < s.start_date) ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'on or after start_date' });
  })
  .meta({ id: 'RecurringSchedule', description: 'When a recurring invoice is issued' });
export type RecurringSchedule = z.output<typeof recurringScheduleSchema>;

/** The invoice each period issues: an invoice request without its dates and number, which each issue gives it. */
export const recurringInvoiceTemplateSchema = invoiceRequestSchema
  // a template deducts no advances: a proforma is deducted once, by one invoice
  .omit({ date_issued: true, date_due: true, date_taxable: true, no: true, advances: true })
  .extend({
    due_in_days: nullish(z.int().min(0).max(365)).describe('date_due is date_issued plus this many days; no due date when absent'),
  })
  .meta({
    id: 'RecurringInvoiceTemplate',
    description:
      'An invoice request without date_issued, date_due, date_taxable and no. Line titles and descriptions and the notes may hold {{ period_start }}, {{ period_end }} and {{ issue_date }}.',
  });
export type RecurringInvoiceTemplate = z.infer<typeof recurringInvoiceTemplateSchema>;

export const recurringInvoiceRequestSchema = z
  .object({
    name: nullish(shortText()).describe('What the schedule is, for people'),
    template: recurringInvoiceTemplateSchema,
    schedule: recurringScheduleSchema,
    send_email: nullish(z.boolean()).describe("E-mail each issued invoice to the customer's address (the invoice e-mail, PDF attached); false when absent"),
  })
  .meta({ id: 'RecurringInvoiceRequest', description: 'A recurring invoice to create or to replace whole' });
export type RecurringInvoiceRequest = z.infer<typeof recurringInvoiceRequestSchema>;

export const recurringInvoiceSchema = z
  .object({
    id: id,
    name: z.string().nullable(),
    status: z.enum(RECURRING_STATUSES).describe('active: issues when due; paused: by request or because an issue failed (paused_reason); finished: the schedule has ended'),
    paused_reason: z
      .object({ code: z.string(), detail: z.string(), at: isoDateTime, issue_date: isoDate.nullable() })
      .nullable()
      .describe('Why the scheduler paused it: the problem the invoice of issue_date met'),
    template: recurringInvoiceTemplateSchema,
    schedule: recurringScheduleSchema,
    send_email: z.boolean(),
    next_issue_date: isoDate.nullable().describe('The next date an invoice is due to be issued; null when finished'),
    upcoming_dates: z.array(isoDate).describe('The next five issue dates (fewer when the schedule ends sooner)'),
    issued_count: int32,
    last_issued_date: isoDate.nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'RecurringInvoice', description: 'An invoice issued by the service every period' });
export type RecurringInvoice = z.infer<typeof recurringInvoiceSchema>;

export const recurringInvoiceListQuerySchema = z.object({
  ...pagingQuery(100),
  status: z.enum(RECURRING_STATUSES).optional().describe('Only schedules in this state'),
});
export type RecurringInvoiceListQuery = z.output<typeof recurringInvoiceListQuerySchema>;
export const recurringInvoicePageSchema = pagedEnvelope(recurringInvoiceSchema);

export const recurringInvoiceResumeQuerySchema = z.object({
  skip_missed: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1')
    .describe('true: the periods that passed while paused are not issued; the next is the first on or after today. Otherwise they are issued at once, each once'),
});

export const recurringInvoiceDeletedSchema = z
  .object({ id: id, deleted: z.literal(true) })
  .meta({ id: 'RecurringInvoiceDeleted', description: 'Result of deleting a recurring invoice (the invoices it issued stay)' });
