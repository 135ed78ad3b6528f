import { randomBytes } from 'node:crypto';
import type { SplicedJson } from '@ledgerline/service-kit';

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

/** A stored view read for an answer: its text, and each mark's place and slot, found in one scan. */
export interface MarkedView {
  text: string;
  /** Each mark's start and end (the end exclusive), in order. */
  cuts: number[];
  /** What each mark holds, between its two U+0001. */
  slots: string[];
}

/**
 * A stored view's marks, found with `indexOf` in one scan (a page's 370 KB of views scanned by a
 * regular expression twice, for the accounts and then the fill, was a third of the ledger page's
 * CPU, issue 79); a U+0001 without a second one after it is no mark, as the expression read it.
 */
export function marksOf(text: string): MarkedView {
  const cuts: number[] = [];
  const slots: string[] = [];
  for (let open = text.indexOf(MARK); open !== -1; ) {
    const close = text.indexOf(MARK, open + 1);
    if (close === -1) break;
    cuts.push(open, close + 1);
    slots.push(text.slice(open + 1, close));
    open = text.indexOf(MARK, close + 1);
  }
  return { text, cuts, slots };
}

/** The slots of a view's account marks, added to `into` (each read as a number once per page by `accountOfSlot`). */
export function accountSlots(view: MarkedView, into: Set<string>): Set<string> {
  for (const s of view.slots) if (s.startsWith('g')) into.add(s);
  return into;
}

/**
 * The account number an account slot names. A slot is URI text, ASCII alone, as `slot.account`
 * writes it; one that is not (a view not written by this module) is refused, since the answer
 * is measured on the understanding that every character of a mark is one byte.
 */
export function accountOfSlot(s: string): string {
  if (!s.startsWith('g') || !/^[\x21-\x7e]*$/.test(s)) unknownMark(s);
  return decodeURIComponent(s.slice(1));
}

/** What a stored view's marks are filled with, as UTF-8: the entry's header as it is now, each account's view by its slot. */
export interface MarkFills {
  status: Uint8Array;
  editedAt: Uint8Array;
  account: (slot: string) => Uint8Array;
}

/**
 * A stored view as answered, every mark filled, written as its pieces into the answer
 * (`SplicedJson`): no filled string is made. A mark of no known kind is a defect, not data.
 */
export function splicedView(view: MarkedView, fills: MarkFills): SplicedJson {
  const out = new Array<Uint8Array>(view.slots.length);
  for (let i = 0; i < out.length; i++) {
    const s = view.slots[i];
    out[i] = s === 's' ? fills.status : s === 'e' ? fills.editedAt : s.startsWith('g') ? fills.account(s) : unknownMark(s);
  }
  return { text: view.text, cuts: view.cuts, fills: out };
}

function unknownMark(s: string): never {
  throw new Error(`a stored entry view holds an unknown mark ${JSON.stringify(s)}`);
}
