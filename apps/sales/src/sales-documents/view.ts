import type { CreditNote, Invoice } from '@ledgerline/contracts';
import { dec, toWire } from '@ledgerline/service-kit';
import type { SalesDocType, SalesDocument } from '../db/entities.js';

const n = (v: string | null | undefined) => toWire(v);

/** Whole days past the due date while something is still due (0 otherwise), as of `today`. */
export function overdueDays(dateDue: string | null | undefined, amountDue: string, today = new Date()): number {
  if (!dateDue || !dec(amountDue).gt(0)) return 0;
  const due = Date.parse(`${dateDue}T00:00:00Z`);
  const now = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return Math.max(0, Math.floor((now - due) / 86_400_000));
}

/** The view of an invoice is an Invoice, of a credit note a CreditNote. */
export type SalesView<T extends SalesDocType> = T extends 'sales_invoice' ? Invoice : CreditNote;

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

/** The columns a document's view is made of, read without an entity (GET one and the lists). */
export const SALES_VIEW_COLUMNS = `id, body, amount_paid::text as amount_paid, amount_due::text as amount_due, payment_status, edited_at,
  to_char(date_due, 'YYYY-MM-DD') as date_due`;

export interface SalesViewRow {
  id: string | number;
  body: Record<string, unknown>;
  amount_paid: string;
  amount_due: string;
  payment_status: string;
  edited_at: Date | string | null;
  date_due: string | null;
}

/** `documentView` of a row read with `SALES_VIEW_COLUMNS`. */
export function viewOfRow(row: SalesViewRow): Record<string, unknown> {
  return documentView({
    body: row.body,
    amountPaid: row.amount_paid,
    amountDue: row.amount_due,
    paymentStatus: row.payment_status,
    editedAt: row.edited_at === null ? null : row.edited_at instanceof Date ? row.edited_at : new Date(row.edited_at),
    dateDue: row.date_due,
  } as unknown as SalesDocument);
}
