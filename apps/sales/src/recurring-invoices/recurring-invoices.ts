import type { RecurringInvoice, RecurringInvoiceListQuery, RecurringInvoiceRequest, RecurringInvoiceTemplate, RecurringSchedule } from '@ledgerline/contracts';
import { BusinessRuleError, ConflictError, NotFoundError, ValidationError, isoDay, organisationReplica, sqlRows, FALLBACK_LEGAL_CURRENCY, type FieldError, type TenantScope } from '@ledgerline/service-kit';
import { computeDocument } from '@ledgerline/documents';
import { documentInputOf } from '../sales-documents/body.js';
import { pickSeries } from '../numbering-series/series.js';
import { nextOccurrence, periodOf, periodsDue, upcomingDates } from './schedule.js';
import { invoiceOfPeriod, unknownPlaceholders } from './template.js';

export interface RecurringRow {
  id: string | number;
  org_id: string | number;
  name: string | null;
  template: RecurringInvoiceTemplate;
  schedule: RecurringSchedule;
  send_email: boolean;
  status: RecurringInvoice['status'];
  paused_reason: RecurringInvoice['paused_reason'];
  next_issue_date: string | Date | null;
  issued_count: number;
  last_issued_date: string | Date | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = `id, org_id, name, template, schedule, send_email, status, paused_reason, next_issue_date, issued_count, last_issued_date, created_at, updated_at`;

export function recurringView(r: RecurringRow): RecurringInvoice {
  const next = r.next_issue_date ? isoDay(r.next_issue_date) : null;
  const from = next ? nextOccurrence(r.schedule, null, next) : null;
  return {
    id: Number(r.id),
    name: r.name,
    status: r.status,
    paused_reason: r.paused_reason,
    template: r.template,
    schedule: r.schedule,
    send_email: r.send_email,
    next_issue_date: next,
    upcoming_dates: upcomingDates(r.schedule, from),
    issued_count: r.issued_count,
    last_issued_date: r.last_issued_date ? isoDay(r.last_issued_date) : null,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

const prefixed = (errors: readonly FieldError[] | undefined, prefix: string) => (errors ?? []).map((e) => ({ ...e, path: `${prefix}.${e.path}` }));

/**
 * Refuses a template that could not issue an invoice, naming every field: unknown placeholders,
 * figures the document arithmetic refuses (checked on the first period's invoice), a numbering
 * series that is not the organisation's. What can only fail later (a rate missing on a future day,
 * a period since closed) pauses the schedule then, with the reason.
 */
async function checkTemplate(scope: TenantScope, body: RecurringInvoiceRequest): Promise<void> {
  const errors: FieldError[] = [...unknownPlaceholders(body.template)];
  // the customer and currency come from the template, or from the contact it names when each invoice is issued
  if (!body.template.customer && body.template.contact_id == null) errors.push({ path: 'template.customer', code: 'required', message: 'required: the customer, or contact_id naming one of the directory' });
  if (!body.template.currency && body.template.contact_id == null) errors.push({ path: 'template.currency', code: 'required', message: 'required' });
  const first = nextOccurrence(body.schedule, null);
  if (!first) errors.push({ path: 'schedule', code: 'schedule_empty', message: 'the schedule has no issue date (count, end_date and start_date leave none)' });
  const replica = await organisationReplica(scope);
  // the first period's invoice, when the schedule has one (a first date past the calendar has none)
  const invoice = first ? invoiceOfPeriod(body.template, periodOf(body.schedule, first.index)) : null;
  try {
    const legal = replica?.legalCurrency ?? FALLBACK_LEGAL_CURRENCY;
    if (invoice) computeDocument({ ...documentInputOf({ ...invoice, currency: invoice.currency ?? legal }, legal, replica?.profile.rounding_increment), fx_rate: invoice.fx_rate ?? 1 });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    errors.push(...prefixed(err.errors, 'template'));
  }
  if (errors.length) throw new ValidationError(`The recurring invoice is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  if (body.template.counter_id != null) {
    try {
      await pickSeries(scope, 'sales_invoice', body.template.counter_id);
    } catch (err) {
      if (!(err instanceof BusinessRuleError)) throw err;
      throw new BusinessRuleError(err.message, err.code, prefixed(err.errors, 'template'));
    }
  }
}

/*
 * What one schedule may set off at once (issue 71: a weekly schedule from 1900 issued 2 400
 * invoices in 16 s, with an e-mail each, and another organisation's requests failed meanwhile).
 */
export const RECURRING_LIMITS = {
  /** Periods already due when a schedule is created, edited or resumed: five years of months, a year of weeks. */
  catchUp: 60,
  /** Schedules an organisation keeps that are not finished. */
  perOrganisation: 500,
  /** An issue this many days after its date is not e-mailed by itself (its invoice is sent on request). */
  emailWithinDays: 7,
} as const;

/** 422 `catch_up_too_long` when more than RECURRING_LIMITS.catchUp periods would be issued at once from `next`. */
function refuseLongCatchUp(schedule: RecurringSchedule, next: { index: number; date: string } | null, today: string, path: string, hint: string): void {
  const due = periodsDue(schedule, next, today, RECURRING_LIMITS.catchUp);
  if (due <= RECURRING_LIMITS.catchUp) return;
  const message = `from ${next!.date} more than ${RECURRING_LIMITS.catchUp} periods are due already and would be issued at once; ${hint}`;
  throw new BusinessRuleError(`The recurring invoice would issue too many back-dated invoices: ${message}`, 'catch_up_too_long', [{ path, message, code: 'catch_up_too_long' }]);
}

export async function createRecurringInvoice(scope: TenantScope, body: RecurringInvoiceRequest, now: Date, today: string): Promise<RecurringInvoice> {
  await checkTemplate(scope, body);
  const next = nextOccurrence(body.schedule, null);
  refuseLongCatchUp(body.schedule, next, today, 'schedule.start_date', 'start the schedule later');
  const [{ n }] = await sqlRows<{ n: number }>(scope.em, "select count(*)::int as n from recurring_invoices where org_id = ? and status <> 'finished'", [scope.orgId]);
  if (n >= RECURRING_LIMITS.perOrganisation) {
    throw new BusinessRuleError(`The organisation has ${n} recurring invoices that have not finished, the most it may keep: delete one first`, 'recurring_invoice_limit');
  }
  const [row] = await sqlRows<RecurringRow>(
    scope.em,
    `insert into recurring_invoices (org_id, name, template, schedule, send_email, status, next_issue_date, created_at, updated_at)
     values (?, ?, ?::jsonb, ?::jsonb, ?, ?, ?::date, ?, ?) returning ${COLUMNS}`,
    [scope.orgId, body.name ?? null, JSON.stringify(body.template), JSON.stringify(body.schedule), body.send_email ?? false, next ? 'active' : 'finished', next?.date ?? null, now, now],
  );
  return recurringView(row);
}

export async function readRecurringRow(scope: TenantScope, id: number, forUpdate = false): Promise<RecurringRow> {
  const [row] = await sqlRows<RecurringRow>(scope.em, `select ${COLUMNS} from recurring_invoices where org_id = ? and id = ?${forUpdate ? ' for update' : ''}`, [scope.orgId, id]);
  if (!row) throw new NotFoundError(`No recurring invoice ${id} in this organisation`, 'recurring_invoice_not_found');
  return row;
}

export async function listRecurringInvoices(scope: TenantScope, q: RecurringInvoiceListQuery): Promise<{ rows: RecurringInvoice[]; total: number }> {
  const status = q.status ?? null;
  const rows = await sqlRows<RecurringRow & { total: string }>(
    scope.em,
    `select ${COLUMNS}, count(*) over () as total from recurring_invoices where org_id = ? and (?::text is null or status = ?) order by id limit ? offset ?`,
    [scope.orgId, status, status, q.take, q.from],
  );
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && q.from > 0) {
    const [c] = await sqlRows<{ n: string }>(scope.em, 'select count(*) as n from recurring_invoices where org_id = ? and (?::text is null or status = ?)', [scope.orgId, status, status]);
    total = Number(c.n);
  }
  return { rows: rows.map(recurringView), total };
}

/**
 * Replaces template and schedule. What was issued stays issued: the next issue date is the new
 * schedule's first after the last one issued, so a period is never issued twice by an edit.
 */
export async function updateRecurringInvoice(scope: TenantScope, id: number, body: RecurringInvoiceRequest, now: Date, today: string): Promise<RecurringInvoice> {
  const current = await readRecurringRow(scope, id, true);
  await checkTemplate(scope, body);
  const last = current.last_issued_date ? isoDay(current.last_issued_date) : null;
  const next = nextOccurrence(body.schedule, last);
  const status = !next ? 'finished' : current.status === 'paused' ? 'paused' : 'active';
  if (status === 'active') refuseLongCatchUp(body.schedule, next, today, 'schedule.start_date', 'start the schedule later');
  const [row] = await sqlRows<RecurringRow>(
    scope.em,
    `update recurring_invoices set name = ?, template = ?::jsonb, schedule = ?::jsonb, send_email = ?, status = ?, next_issue_date = ?::date,
       paused_reason = case when ? = 'paused' then paused_reason end, updated_at = ?
     where org_id = ? and id = ? returning ${COLUMNS}`,
    [body.name ?? null, JSON.stringify(body.template), JSON.stringify(body.schedule), body.send_email ?? false, status, next?.date ?? null, status, now, scope.orgId, id],
  );
  return recurringView(row);
}

export async function deleteRecurringInvoice(scope: TenantScope, id: number): Promise<{ id: number; deleted: true }> {
  const rows = await sqlRows(scope.em, 'delete from recurring_invoices where org_id = ? and id = ? returning id', [scope.orgId, id]);
  if (!rows.length) throw new NotFoundError(`No recurring invoice ${id} in this organisation`, 'recurring_invoice_not_found');
  return { id, deleted: true };
}

export async function pauseRecurringInvoice(scope: TenantScope, id: number, now: Date): Promise<RecurringInvoice> {
  const current = await readRecurringRow(scope, id, true);
  if (current.status === 'finished') throw new ConflictError(`Recurring invoice ${id} has finished; there is nothing to pause`, 'recurring_invoice_finished');
  const [row] = await sqlRows<RecurringRow>(scope.em, `update recurring_invoices set status = 'paused', updated_at = ? where org_id = ? and id = ? returning ${COLUMNS}`, [now, scope.orgId, id]);
  return recurringView(row);
}

/**
 * Resumes a paused schedule. The periods that passed meanwhile are issued by the scheduler at once
 * (each once), unless `skipMissed`: then the next is the first on or after `today`.
 */
export async function resumeRecurringInvoice(scope: TenantScope, id: number, skipMissed: boolean, today: string, now: Date): Promise<RecurringInvoice> {
  const current = await readRecurringRow(scope, id, true);
  if (current.status === 'finished') throw new ConflictError(`Recurring invoice ${id} has finished; there is nothing to resume`, 'recurring_invoice_finished');
  const last = current.last_issued_date ? isoDay(current.last_issued_date) : null;
  const next = nextOccurrence(current.schedule, last, skipMissed ? today : undefined);
  refuseLongCatchUp(current.schedule, next, today, 'skip_missed', 'resume with skip_missed=true, or issue the missed periods yourself');
  const [row] = await sqlRows<RecurringRow>(
    scope.em,
    `update recurring_invoices set status = ?, paused_reason = null, next_issue_date = ?::date, updated_at = ? where org_id = ? and id = ? returning ${COLUMNS}`,
    [next ? 'active' : 'finished', next?.date ?? null, now, scope.orgId, id],
  );
  return recurringView(row);
}
