import { BusinessRuleError, page, type EndpointHandlers } from '@ledgerline/service-kit';
import { deleteReminderSettings, linesOfLetters, listInvoiceReminders, putReminderSettings, readReminderSettings } from './reminders.js';
import type { ReminderScheduler } from './scheduler.js';

type Operations = 'putReminderSettings' | 'getReminderSettings' | 'deleteReminderSettings' | 'runReminders' | 'getReminderPdf' | 'listInvoiceReminders';

/** What the levels are before any are set, and after they are removed. */
const NO_REMINDERS = { enabled: false, statutory_interest: true, levels: [], updated_at: null };

/** Payment reminders: the levels (`/v1/settings/reminders`, kept by sales, which sends them), a run, the letters, an invoice's reminders. */
export function reminderRoutes(scheduler: ReminderScheduler): Pick<EndpointHandlers<'sales'>, Operations> {
  return {
    putReminderSettings: async ({ ctx, input }) => putReminderSettings(ctx, input.body),
    getReminderSettings: async ({ ctx }) => (await readReminderSettings(ctx)) ?? NO_REMINDERS,
    deleteReminderSettings: async ({ ctx }) => {
      await deleteReminderSettings(ctx);
      return NO_REMINDERS;
    },
    runReminders: async ({ ctx, input }) => {
      const today = scheduler.today();
      const day = input.body.date ?? today;
      if (day > today) {
        throw new BusinessRuleError(`Reminders are run for today or a day before, not ${day}`, 'reminder_date_in_future', [{ path: 'date', message: `after today (${today})`, code: 'reminder_date_in_future' }]);
      }
      const letters = await scheduler.write(ctx, day);
      ctx.c.get('afterCommit')?.push(() => scheduler.kick());
      const lines = await linesOfLetters(ctx.em, ctx.orgId, letters.map((l) => l.id));
      return { date: day, reminders: letters.map((l) => ({ ...l, lines: lines.filter((line) => line.reminder_id === l.id) })) };
    },
    getReminderPdf: async ({ ctx, input }) => {
      const { file, sha256, letter } = await scheduler.pdf(ctx.em, ctx.orgId, input.params.id);
      const etag = `"${sha256}"`;
      const headers = { etag, 'cache-control': 'private, no-cache', 'x-content-type-options': 'nosniff' };
      if ((ctx.c.req.header('if-none-match') ?? '').split(',').map((t) => t.trim()).includes(etag)) return ctx.c.body(null, 304, headers);
      return ctx.c.body(new Uint8Array(file), 200, { ...headers, 'content-type': 'application/pdf', 'content-disposition': `inline; filename="Reminder-${letter.id}.pdf"` });
    },
    listInvoiceReminders: async ({ ctx, input: { params, query: q } }) => {
      const { rows, total } = await listInvoiceReminders(ctx, params.id, q.from, q.take);
      return page(rows, total, q.from, q.take);
    },
  };
}
