import { REMINDER_PLACEHOLDERS, reminderSettingsRequestSchema, type ReminderLine, type ReminderSettingsRequest } from '@ledgerline/contracts';
import { BusinessRuleError, Dec, NotFoundError, ValidationError, isoDay, sqlRows, toWire, type FieldError, type TenantScope } from '@ledgerline/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { fillPlaceholders, longestFilled, unknownPlaceholderNames } from '../placeholders.js';
import { lateInterest, type RepoFixings, type RepoRateTable } from './statutory-interest.js';

/** What the statutory interest of a run reads: the operator's fixing-day rates and the organisation's repo-rate history. */
export interface RepoRates {
  fixings: RepoFixings;
  table?: RepoRateTable;
}

/*
 * Payment reminders (decision 212). A run for a day looks at every invoice of the organisation
 * still owing something past its due date, picks the highest level whose days have passed and
 * that was not sent for it before, and writes one letter per customer listing those invoices,
 * each with what is due, the statutory late-payment interest up to the day and the level's fee.
 * A line is unique per invoice and level, and a run holds the organisation's reminder lock, so a
 * level is sent once however many runs or replicas there are. The letters are e-mailed after the
 * commit (the ones still pending), with the letter as a PDF.
 */

const KNOWN = new Set<string>(REMINDER_PLACEHOLDERS);

/*
 * What a reminder may grow to (issue 71: a text of `{{ invoices }}` repeated 80 000 times made a
 * 29 MB letter that ran sales out of memory, for every organisation). A template is checked when
 * it is stored against the longest each placeholder can be filled with, so no data fills it past
 * its bound; a letter lists at most LETTER_LINES invoices (a customer with more gets more letters).
 */
export const REMINDER_LIMITS = {
  /** A subject as filled: what an e-mail header line may hold (RFC 5322). */
  subject: 998,
  /** A text as filled. */
  body: 20_000,
  /** The longest each placeholder is filled with: `invoices` names the first numbers and how many more. */
  values: { org: 300, customer: 300, date: 10, invoices: 500, total_due: 300, level: 1 } satisfies Record<(typeof REMINDER_PLACEHOLDERS)[number], number>,
  letterLines: 200,
} as const;

/** The invoice numbers of a letter as `{{ invoices }}` names them: all that fit in its bound, then how many more. */
export function invoiceList(numbers: readonly string[], max: number = REMINDER_LIMITS.values.invoices): string {
  const all = numbers.join(', ');
  if (all.length <= max) return all;
  let shown = 0;
  let text = '';
  for (const n of numbers) {
    const next = shown ? `${text}, ${n}` : n;
    if (next.length + ` and ${numbers.length} more`.length > max) break;
    text = next;
    shown++;
  }
  return `${text} and ${numbers.length - shown} more`;
}

/** `s` cut to `max` characters (a customer's or organisation's name in a letter). */
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

export async function readReminderSettings(scope: TenantScope): Promise<(ReminderSettingsRequest & { updated_at: string | null }) | null> {
  const [row] = await sqlRows<{ settings: ReminderSettingsRequest; updated_at: Date | string }>(scope.em, 'select settings, updated_at from reminder_settings where org_id = ?', [scope.orgId]);
  return row ? { ...row.settings, updated_at: new Date(row.updated_at).toISOString() } : null;
}

/** Removes the levels: the daily run passes the organisation by, as before any were set; letters sent stay. */
export async function deleteReminderSettings(scope: TenantScope): Promise<void> {
  await sqlRows(scope.em, 'delete from reminder_settings where org_id = ?', [scope.orgId]);
}

export async function putReminderSettings(scope: TenantScope, body: ReminderSettingsRequest) {
  const errors: FieldError[] = [];
  body.levels.forEach((level, i) =>
    Object.entries(level.email).forEach(([lang, mail]) => {
      for (const [field, text] of [['subject', mail.subject], ['body', mail.body]] as const) {
        for (const name of unknownPlaceholderNames(text, KNOWN)) {
          errors.push({ path: `levels[${i}].email.${lang}.${field}`, code: 'unknown_placeholder', message: `unknown placeholder {{ ${name.slice(0, 40)} }}; known: ${REMINDER_PLACEHOLDERS.join(', ')}` });
        }
        const bound = REMINDER_LIMITS[field];
        const longest = longestFilled(text, REMINDER_LIMITS.values);
        if (longest > bound) {
          errors.push({ path: `levels[${i}].email.${lang}.${field}`, code: 'text_too_long', message: `filled, this ${field} can grow to ${longest} characters; at most ${bound}` });
        }
      }
    }),
  );
  if (errors.length) throw new ValidationError(`The reminder settings are invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  const [row] = await sqlRows<{ updated_at: Date | string }>(
    scope.em,
    `insert into reminder_settings (org_id, settings, updated_at) values (?, ?::jsonb, now())
     on conflict (org_id) do update set settings = excluded.settings, updated_at = excluded.updated_at returning updated_at`,
    [scope.orgId, JSON.stringify(body)],
  );
  return { ...body, updated_at: new Date(row.updated_at).toISOString() };
}

interface OverdueRow {
  id: string;
  no: string;
  customer_key: string;
  customer: Record<string, unknown> | null;
  currency: string;
  precision: number;
  amount_due: string;
  date_due: string;
  culture: string | null;
  last_level: number | null;
}

export interface LetterLine {
  invoiceId: number;
  invoiceNo: string;
  level: number;
  currency: string;
  amountDue: string;
  daysOverdue: number;
  interestRate: string | null;
  interest: string | null;
  fee: string;
  precision: number;
}

/** The lines a day's run writes for one organisation's overdue invoices: the highest level due and not yet sent, per invoice. */
export function linesDue(settings: ReminderSettingsRequest, invoices: readonly OverdueRow[], day: string, rates: RepoRates): Array<LetterLine & { customerKey: string; customer: Record<string, unknown> | null; culture: string | null }> {
  const out = [];
  for (const inv of invoices) {
    const interest = lateInterest(inv.amount_due, inv.date_due, day, inv.precision, rates.fixings, rates.table);
    let level = 0;
    settings.levels.forEach((l, i) => {
      if (interest.days >= l.days_after_due) level = i + 1;
    });
    if (level === 0 || level <= (inv.last_level ?? 0)) continue;
    const fee = settings.levels[level - 1].fee?.[inv.currency] ?? 0;
    out.push({
      invoiceId: Number(inv.id),
      invoiceNo: inv.no,
      level,
      currency: inv.currency,
      amountDue: inv.amount_due,
      daysOverdue: interest.days,
      interestRate: settings.statutory_interest ? interest.rate : null,
      interest: settings.statutory_interest ? interest.interest : null,
      fee: Dec(fee).toFixed(inv.precision),
      precision: inv.precision,
      customerKey: inv.customer_key,
      customer: inv.customer,
      culture: inv.culture,
    });
  }
  return out;
}

export interface WrittenLetter {
  id: number;
  customer: string | null;
  to: string | null;
}

/** The e-mail language for a customer: its own tag, else one of the same language (cs for cs-CZ), else the first. */
export function pickLanguage(available: readonly string[], wanted: string | null): string {
  if (wanted) {
    const lower = wanted.toLowerCase();
    const exact = available.find((a) => a.toLowerCase() === lower);
    if (exact) return exact;
    const primary = lower.split('-')[0];
    const same = available.find((a) => a.toLowerCase().split('-')[0] === primary);
    if (same) return same;
  }
  return available[0];
}

const LOCK = "select pg_advisory_xact_lock(hashtextextended('sales:reminders', ?))";

/**
 * Writes the day's letters of one organisation (in the caller's transaction, under its reminder
 * lock) and answers their ids; the e-mails are sent after the commit (`sendPendingLetters`).
 */
export async function writeReminderLetters(scope: TenantScope, day: string, rates: RepoRates, orgName: string | null): Promise<WrittenLetter[]> {
  const { em, orgId } = scope;
  await sqlRows(em, LOCK, [orgId]);
  const stored = await readReminderSettings(scope);
  if (!stored) throw new BusinessRuleError('No reminder levels are set: PUT /v1/settings/reminders first', 'reminder_settings_missing');
  const settings = reminderSettingsRequestSchema.parse(stored);
  await sqlRows(em, 'insert into reminder_runs (org_id, run_date) values (?, ?::date) on conflict do nothing', [orgId, day]);
  if (!settings.enabled) return [];
  const invoices = await sqlRows<OverdueRow>(
    em,
    `select d.id, d.no, coalesce('id:' || d.customer_id, 'name:' || lower(coalesce(d.customer_name, ''))) as customer_key, d.body->'customer' as customer,
       d.currency, d.precision, d.amount_due::text as amount_due, to_char(d.date_due, 'YYYY-MM-DD') as date_due,
       coalesce(d.body->'customer'->>'preferred_locale', d.body->>'document_locale', d.body->>'culture') as culture,
       (select max(l.level) from reminder_lines l where l.org_id = d.org_id and l.invoice_id = d.id) as last_level
     from sales_documents d
     where d.org_id = ? and d.doc_type = 'sales_invoice' and d.amount_due > 0 and d.date_due is not null and d.date_due < ?::date
     order by d.date_due, d.id`,
    [orgId, day],
  );
  const lines = linesDue(settings, invoices, day, rates);
  const byCustomer = new Map<string, typeof lines>();
  for (const l of lines) {
    const mine = byCustomer.get(l.customerKey);
    if (mine) mine.push(l);
    else byCustomer.set(l.customerKey, [l]);
  }
  // a customer's letter lists at most LETTER_LINES invoices: one with more gets more letters
  const letters = [...byCustomer.values()].flatMap((all) => Array.from({ length: Math.ceil(all.length / REMINDER_LIMITS.letterLines) }, (_, k) => all.slice(k * REMINDER_LIMITS.letterLines, (k + 1) * REMINDER_LIMITS.letterLines)));
  const written: WrittenLetter[] = [];
  for (const group of letters) {
    const customer = group.at(-1)!.customer ?? {};
    const level = Math.max(...group.map((l) => l.level));
    const emails = settings.levels[level - 1].email;
    const language = pickLanguage(Object.keys(emails), group.at(-1)!.culture);
    const totals = new Map<string, Dec>();
    for (const l of group) totals.set(l.currency, (totals.get(l.currency) ?? Dec(0)).plus(l.amountDue).plus(l.interest ?? 0).plus(l.fee));
    const limit = REMINDER_LIMITS.values;
    const values = {
      org: cut(orgName ?? '', limit.org),
      customer: cut(String(customer.business_name ?? customer.display_name ?? ''), limit.customer),
      date: day,
      invoices: invoiceList(group.map((l) => l.invoiceNo)),
      total_due: cut([...totals].map(([c, v]) => `${v.toFixed(2)} ${c}`).join(' + '), limit.total_due),
      level: String(level),
    };
    const to = typeof customer.email === 'string' && customer.email.trim() ? customer.email.trim() : null;
    const [letter] = await sqlRows<{ id: string }>(
      em,
      `insert into reminder_letters (org_id, run_date, customer_key, customer, language, level, to_address, subject, body, email_status)
       values (?, ?::date, ?, ?::jsonb, ?, ?, ?, ?, ?, ?) returning id`,
      [orgId, day, group[0].customerKey, JSON.stringify(customer), language, level, to, fillPlaceholders(emails[language].subject, values, REMINDER_LIMITS.subject), fillPlaceholders(emails[language].body, values, REMINDER_LIMITS.body), to ? 'pending' : 'no_recipient'],
    );
    for (const l of group) {
      await sqlRows(
        em,
        `insert into reminder_lines (org_id, letter_id, invoice_id, invoice_no, level, run_date, currency, amount_due, days_overdue, interest_rate, interest, fee)
         values (?, ?, ?, ?, ?, ?::date, ?, ?, ?, ?, ?, ?)`,
        [orgId, letter.id, l.invoiceId, l.invoiceNo, l.level, day, l.currency, l.amountDue, l.daysOverdue, l.interestRate, l.interest, l.fee],
      );
    }
    written.push({ id: Number(letter.id), customer: values.customer || null, to });
  }
  return written;
}

interface LineRow {
  id: string;
  letter_id: string;
  invoice_id: string;
  invoice_no: string;
  level: number;
  run_date: string | Date;
  currency: string;
  amount_due: string;
  days_overdue: number;
  interest_rate: string | null;
  interest: string | null;
  fee: string;
  email_status: ReminderLine['email_status'];
  to_address: string | null;
  created_at: string | Date;
}
const LINE_COLUMNS = `l.id, l.letter_id, l.invoice_id, l.invoice_no, l.level, l.run_date, l.currency, l.amount_due::text as amount_due, l.days_overdue,
  l.interest_rate::text as interest_rate, l.interest::text as interest, l.fee::text as fee, r.email_status, r.to_address, l.created_at`;

export function lineView(r: LineRow): ReminderLine {
  return {
    id: Number(r.id),
    reminder_id: Number(r.letter_id),
    invoice_id: Number(r.invoice_id),
    invoice_no: r.invoice_no,
    level: r.level,
    date: isoDay(r.run_date),
    currency: r.currency,
    amount_due: toWire(r.amount_due),
    days_overdue: r.days_overdue,
    interest_rate: r.interest_rate === null ? null : Number(r.interest_rate),
    interest: toWire(r.interest),
    fee: toWire(r.fee),
    email_status: r.email_status,
    to: r.to_address,
    created_at: new Date(r.created_at).toISOString(),
  };
}

export async function linesOfLetters(em: EntityManager, orgId: number, letterIds: readonly number[]): Promise<ReminderLine[]> {
  if (!letterIds.length) return [];
  const rows = await sqlRows<LineRow>(em, `select ${LINE_COLUMNS} from reminder_lines l join reminder_letters r on r.id = l.letter_id where l.org_id = ? and l.letter_id = any(?::bigint[]) order by l.letter_id, l.id`, [
    orgId,
    `{${letterIds.join(',')}}`,
  ]);
  return rows.map(lineView);
}

/** GET /v1/sales/invoices/{id}/reminders. */
export async function listInvoiceReminders(scope: TenantScope, invoiceId: number, from: number, take: number): Promise<{ rows: ReminderLine[]; total: number }> {
  const [inv] = await sqlRows(scope.em, "select 1 from sales_documents where org_id = ? and id = ? and doc_type = 'sales_invoice'", [scope.orgId, invoiceId]);
  if (!inv) throw new NotFoundError(`No invoice ${invoiceId} in this organisation`, 'invoice_not_found');
  const rows = await sqlRows<LineRow & { total: string }>(
    scope.em,
    `select ${LINE_COLUMNS}, count(*) over () as total from reminder_lines l join reminder_letters r on r.id = l.letter_id
      where l.org_id = ? and l.invoice_id = ? order by l.level, l.id limit ? offset ?`,
    [scope.orgId, invoiceId, take, from],
  );
  return { rows: rows.map(lineView), total: rows.length ? Number(rows[0].total) : 0 };
}

export interface LetterRow {
  id: string;
  org_id: string;
  run_date: string | Date;
  customer: Record<string, unknown>;
  language: string;
  level: number;
  to_address: string | null;
  subject: string;
  body: string;
}

export async function readLetter(em: EntityManager, orgId: number, id: number): Promise<{ letter: LetterRow; lines: ReminderLine[] }> {
  const [letter] = await sqlRows<LetterRow>(em, 'select id, org_id, run_date, customer, language, level, to_address, subject, body from reminder_letters where org_id = ? and id = ?', [orgId, id]);
  if (!letter) throw new NotFoundError(`No reminder ${id} in this organisation`, 'reminder_not_found');
  return { letter, lines: await linesOfLetters(em, orgId, [id]) };
}
