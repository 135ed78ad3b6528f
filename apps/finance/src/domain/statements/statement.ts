import { ValidationError } from '@ledgerline/service-kit';
import { Dec } from '@ledgerline/core/money';

/*
 * A bank statement as the three parsers read it (issue 17), before anything is matched or
 * stored. Amounts are decimal strings, signed: positive is money in (credit), negative money
 * out (debit). Every parser checks the shape of its format strictly and names the line or the
 * element of what it cannot read; whether the balances reconcile is checked once, for all
 * formats, by `assertBalances`.
 */

export type StatementFormat = 'camt053' | 'gpc' | 'mt940' | 'fio';

export interface StatementEntry {
  /** 1-based position in the statement (after batch entries are split into their transactions). */
  order: number;
  /** The bank's own reference of the entry (CAMT AcctSvcrRef, GPC transaction id, MT940 bank reference). */
  bankReference: string | null;
  amount: string;
  currency: string;
  bookingDate: string;
  valueDate: string | null;
  /** The variable symbol (digits, at most 10) where the format or the message carries one. */
  variableSymbol: string | null;
  constantSymbol: string | null;
  specificSymbol: string | null;
  /** A structured creditor reference or end-to-end id, when it is not only a variable symbol. */
  reference: string | null;
  message: string | null;
  partnerName: string | null;
  partnerAccount: string | null;
  /** A bank fee (CAMT sub-family CHRG, MT940 type NCHG/FCHG). */
  isFee: boolean;
  /** The entry reverses an earlier one (CAMT RvslInd, GPC codes 4 and 5, MT940 RC/RD). */
  isReversal: boolean;
  /** What the file says of the entry that we post nothing from (fields a bank adds, a date read otherwise), kept as text. */
  extra?: string | null;
}

export interface ParsedStatement {
  format: StatementFormat;
  /** Our account the statement is of: an IBAN or a domestic account number as the bank wrote it. */
  account: string;
  /** The statement's number as the bank counts them (electronic sequence, legal sequence or id). */
  statementNo: string;
  currency: string;
  openingBalance: string;
  closingBalance: string;
  dateFrom: string;
  dateTo: string;
  entries: StatementEntry[];
}

/** 400 naming where in the file the problem is (`line 4`, `Stmt[1]/Ntry[2]/Amt`). */
export function badStatement(message: string, path: string): ValidationError {
  return new ValidationError(message, [{ path, message, code: 'invalid_statement' }], 'invalid_statement');
}

/** A decimal amount with at most 2 decimals and 13 integer digits (the API's limit). */
export function statementAmount(text: string, path: string): string {
  const t = text.trim();
  if (!/^\d{1,13}(\.\d{1,2})?$/.test(t)) throw badStatement(`${path} is not an amount: ${t.slice(0, 40)}`, path);
  return Dec(t).toString();
}

/** A calendar day that exists, as YYYY-MM-DD. */
export function calendarDay(year: number, month: number, day: number, path: string, raw: string): string {
  const d = new Date(Date.UTC(year, month - 1, day));
  // the API's dates are 1900–9999
  if (year < 1900 || year > 9999 || month < 1 || month > 12 || d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    throw badStatement(`${path} is not a date: ${raw.slice(0, 20)}`, path);
  }
  return d.toISOString().slice(0, 10);
}

/**
 * Characters that print as nothing (format characters such as U+200B ZERO WIDTH SPACE, U+00AD
 * SOFT HYPHEN, a BOM) and spaces of every kind: an identifier a bank writes with them is the same
 * identifier without them, or one account would count as two.
 */
const INVISIBLE = /[\p{Cf}\p{Z}\s]+/gu;
const CONTROL = /\p{Cc}/u;
/** Without format characters anywhere, nor spaces around it. */
const trimmed = (raw: string) => raw.replace(/\p{Cf}+/gu, '').replace(/^[\p{Z}\s]+|[\p{Z}\s]+$/gu, '');
/** The longest account and statement number we keep; a longer one is refused, never cut. */
export const MAX_IDENTIFIER = 64;
/** The longest bank reference we keep (camt.053 allows 35; a batch's transaction appends `/n`). */
export const MAX_BANK_REFERENCE = 140;

/** `t` as kept: 400 naming where when it holds a control character or is longer than we keep. */
function kept(t: string, what: string, path: string, max: number): string {
  if (CONTROL.test(t)) throw badStatement(`${path}: the ${what} holds a control character`, path);
  if (t.length > max) throw badStatement(`${path}: the ${what} is ${t.length} characters long; at most ${max} are kept`, path);
  return t;
}

/** An account number as one spelling: no spaces or invisible characters, upper case. */
export const accountSpelling = (raw: string) => raw.replace(INVISIBLE, '').toUpperCase();

/** Our account a statement is of, in its one spelling (`accountSpelling`); refused over 64 characters. */
export function statementAccount(raw: string, path: string): string {
  return kept(raw.replace(INVISIBLE, ''), 'account', path, MAX_IDENTIFIER).toUpperCase();
}

/** A statement's number, without surrounding or invisible spaces (refused over 64 characters). */
export function statementNumber(raw: string, path: string): string {
  return kept(trimmed(raw), 'statement number', path, MAX_IDENTIFIER);
}

/**
 * The bank's reference of an entry, or null where the bank gave none: blank, all zeros (GPC pads
 * an absent transaction id so) or a placeholder (`NONREF`, `NOTPROVIDED`). A reference that is
 * absent identifies nothing, so no two entries are ever taken for one by it.
 */
export function bankReference(raw: string | null | undefined, path: string): string | null {
  if (raw == null) return null;
  const t = trimmed(raw);
  if (t === '' || /^0+$/.test(t) || /^(?:NONREF|NOTPROVIDED|NONE|N\/A)$/i.test(t)) return null;
  return kept(t, 'bank reference', path, MAX_BANK_REFERENCE);
}

/** A two-digit year as banks write it: 00–79 is 20xx, 80–99 is 19xx. */
export function fullYear(yy: number): number {
  return yy < 80 ? 2000 + yy : 1900 + yy;
}

/** The variable symbol in a free-text message (`VS:123`, `VS 123`, `/VS/123`, `VS123`). */
export function variableSymbolIn(text: string | null | undefined): string | null {
  if (!text) return null;
  const m = /(?:^|[^A-Z0-9])VS[\s:/.=-]*0*(\d{1,10})(?!\d)/i.exec(text);
  return m ? m[1] : null;
}

export { symbolDigits } from '../payment-symbols.js';

/**
 * Opening balance + Σ entries must be the closing balance, to the cent: a statement that does
 * not reconcile is not a statement we can post from.
 */
export function balanceDifference(s: ParsedStatement): Dec {
  const sum = s.entries.reduce((a, e) => a.plus(e.amount), Dec(0));
  return Dec(s.openingBalance).plus(sum).minus(s.closingBalance);
}
