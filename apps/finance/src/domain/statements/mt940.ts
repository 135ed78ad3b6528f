import { Dec } from '@ledgerline/core/money';
import { badStatement, bankReference, calendarDay, statementAccount, statementNumber, fullYear, variableSymbolIn, type ParsedStatement, type StatementEntry } from './statement.js';

/*
 * SWIFT MT940 (customer statement): `:20:` starts a statement, `:25:` names the account,
 * `:28C:` its number, `:60F:`/`:60M:` the opening and `:62F:`/`:62M:` the closing balance,
 * each `:61:` a movement with its `:86:` text. A field runs on over the lines that follow it
 * until the next tag; the SWIFT envelope (`{1:…}{4:` … `-}`) is skipped. Amounts use a decimal
 * comma and are read as decimals. We parse it ourselves rather than with mt940js, which turns
 * amounts into JavaScript numbers.
 *
 * `:61:` = value date YYMMDD, optional entry date MMDD, mark C/D/RC/RD, optional funds code,
 * amount, transaction type (N + three letters; NCHG/FCHG are charges), customer reference,
 * optional `//` bank reference, optional supplementary details on the next line.
 */

const LINE_61 = /^(\d{6})(\d{4})?(RC|RD|C|D)([A-Z])?(\d{1,12},\d{0,2})([NSF][A-Z0-9]{3})([^/\n]{0,16}?)(?:\/\/([^\n]{0,16}))?(?:\n([\s\S]{0,34}))?$/;
const BALANCE = /^([CD])(\d{6})([A-Z]{3})(\d{1,12},\d{0,2})$/;

interface Field {
  tag: string;
  value: string;
  line: number;
}

function fields(text: string): Field[] {
  const out: Field[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/\s+$/, '');
    if (line === '' || line === '-}' || line === '-' || /^\{[1-5]:/.test(line)) {
      // the envelope may put `{4:` before the first tag on the same line
      const rest = /^(?:\{[1-3]:[^}]*\})*\{4:(.*)$/.exec(line)?.[1];
      if (rest) return addLine(rest, i + 1);
      return;
    }
    addLine(line, i + 1);
  });
  function addLine(line: string, n: number) {
    const tag = /^:(\d{2}[A-Z]?):(.*)$/.exec(line);
    if (tag) out.push({ tag: tag[1], value: tag[2], line: n });
    else if (out.length) out[out.length - 1].value += `\n${line}`;
    else throw badStatement(`line ${n}: text before the first MT940 field`, `line ${n}`);
  }
  return out;
}

function yymmdd(raw: string, path: string): string {
  return calendarDay(fullYear(Number(raw.slice(0, 2))), Number(raw.slice(2, 4)), Number(raw.slice(4, 6)), path, raw);
}

function commaAmount(raw: string, path: string): Dec {
  const [whole, cents = ''] = raw.split(',');
  if (!/^\d{1,13}$/.test(whole) || !/^\d{0,2}$/.test(cents)) throw badStatement(`${path} is not an amount: ${raw}`, path);
  return Dec(`${whole}.${cents || '0'}`);
}

function balanceField(f: Field): { amount: string; currency: string; date: string } {
  const m = BALANCE.exec(f.value.trim());
  if (!m) throw badStatement(`line ${f.line}: :${f.tag}: is not a balance (C/D, YYMMDD, currency, amount)`, `line ${f.line}`);
  const value = commaAmount(m[4], `line ${f.line}`);
  return { amount: (m[1] === 'D' ? value.neg() : value).toString(), currency: m[3], date: yymmdd(m[2], `line ${f.line}`) };
}

/** Every statement of an MT940 file. */
export function parseMt940(text: string): ParsedStatement[] {
  type Reading = ParsedStatement & { opened: boolean; closed: boolean };
  const statements: Reading[] = [];
  let current: Reading | null = null;
  let entry: StatementEntry | null = null;
  const need = (f: Field) => {
    if (!current) throw badStatement(`line ${f.line}: :${f.tag}: before the statement's :20:`, `line ${f.line}`);
    return current as Reading;
  };
  for (const f of fields(text)) {
    const path = `line ${f.line}`;
    switch (f.tag) {
      case '20':
        current = { format: 'mt940', account: '', statementNo: '', currency: '', openingBalance: '0', closingBalance: '0', dateFrom: '', dateTo: '', entries: [], opened: false, closed: false };
        statements.push(current);
        entry = null;
        break;
      case '25':
        need(f).account = statementAccount(f.value, `line ${f.line}`);
        break;
      case '28':
      case '28C':
        need(f).statementNo = statementNumber(f.value, `line ${f.line}`);
        break;
      case '60F':
      case '60M': {
        const s = need(f);
        const b = balanceField(f);
        Object.assign(s, { openingBalance: b.amount, currency: b.currency, dateFrom: b.date, opened: true });
        break;
      }
      case '61': {
        const s = need(f);
        if (!s.opened) throw badStatement(`${path}: a movement (:61:) before the opening balance (:60F:)`, path);
        const m = LINE_61.exec(f.value);
        if (!m) throw badStatement(`${path}: :61: is not a statement line (date, C/D, amount, type, reference)`, path);
        const valueDate = yymmdd(m[1], path);
        const year = Number(valueDate.slice(0, 4));
        const bookingDate = m[2] ? calendarDay(year, Number(m[2].slice(0, 2)), Number(m[2].slice(2, 4)), path, m[2]) : valueDate;
        const amount = commaAmount(m[5], path);
        // C and RD (reversal of a debit) bring money in; D and RC take it out
        const moneyIn = m[3] === 'C' || m[3] === 'RD';
        const customerRef = m[7].trim();
        entry = {
          order: s.entries.length + 1,
          bankReference: bankReference(m[8], path),
          amount: (moneyIn ? amount : amount.neg()).toString(),
          currency: s.currency,
          bookingDate,
          valueDate,
          variableSymbol: null,
          constantSymbol: null,
          specificSymbol: null,
          reference: customerRef && customerRef !== 'NONREF' ? customerRef : null,
          message: m[9]?.trim() || null,
          partnerName: null,
          partnerAccount: null,
          isFee: m[6].slice(1) === 'CHG',
          isReversal: m[3].startsWith('R'),
        };
        entry.variableSymbol = variableSymbolIn(customerRef) ?? (/^\d{1,10}$/.test(customerRef) ? customerRef.replace(/^0+(?=\d)/, '') : null);
        s.entries.push(entry);
        break;
      }
      case '86': {
        need(f);
        if (!entry) break; // information about the whole statement
        const text = f.value.replace(/\n/g, ' ').replace(/\s{2,}/g, ' ').trim();
        entry.message = text.slice(0, 1000) || entry.message;
        entry.variableSymbol ??= variableSymbolIn(text);
        // structured :86: (`?20…?32name?38IBAN`) as German and Polish banks write it
        const name = /\?3[23]([^?]+)/.exec(f.value.replace(/\n/g, ''))?.[1]?.trim();
        const iban = /\?38([A-Z]{2}\d{2}[A-Z0-9]{10,30})/.exec(f.value.replace(/\n/g, ''))?.[1];
        entry.partnerName = name?.slice(0, 255) ?? null;
        entry.partnerAccount = iban ?? null;
        break;
      }
      case '62F':
      case '62M': {
        const s = need(f);
        const b = balanceField(f);
        if (s.currency && b.currency !== s.currency) throw badStatement(`${path}: the closing balance is in ${b.currency}, the opening in ${s.currency}`, path);
        Object.assign(s, { closingBalance: b.amount, dateTo: b.date, closed: true });
        entry = null;
        break;
      }
      default:
        break; // :21:, :64:, :65: and others carry nothing we post
    }
  }
  if (statements.length === 0) throw badStatement('The file has no MT940 statement (:20:)', 'line 1');
  return statements.map(({ opened, closed, ...s }, i) => {
    if (!s.account) throw badStatement(`statement ${i + 1} has no account (:25:)`, `statement ${i + 1}`);
    if (!opened || !closed) throw badStatement(`statement ${i + 1} lacks its ${opened ? 'closing (:62F:)' : 'opening (:60F:)'} balance`, `statement ${i + 1}`);
    return { ...s, statementNo: s.statementNo || s.dateTo };
  });
}
