import { ValidationError } from '@ledgerline/service-kit';
import { Dec } from '@ledgerline/core/money';

/*
 * A bank statement as the three parsers read it (issue 17), before anything is matched or
 * stored. Amounts are decimal strings, signed: positive is money in (credit), negative money
 * out (debit). Every parser checks the shape of its format strictly and names the line or the
 * element of what it cannot read; whether the balances reconcile is checked once, for all
 * formats, by `assertBalances`.
 */

export type StatementFormat = 'camt053' | 'gpc' | 'mt940';

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

/** A symbol field as digits without leading zeros; null when empty or all zeros. */
export function symbolDigits(raw: string | null | undefined): string | null {
  const t = (raw ?? '').trim();
  if (!/^\d{1,10}$/.test(t)) return null;
  const v = t.replace(/^0+/, '');
  return v === '' ? null : v;
}

/**
 * Opening balance + Σ entries must be the closing balance, to the cent: a statement that does
 * not reconcile is not a statement we can post from.
 */
export function balanceDifference(s: ParsedStatement): Dec {
  const sum = s.entries.reduce((a, e) => a.plus(e.amount), Dec(0));
  return Dec(s.openingBalance).plus(sum).minus(s.closingBalance);
}
