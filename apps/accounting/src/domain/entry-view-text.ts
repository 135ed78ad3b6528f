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

/**
 * Each mark of a stored view in order: where it opens and closes and what it holds. Found with
 * `indexOf` (a page's 370 KB of views scanned by a regular expression twice, for the accounts and
 * then the fill, was a third of the ledger page's CPU, issue 79); a U+0001 without a second one
 * after it is no mark, as the expression read it.
 */
function forEachMark(text: string, visit: (open: number, close: number, slotText: string) => void): void {
  for (let open = text.indexOf(MARK); open !== -1; ) {
    const close = text.indexOf(MARK, open + 1);
    if (close === -1) return;
    visit(open, close, text.slice(open + 1, close));
    open = text.indexOf(MARK, close + 1);
  }
}

/** The account numbers a stored view's marks name, added to `into`. */
export function accountsMarked(text: string, into: Set<string>): Set<string> {
  forEachMark(text, (_open, _close, s) => {
    if (s.startsWith('g')) into.add(decodeURIComponent(s.slice(1)));
  });
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
  let out = '';
  let copied = 0;
  forEachMark(text, (open, close, s) => {
    out += text.slice(copied, open) + slotValue(s, values);
    copied = close + 1;
  });
  return copied === 0 ? text : out + text.slice(copied);
}

function slotValue(s: string, values: ViewValues): string {
  if (s === 's') return JSON.stringify(values.status);
  if (s === 'e') return JSON.stringify(values.editedAt);
  if (s.startsWith('g')) return values.accountJson(decodeURIComponent(s.slice(1)));
  throw new Error(`a stored entry view holds an unknown mark ${JSON.stringify(s)}`);
}
