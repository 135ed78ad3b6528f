import { AppError, addDays, isoDay, serviceContext, sqlRows, tenantEm, type BaseConfig, type ServiceDeps } from '@ledgerline/service-kit';
import { LocalDayPump, type LocalDayOptions } from '../local-day-pump.js';
import type { Delivery } from '../delivery.js';
import { INVOICES } from '../invoices/invoice-kind.js';
import { postSalesDocument } from '../sales-documents/post.js';
import { withContactParty } from '@ledgerline/posted-documents';
import { sendInvoiceEmail } from '../emails/email.js';
import { indexOfDate, nextOccurrence, periodOf } from './schedule.js';
import { invoiceOfPeriod } from './template.js';
import { RECURRING_LIMITS, type RecurringRow } from './recurring-invoices.js';

const BATCH = 50;
/** Periods of one schedule issued in one pass before the others get theirs. */
const PER_PASS = 3;

/*
 * Issues what recurring invoices have due. Each period is one transaction that locks its schedule
 * row (skipping a row another replica holds), posts the invoice, records the issue (primary key:
 * schedule and issue date) and moves the schedule to its next date: a period is issued once
 * however many replicas look, and a process stopped anywhere leaves either all of it or none.
 * After downtime every missed period is issued, oldest first, each with its own period's dates.
 * An invoice the posting refuses (a 4xx: the period closed, a rate missing, a series gone) pauses
 * its schedule with the problem as the reason instead of failing again at every look.
 *
 * E-mails go after the commit, from the issue rows still marked pending: an e-mail is never sent
 * for an invoice that was not posted, and one interrupted before it was marked sent is sent again.
 */
export class RecurringInvoiceScheduler extends LocalDayPump {
  constructor(deps: ServiceDeps<BaseConfig, unknown>, delivery: Delivery, opts: LocalDayOptions) {
    super('recurring invoices', deps, delivery, opts);
  }

  protected async pass(): Promise<boolean> {
    const today = this.today();
    const due = await sqlRows<{ id: string; org_id: string }>(
      this.deps.orm.em.fork(),
      `select id, org_id from recurring_invoices where status = 'active' and next_issue_date <= ?::date order by next_issue_date, id limit ?`,
      [today, BATCH],
    );
    let more = due.length === BATCH;
    for (const r of due) {
      // the periods due of one schedule, each in its own transaction, a few a pass: one schedule
      // catching up never holds the others (or other organisations' requests) back for long
      let issued = 0;
      while (issued < PER_PASS && (await this.issueNext(Number(r.org_id), Number(r.id), today)) === 'issued') {
        issued++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (issued === PER_PASS) more = true;
    }
    const mailed = await this.sendPendingEmails();
    return more || mailed === BATCH;
  }

  /** Issues the schedule's next due period, if it still has one and no other replica holds it. */
  private async issueNext(orgId: number, id: number, today: string): Promise<'issued' | 'none' | 'paused'> {
    const em = tenantEm(this.deps.orm, orgId);
    let dueDate: string | null = null;
    try {
      return await em.transactional(async (tx) => {
        const [row] = await sqlRows<RecurringRow>(
          tx,
          `select id, org_id, schedule, template, send_email, next_issue_date from recurring_invoices
            where org_id = ? and id = ? and status = 'active' and next_issue_date <= ?::date for update skip locked`,
          [orgId, id, today],
        );
        if (!row) return 'none';
        dueDate = isoDay(row.next_issue_date!);
        const index = indexOfDate(row.schedule, dueDate);
        if (index == null) throw new Error(`recurring invoice ${id}: ${dueDate} is not a date of its schedule`);
        const period = periodOf(row.schedule, index);
        const ctx = { ...serviceContext(this.deps, tx, 'scheduler', orgId), orgId };
        // a template naming a contact takes the contact as it is on the day the invoice is issued
        const invoice = await withContactParty(ctx, invoiceOfPeriod(row.template, period), 'customer');
        const { document } = await postSalesDocument(ctx, INVOICES, invoice, { recurringInvoiceId: id });
        await sqlRows(tx, 'insert into recurring_invoice_issues (recurring_invoice_id, issue_date, org_id, invoice_id, email_status) values (?, ?::date, ?, ?, ?)', [
          id,
          dueDate,
          orgId,
          document.id,
          // a period issued long after its date (catching up) is not e-mailed by itself: a customer
          // is not sent a pile of back-dated invoices at once without being asked
          row.send_email && dueDate >= addDays(today, -RECURRING_LIMITS.emailWithinDays) ? 'pending' : null,
        ]);
        const next = nextOccurrence(row.schedule, dueDate);
        await sqlRows(
          tx,
          `update recurring_invoices set issued_count = issued_count + 1, last_issued_date = ?::date, next_issue_date = ?::date,
             status = case when ?::date is null then 'finished' else status end, updated_at = now() where id = ?`,
          [dueDate, next?.date ?? null, next?.date ?? null, id],
        );
        this.log.info('recurring invoice issued', { orgId, recurringInvoiceId: id, invoiceId: document.id, issueDate: dueDate });
        return 'issued';
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500 || dueDate === null) throw err;
      await this.pause(orgId, id, dueDate, err);
      return 'paused';
    }
  }

  private async pause(orgId: number, id: number, issueDate: string, err: AppError): Promise<void> {
    const reason = { code: err.code, detail: err.message, at: new Date().toISOString(), issue_date: issueDate };
    // only the state the failed issue saw: a schedule edited or resumed meanwhile is left as it is now
    await sqlRows(
      tenantEm(this.deps.orm, orgId),
      `update recurring_invoices set status = 'paused', paused_reason = ?::jsonb, updated_at = now() where org_id = ? and id = ? and status = 'active' and next_issue_date = ?::date`,
      [JSON.stringify(reason), orgId, id, issueDate],
    );
    this.log.warn('recurring invoice paused: its invoice was refused', { orgId, recurringInvoiceId: id, issueDate, code: err.code });
  }

  private async sendPendingEmails(): Promise<number> {
    const pending = await sqlRows<{ recurring_invoice_id: string; issue_date: string | Date; org_id: string }>(
      this.deps.orm.em.fork(),
      `select recurring_invoice_id, issue_date, org_id from recurring_invoice_issues where email_status = 'pending' order by created_at limit ?`,
      [BATCH],
    );
    for (const p of pending) {
      const orgId = Number(p.org_id);
      await tenantEm(this.deps.orm, orgId).transactional(async (tx) => {
        const [row] = await sqlRows<{ invoice_id: string }>(
          tx,
          `select invoice_id from recurring_invoice_issues where recurring_invoice_id = ? and issue_date = ?::date and email_status = 'pending' for update skip locked`,
          [p.recurring_invoice_id, isoDay(p.issue_date)],
        );
        if (!row) return;
        const status = await sendInvoiceEmail(tx, orgId, Number(row.invoice_id), {}, {}, this.delivery)
          .then(({ record }) => ({ status: record.status === 'failed' ? 'failed' : 'sent', recordId: record.id }))
          .catch((err: unknown) => {
            // an invoice without a recipient will not gain one by trying again
            if (err instanceof AppError && err.status < 500) return { status: 'failed', recordId: null };
            throw err;
          });
        await sqlRows(tx, 'update recurring_invoice_issues set email_status = ?, email_record_id = ? where recurring_invoice_id = ? and issue_date = ?::date', [
          status.status,
          status.recordId,
          p.recurring_invoice_id,
          isoDay(p.issue_date),
        ]);
      });
    }
    return pending.length;
  }
}
