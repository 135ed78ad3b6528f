import { RECURRING_PLACEHOLDERS, type InvoiceRequest, type RecurringInvoiceTemplate } from '@ledgerline/contracts';
import { addDays, type FieldError } from '@ledgerline/service-kit';
import { fillPlaceholders, unknownPlaceholderNames } from '../placeholders.js';

const KNOWN: ReadonlySet<string> = new Set(RECURRING_PLACEHOLDERS);

type Values = Record<(typeof RECURRING_PLACEHOLDERS)[number], string>;

/** The texts of a template that may hold placeholders, with their paths. */
function texts(t: RecurringInvoiceTemplate): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  if (t.notes) out.push({ path: 'template.notes', text: t.notes });
  t.items.forEach((it, i) => {
    if (it.title) out.push({ path: `template.items[${i}].title`, text: it.title });
    if (it.description) out.push({ path: `template.items[${i}].description`, text: it.description });
  });
  return out;
}

/** Every placeholder a template names that is not one of ours, as field errors (a typo would otherwise reach the customer). */
export function unknownPlaceholders(t: RecurringInvoiceTemplate): FieldError[] {
  const errors: FieldError[] = [];
  for (const { path, text } of texts(t)) {
    for (const name of unknownPlaceholderNames(text, KNOWN)) {
      errors.push({ path, code: 'unknown_placeholder', message: `unknown placeholder {{ ${name.slice(0, 40)} }}; known: ${RECURRING_PLACEHOLDERS.join(', ')}` });
    }
  }
  return errors;
}

/** The last day of the calendar the API takes. */
const LAST_DAY = '9999-12-31';

const fill = (text: string | null | undefined, values: Values) => fillPlaceholders(text, values);

/**
 * The invoice request one issue posts: the template with its dates (issued on the period's first
 * day, due `due_in_days` later) and the period's dates put in its texts.
 */
export function invoiceOfPeriod(t: RecurringInvoiceTemplate, period: { start: string; end: string }): InvoiceRequest {
  const { due_in_days: dueInDays, ...invoice } = t;
  const values: Values = { period_start: period.start, period_end: period.end, issue_date: period.start };
  return {
    ...invoice,
    date_issued: period.start,
    // due within the calendar the API takes: an issue late in 9999 is due on its last day at the latest
    date_due: dueInDays == null ? null : period.start > addDays(LAST_DAY, -dueInDays) ? LAST_DAY : addDays(period.start, dueInDays),
    notes: fill(invoice.notes, values),
    items: invoice.items.map((it) => ({ ...it, title: fill(it.title, values), description: fill(it.description, values) })),
  } as InvoiceRequest;
}
