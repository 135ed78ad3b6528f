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

type OverlaySource = Pick<SalesDocument, 'amountPaid' | 'amountDue' | 'paymentStatus' | 'editedAt' | 'dateDue'>;

/** The overlay's fields as they are now, in `VIEW_OVERLAY`'s order. */
function overlayOf(d: OverlaySource) {
  return {
    amount_paid: n(d.amountPaid),
    amount_due: n(d.amountDue),
    payment_status: d.paymentStatus,
    edited_at: d.editedAt ? d.editedAt.toISOString() : null,
    overdue_days: overdueDays(d.dateDue, d.amountDue),
  };
}

/** The stored body with the current payment state (the only part that changes after posting). */
export function documentView(d: SalesDocument): Record<string, unknown> {
  return { ...d.body, ...overlayOf(d) };
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

/** What of a row read with `SALES_VIEW_COLUMNS` the overlay is made of, as the entity names it. */
function overlaySourceOf(row: SalesViewRow): OverlaySource {
  return {
    amountPaid: row.amount_paid,
    amountDue: row.amount_due,
    paymentStatus: row.payment_status,
    editedAt: row.edited_at === null ? null : row.edited_at instanceof Date ? row.edited_at : new Date(row.edited_at),
    dateDue: row.date_due,
  } as OverlaySource;
}

/** `documentView` of a row read with `SALES_VIEW_COLUMNS`. */
export function viewOfRow(row: SalesViewRow): Record<string, unknown> {
  return documentView({ body: JSON.parse(row.body), ...overlaySourceOf(row) } as unknown as SalesDocument);
}

/**
 * The view of a row read with `SALES_VIEW_COLUMNS` as JSON text: the stored text itself while it is
 * the view (decision 133: most documents, most of the time, answered without parsing and writing
 * out some 8 KB of JSON each); else, for a body that ends with the overlay's fields (every
 * document posted since decision 266), the text up to them and their values now; else (a document
 * posted before) `viewOfRow` serialised.
 */
export function viewTextOfRow(row: SalesViewRow): string {
  if (row.body_is_view) return row.body;
  const tail = overlayTailAt(row.body);
  return tail < 0 ? JSON.stringify(viewOfRow(row)) : row.body.slice(0, tail) + overlayText(row);
}

/**
 * A JSON value the overlay's fields hold: null, a number, or a string with no quote or backslash
 * (amounts, a status, an ISO time). With none of them able to hold a brace or a quote outside a
 * string, five such pairs before the text's final `}` are members of the top-level object.
 */
const OVERLAY_VALUE = String.raw`(?:null|-?\d[\d.eE+-]*|"[^"\\]*")`;
const OVERLAY_TAIL = new RegExp(VIEW_OVERLAY.map((k) => String.raw`"${k}"\s*:\s*${OVERLAY_VALUE}`).join(String.raw`\s*,\s*`) + String.raw`\s*\}\s*$`, 'y');

/**
 * Where a stored body's overlay begins (the comma before `"amount_paid"`) when the body ends with
 * the overlay's five fields in `VIEW_OVERLAY`'s order, else -1 (a body of another layout).
 */
export function overlayTailAt(body: string): number {
  const key = body.lastIndexOf('"amount_paid"');
  if (key < 0) return -1;
  let comma = key - 1;
  while (comma > 0 && /\s/.test(body[comma])) comma--;
  if (body[comma] !== ',') return -1;
  OVERLAY_TAIL.lastIndex = key;
  return OVERLAY_TAIL.test(body) ? comma : -1;
}

/** The overlay's fields as `documentView` gives them and JSON.stringify writes them, closing the object. */
function overlayText(row: SalesViewRow): string {
  return `,${JSON.stringify(overlayOf(overlaySourceOf(row))).slice(1)}`;
}
