import { randomBytes } from 'node:crypto';

/*
 * An entry's stored view (decision 260): the JSON GET /v1/accounting/transactions answers for it,
 * written once at posting, with a mark where a value is read at answer time — the entry's status
 * and `edited_at` (a reversal changes them) and each account (the chart's name changes, and comes
 * in the reader's language). A mark is a slot between two U+0001 characters. JSON.stringify
 * writes every control character of a string as an escape, so no text of a document can put a
 * raw U+0001 into the view: only `templateText` does, and only where the view held a placeholder.
 */

const MARK = '\u0001';
const MARKS = /\u0001([^\u0001]*)\u0001/g;

/**
 * What a view holds where a mark is to go. Random per process and never answered or stored, so
 * no document's text, written before the process started, can hold one by chance or design.
 */
const NONCE = randomBytes(12).toString('hex');
const PLACEHOLDERS = new RegExp(`"${NONCE}([^"\\\\]*)"`, 'g');

/** The slots of a view: its status, its `edited_at`, an account by number. */
export const slot = {
  status: () => `${NONCE}s`,
  editedAt: () => `${NONCE}e`,
  // an account number as URI text: nothing in it closes a JSON string or a mark
  account: (number: string) => `${NONCE}g${encodeURIComponent(number)}`,
};

/** A view's JSON with each placeholder (a JSON string) written as its mark. */
export function templateText(view: unknown): string {
  return JSON.stringify(view).replace(PLACEHOLDERS, (_, s: string) => MARK + s + MARK);
}

/** The account numbers a stored view's marks name, added to `into`. */
export function accountsMarked(text: string, into: Set<string>): Set<string> {
  for (const m of text.matchAll(MARKS)) if (m[1].startsWith('g')) into.add(decodeURIComponent(m[1].slice(1)));
  return into;
}

/** What a stored view's marks are filled with: the entry's header as it is now, each account's view as JSON. */
export interface ViewValues {
  status: string;
  editedAt: string | null;
  accountJson: (number: string) => string;
}

/** A stored view as answered: every mark filled. A mark of no known kind is a defect, not data. */
export function filledView(text: string, values: ViewValues): string {
  return text.replace(MARKS, (_, s: string) => {
    if (s === 's') return JSON.stringify(values.status);
    if (s === 'e') return JSON.stringify(values.editedAt);
    if (s.startsWith('g')) return values.accountJson(decodeURIComponent(s.slice(1)));
    throw new Error(`a stored entry view holds an unknown mark ${JSON.stringify(s)}`);
  });
}
