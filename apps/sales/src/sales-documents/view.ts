import { dec, toWire } from '@ledgerline/service-kit';
import type { SalesDocument } from '../db/entities.js';

const n = (v: string | null | undefined) => toWire(v);

/** Whole days past the due date while something is still due (0 otherwise), as of `today`. */
export function overdueDays(dateDue: string | null | undefined, amountDue: string, today = new Date()): number {
  if (!dateDue || !dec(amountDue).gt(0)) return 0;
  const due = Date.parse(`${dateDue}T00:00:00Z`);
  const now = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return Math.max(0, Math.floor((now - due) / 86_400_000));
}

/** Fields of the view that differ from the stored body only once payments arrive or time passes. */
export const VIEW_OVERLAY = ['amount_paid', 'amount_due', 'payment_status', 'edited_at', 'overdue_days'] as const;

/** The stored body with the current payment state (the only part that changes after posting). */
export function documentView(d: SalesDocument): Record<string, unknown> {
  return {
    ...d.body,
    amount_paid: n(d.amountPaid),
    amount_due: n(d.amountDue),
    payment_status: d.paymentStatus,
    edited_at: d.editedAt ? d.editedAt.toISOString() : null,
    overdue_days: overdueDays(d.dateDue, d.amountDue),
  };
}

/**
 * The columns a document's view is made of, read without an entity (GET one and the lists). The
 * body comes as its text (a `json` column is stored as text, so nothing is parsed), and
 * `body_is_view` says whether that text is the view as it stands: the body was the whole view when
 * posted, nothing it shows has changed since, and the document has not fallen overdue (the view's
 * `overdue_days` counts UTC days, as `overdueDays` does).
 */
export const SALES_VIEW_COLUMNS = `id, body::text as body, amount_paid::text as amount_paid, amount_due::text as amount_due, payment_status, edited_at,
  to_char(date_due, 'YYYY-MM-DD') as date_due,
  view_is_body and not (amount_due > 0 and date_due is not null and date_due < (now() at time zone 'utc')::date) as body_is_view`;

export interface SalesViewRow {
  id: string | number;
  /** The stored body's JSON text. */
  body: string;
  amount_paid: string;
  amount_due: string;
  payment_status: string;
  edited_at: Date | string | null;
  date_due: string | null;
  body_is_view: boolean;
}

/** `documentView` of a row read with `SALES_VIEW_COLUMNS`. */
export function viewOfRow(row: SalesViewRow): Record<string, unknown> {
  return documentView({
    body: JSON.parse(row.body),
    amountPaid: row.amount_paid,
    amountDue: row.amount_due,
    paymentStatus: row.payment_status,
    editedAt: row.edited_at === null ? null : row.edited_at instanceof Date ? row.edited_at : new Date(row.edited_at),
    dateDue: row.date_due,
  } as unknown as SalesDocument);
}

/**
 * The view of a row read with `SALES_VIEW_COLUMNS` as JSON text: the stored text itself while it is
 * the view (decision 133: most documents, most of the time, answered without parsing and writing
 * out some 8 KB of JSON each), else `viewOfRow` serialised.
 */
export function viewTextOfRow(row: SalesViewRow): string {
  return row.body_is_view ? row.body : JSON.stringify(viewOfRow(row));
}
