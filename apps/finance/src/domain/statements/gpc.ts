import { Dec } from '@ledgerline/core/money';
import { badStatement, bankReference, calendarDay, fullYear, symbolDigits, type ParsedStatement, type StatementEntry } from './statement.js';

/*
 * GPC (ABO), the fixed-width statement of Czech banks and payment gateways: windows-1250 text,
 * one `074` header per statement (account, old and new balance in hundredths, statement number and
 * date) followed by its `075` movements (counter-account, transaction id, amount in hundredths,
 * accounting code, variable, constant and specific symbol, value date, counterparty name,
 * currency as an ISO 4217 numeric code). Records of other types some banks add (076, 078, 079:
 * more message text) are read as the message of the movement before them. A file may hold several
 * statements. Account numbers are in the standard digit order or, in some banks' exports, in the
 * internal one (`standardAccountDigits`). Positions are those of the published layout (1-based):
 *
 *   074: 4–19 account, 20–39 name, 40–45 old balance date, 46–59 old balance, 60 its sign,
 *        61–74 new balance, 75 its sign, 76–90 debit turnover, 91–105 credit turnover,
 *        106–108 statement number, 109–114 statement date
 *   075: 4–19 account, 20–35 counter-account, 36–48 transaction id, 49–60 amount, 61 code
 *        (1 debit, 2 credit, 4 reversal of a debit, 5 reversal of a credit), 62–71 variable symbol,
 *        72–81 constant symbol field (bank code of the counter-account at 74–77, the symbol at
 *        78–81), 82–91 specific symbol, 92–97 value date, 98–117 counterparty, 118 change code,
 *        119–122 currency, 123–128 due date
 */

const ISO_NUMERIC: Record<string, string> = { '203': 'CZK', '978': 'EUR', '840': 'USD', '826': 'GBP', '985': 'PLN', '348': 'HUF', '756': 'CHF', '946': 'RON', '752': 'SEK', '578': 'NOK', '208': 'DKK' };

const field = (line: string, from: number, to: number) => line.slice(from - 1, to);

/** DDMMYY as YYYY-MM-DD. */
function ddmmyy(raw: string, path: string): string {
  if (!/^\d{6}$/.test(raw)) throw badStatement(`${path} is not a date (DDMMYY): ${raw}`, path);
  return calendarDay(fullYear(Number(raw.slice(4, 6))), Number(raw.slice(2, 4)), Number(raw.slice(0, 2)), path, raw);
}

/** Hundredths as a decimal. */
function hundredths(raw: string, path: string): Dec {
  if (!/^\d+$/.test(raw)) throw badStatement(`${path} is not an amount in hundredths: ${raw.trim().slice(0, 20)}`, path);
  return Dec(raw).div(100);
}

function signed(value: Dec, sign: string, path: string): string {
  if (sign !== '+' && sign !== '-' && sign !== '0') throw badStatement(`${path}: the sign must be + or -, not ${sign}`, path);
  return (sign === '-' ? value.neg() : value).toString();
}

/** Whether a Czech account number (prefix and number, digits) passes its mod-11 checks. */
function czechAccountValid(digits16: string): boolean {
  const check = (digits: string, weights: number[]) => [...digits].reduce((sum, d, i) => sum + Number(d) * weights[i], 0) % 11 === 0;
  return /^\d{16}$/.test(digits16) && check(digits16.slice(0, 6), [10, 5, 8, 4, 2, 1]) && check(digits16.slice(6), [6, 3, 7, 9, 10, 5, 8, 4, 2, 1]);
}

/**
 * Where each digit of the standard order (prefix, then number) stands in the banks' internal
 * order, which some banks' GPC exports use: standard digit i is internal digit INTERNAL_ORDER[i]
 * (1-based).
 */
const INTERNAL_ORDER = [11, 12, 13, 14, 15, 16, 5, 6, 7, 8, 9, 4, 10, 2, 3, 1];

/**
 * A 16-digit account field in the standard order. A field that fails the account checks as written
 * but passes them read in the internal order is in the internal order; one that passes neither
 * (foreign, or made up) is kept as written.
 */
export function standardAccountDigits(raw: string): string {
  if (czechAccountValid(raw)) return raw;
  const reordered = INTERNAL_ORDER.map((i) => raw[i - 1]).join('');
  return czechAccountValid(reordered) ? reordered : raw;
}

/** A 16-digit account field as `prefix-number` without leading zeros, or null when all zeros. */
function account(field16: string): string | null {
  const raw = /^\d{16}$/.test(field16) ? standardAccountDigits(field16) : field16;
  const prefix = raw.slice(0, 6).replace(/^0+/, '');
  const number = raw.slice(6).replace(/^0+/, '');
  if (!number) return null;
  return prefix ? `${prefix}-${number}` : number;
}

/** Every statement of a GPC file (decoded from windows-1250 by the caller). */
export function parseGpc(text: string, fallbackCurrency: string): ParsedStatement[] {
  const lines = text.split(/\r?\n/);
  const statements: ParsedStatement[] = [];
  let current: ParsedStatement | null = null;
  let lastEntry: StatementEntry | null = null;
  lines.forEach((raw, i) => {
    const line = raw.replace(/\s+$/, '');
    const path = `line ${i + 1}`;
    if (line === '' || line === '\u001a') return; // blank lines and a DOS end-of-file mark
    const type = line.slice(0, 3);
    if (type === '074') {
      if (!/^074\d{16}.{20}\d{6}\d{14}[+-]\d{14}[+-]\d{14}[+0-]\d{14}[+0-]\d{3}\d{6}/.test(line)) throw badStatement(`${path} is not a GPC header (074) record`, path);
      const acct = account(field(line, 4, 19));
      if (!acct) throw badStatement(`${path} names no account`, `${path}:4`);
      const oldDate = ddmmyy(field(line, 40, 45), `${path}:40`);
      current = {
        format: 'gpc',
        account: acct,
        statementNo: String(Number(field(line, 106, 108))),
        currency: '',
        openingBalance: signed(hundredths(field(line, 46, 59), `${path}:46`), field(line, 60, 60), `${path}:60`),
        closingBalance: signed(hundredths(field(line, 61, 74), `${path}:61`), field(line, 75, 75), `${path}:75`),
        dateFrom: oldDate,
        dateTo: ddmmyy(field(line, 109, 114), `${path}:109`),
        entries: [],
      };
      statements.push(current);
      lastEntry = null;
      return;
    }
    if (type === '075') {
      const statement = current as ParsedStatement | null;
      if (!statement) throw badStatement(`${path}: a movement (075) before any header (074)`, path);
      if (line.length < 122 || !/^075\d{16}\d{16}.{13}\d{12}[1245]/.test(line)) throw badStatement(`${path} is not a GPC movement (075) record`, path);
      const code = field(line, 61, 61);
      const amount = hundredths(field(line, 49, 60), `${path}:49`);
      // 1 debit, 2 credit; 4 reverses a debit (money back in), 5 reverses a credit (money out again)
      const signedAmount = code === '1' || code === '5' ? amount.neg() : amount;
      const currencyCode = field(line, 119, 122).replace(/^0+/, '');
      const currency = ISO_NUMERIC[currencyCode] ?? (currencyCode === '' ? fallbackCurrency : null);
      if (!currency) throw badStatement(`${path}: unknown currency code ${field(line, 119, 122)}`, `${path}:119`);
      if (statement.currency && statement.currency !== currency) throw badStatement(`${path} is in ${currency}, the statement in ${statement.currency}`, `${path}:119`);
      statement.currency = currency;
      const constantField = field(line, 72, 81);
      const bankCode = /^\d{4}$/.test(constantField.slice(2, 6)) && constantField.slice(2, 6) !== '0000' ? constantField.slice(2, 6) : null;
      const counter = account(field(line, 20, 35));
      const valueDate = field(line, 92, 97);
      const entry: StatementEntry = {
        order: statement.entries.length + 1,
        bankReference: bankReference(field(line, 36, 48), `${path}:36`),
        amount: signedAmount.toString(),
        currency,
        bookingDate: valueDate === '000000' ? statement.dateTo : ddmmyy(valueDate, `${path}:92`),
        valueDate: valueDate === '000000' ? null : ddmmyy(valueDate, `${path}:92`),
        variableSymbol: symbolDigits(field(line, 62, 71)),
        constantSymbol: symbolDigits(constantField.slice(6, 10)),
        specificSymbol: symbolDigits(field(line, 82, 91)),
        reference: null,
        message: field(line, 98, 117).trim() || null,
        partnerName: field(line, 98, 117).trim() || null,
        partnerAccount: counter ? (bankCode ? `${counter}/${bankCode}` : counter) : null,
        isFee: false,
        isReversal: code === '4' || code === '5',
      };
      statement.entries.push(entry);
      lastEntry = entry;
      return;
    }
    if (type === '076' || type === '078' || type === '079') {
      // additional message text of the movement before; a 076 record (ČSOB) opens with the
      // transaction's 26-character id and the day it was debited, then the message
      const body = type === '076' && /^076.{26}\d{6}/.test(line) ? line.slice(35) : line.slice(3);
      const extra = body.trim().replace(/\s{2,}/g, ' ');
      const entry = lastEntry as StatementEntry | null;
      if (entry && extra) entry.message = `${entry.message ?? ''} ${extra}`.trim().slice(0, 1000);
      return;
    }
    throw badStatement(`${path}: unknown GPC record type ${type.replace(/[^\x20-\x7e]/g, '?')}`, path);
  });
  if (statements.length === 0) throw badStatement('The file has no GPC header (074) record', 'line 1');
  for (const s of statements) s.currency ||= fallbackCurrency;
  return statements;
}
