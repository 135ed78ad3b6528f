import { BusinessRuleError } from '@ledgerline/service-kit';
import { Dec } from '@ledgerline/core/money';
import { badStatement, bankReference, fullYear, statementAccount, statementNumber, variableSymbolIn, type ParsedStatement, type StatementEntry } from './statement.js';
import { readDetails } from './mt940-details.js';

/*
 * SWIFT MT940 (customer statement) as banks really write it (issue 53). `:20:` starts a statement,
 * `:25:` names the account, `:28C:` (or `:28:`) its number and page, `:60F:`/`:60M:` the opening
 * and `:62F:`/`:62M:` the closing balance, each `:61:` a movement with its `:86:` text. A field
 * runs on over the lines that follow it until the next tag. Read as banks send it:
 *
 * - the SWIFT envelope `{1:…}{2:O940…}{3:…}{4:` … `-}{5:…}`, several messages to a file, each its
 *   own statement; a bank's preamble before a statement (its BIC, `940`, `:940:`), blank lines
 *   and `-` lines between statements;
 * - pages: a statement whose closing is intermediate (`:62M:`) goes on in the next one opening
 *   with `:60M:` (same account, the balance carried over): one statement of all its pages;
 * - `:61:` value date, optional entry date (also blank-padded), mark C, D, RC (reversal of a
 *   credit: money out) or RD, an optional funds-code letter, the amount (`0,`, leading zeros),
 *   the type (`N…`, `F…`, `S…`), the customer reference, `//` the bank's reference, and
 *   supplementary details on the next line; entry dates across a year end; a day a month does
 *   not have (30 February) read as the month's last day, and said so in the entry;
 * - `:86:` free text or structured (`readDetails`); `:64:`, `:65:`, `:90C:`/`:90D:`, `:NS:` and
 *   fields we do not know are kept as text of the entry they follow and never fail the file.
 *
 * An MT942 interim report (no closing balance, `:34F:`/`:13D:`) is refused with 422: it is not a
 * statement to post from. Amounts use a decimal comma and are read as decimals.
 */

const TAG = /^:([0-9]{2}[A-Z]?|NS):/;
// an amount as banks write it: a decimal comma (SWIFT), a decimal point, or whole units with no
// separator at all (`C500NTRF`); leading zeros beyond SWIFT's 15 digits are only zeros
const AMOUNT = String.raw`\d{1,40}(?:[,.]\d{0,2})?`;
const LINE_61 = new RegExp(String.raw`^(\d{6})(\d{4}| {4})?(R?[CD])([A-Z])?(${AMOUNT})([A-Z][A-Z0-9 ]{3})?([^\n]*?)(?:\/\/([^\n]*))?(?:\n([\s\S]*))?$`);
// a balance without its currency (some German savings banks) takes the statement's
const BALANCE = new RegExp(String.raw`^([CD])(\d{6})([A-Z]{3})?(${AMOUNT})$`);

interface Field {
  tag: string;
  /** Lines as written, without line ends or the tag. */
  lines: string[];
  line: number;
}

interface Message {
  fields: Field[];
  /** The message type the envelope names (`940`, `942`), when there is one. */
  type: string | null;
}

/** The file's messages: enveloped ones, and plain statements with whatever stands between them. */
function messages(text: string): Message[] {
  const out: Message[] = [];
  let current: Message | null = null;
  let ended: Message | null = null;
  const lines = text.split(/\r\n|\n|\r/);
  lines.forEach((raw, i) => {
    const n = i + 1;
    let line = raw;
    // the envelope's blocks before {4: may share the line with the first field
    const head = /^((?:\{[1-3]:(?:[^{}]|\{[^{}]*\})*\})+)?\{4:(.*)$/.exec(line);
    if (head) {
      const type = /\{2:[IO](\d{3})/.exec(head[1] ?? '')?.[1] ?? null;
      current = { fields: [], type };
      out.push(current);
      line = head[2];
      if (line.trim() === '') return;
    }
    if (/^-\}/.test(line) || /^\s*-\s*$/.test(line) || /^:940:\s*$/.test(line)) {
      // the end of a message (older Dutch files put `:940:` between statements); what follows
      // belongs to the next, unless it goes on with the same statement's fields (below)
      if (current) ended = current;
      current = null;
      return;
    }
    const tag = TAG.exec(line);
    if (tag) {
      if (tag[1] === '20' && (!current || current.fields.some((f) => f.tag === '20'))) {
        current = { fields: [], type: current?.type ?? null };
        out.push(current);
      }
      if (!current && ended && !ended.fields.some((f) => f.tag.startsWith('62'))) {
        // a statement continued after an end marker (its closing balance still to come)
        current = ended;
      }
      if (!current) {
        current = { fields: [], type: null };
        out.push(current);
      }
      current.fields.push({ tag: tag[1], lines: [line.slice(tag[0].length)], line: n });
      return;
    }
    const last = current?.fields.at(-1);
    // a line before any field of its statement: a bank's preamble, a blank line
    if (!last) return;
    last.lines.push(line);
  });
  return out.filter((m) => m.fields.length > 0);
}

/** The last day of a month. */
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

interface BankDay {
  date: string;
  /** Set when the bank wrote a day the month does not have (30 February). */
  note: string | null;
}

/** A day as a bank wrote it: a day past the month's end is the month's last day, as banks mean it. */
function bankDay(year: number, month: number, day: number, path: string, raw: string): BankDay {
  if (year < 1900 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31) throw badStatement(`${path} is not a date: ${raw.slice(0, 20)}`, path);
  const last = lastDay(year, month);
  const iso = (d: number) => `${year}-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  if (day <= last) return { date: iso(day), note: null };
  return { date: iso(last), note: `the bank dated it ${iso(day)}, read as ${iso(last)}` };
}

function yymmdd(raw: string, path: string): BankDay {
  return bankDay(fullYear(Number(raw.slice(0, 2))), Number(raw.slice(2, 4)), Number(raw.slice(4, 6)), path, raw);
}

/** The entry (booking) date MMDD nearest to the value date: across a year end it is in the year before or after. */
function entryDay(mmdd: string, value: string, path: string): BankDay {
  const year = Number(value.slice(0, 4));
  const month = Number(mmdd.slice(0, 2));
  const valueMonth = Number(value.slice(5, 7));
  const shifted = month - valueMonth > 6 ? year - 1 : valueMonth - month > 6 ? year + 1 : year;
  return bankDay(shifted, month, Number(mmdd.slice(2, 4)), path, mmdd);
}

/** An amount (decimal comma or point, or none; leading zeros and an empty fraction allowed) as a decimal of at most 13 integer digits. */
function commaAmount(raw: string, path: string): Dec {
  const [whole, cents = ''] = raw.split(/[,.]/);
  const digits = whole.replace(/^0+(?=\d)/, '');
  if (!/^\d{1,13}$/.test(digits) || !/^\d{0,2}$/.test(cents)) throw badStatement(`${path} is not an amount: ${raw.slice(0, 30)}`, path);
  return Dec(`${digits}.${cents || '0'}`);
}

function balanceField(f: Field, currency: string | null): { amount: string; currency: string; date: string; intermediate: boolean } {
  const path = `line ${f.line}`;
  const m = BALANCE.exec(f.lines.join('').trim());
  if (!m) throw badStatement(`${path}: :${f.tag}: is not a balance (C/D, YYMMDD, currency, amount)`, path);
  const value = commaAmount(m[4], path);
  const known = m[3] ?? currency;
  if (!known) throw badStatement(`${path}: :${f.tag}: names no currency, and nothing before it does (:25:, the opening balance)`, path);
  return { amount: (m[1] === 'D' ? value.neg() : value).toString(), currency: known, date: yymmdd(m[2], path).date, intermediate: f.tag.endsWith('M') };
}

/** The account of `:25:`: an IBAN, `BLZ/account`, `BIC/account/currency` or a domestic number, as written, and the currency written after it. */
function accountField(f: Field): { account: string; currency: string | null } {
  const written = f.lines.join('').trim().replace(/^\//, '');
  // a domestic number with the account's currency after it (older Dutch and German layouts: `1291.99.348EUR`, `51210600/9223382012EUR`, `123 EUR`)
  const trailing = /^([0-9][0-9./ -]*?)\s*([A-Z]{3})$/.exec(written);
  const raw = trailing ? trailing[1].trim() : written;
  // `BIC/number/currency` (Raiffeisen and others): the number is the account
  const parts = raw.split('/');
  let value = parts.length === 3 && /^[A-Z]{6}[A-Z0-9]{2,5}$/.test(parts[0]) && /^[A-Z]{3}$/.test(parts[2]) ? parts[1] : raw;
  // an IBAN with the account's currency after it (ING): the IBAN
  const withCurrency = /^([A-Z]{2}\d{2}[A-Z0-9]{10,30})([A-Z]{3})$/.exec(value.replace(/\s+/g, ''));
  if (withCurrency && ibanChecks(withCurrency[1])) value = withCurrency[1];
  const currency = trailing?.[2] ?? (withCurrency && ibanChecks(withCurrency[1]) ? withCurrency[2] : null) ?? (parts.length === 3 && /^[A-Z]{3}$/.test(parts[2]) ? parts[2] : null);
  return { account: statementAccount(value, `line ${f.line}`), currency };
}

/** Whether an IBAN's check digits hold (ISO 13616 mod 97). */
function ibanChecks(iban: string): boolean {
  const moved = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const digit of moved) rest = (rest * 10 + Number(digit)) % 97;
  return rest === 1;
}

/** Accounts whose banks use variable symbols (Czech and Slovak IBANs, Czech domestic numbers). */
const usesVariableSymbols = (account: string) => /^(CZ|SK)\d{2}/.test(account) || /^(\d{1,6}-)?\d{2,10}(\/\d{4})?$/.test(account);

type Reading = ParsedStatement & { opened: boolean; closed: boolean; intermediateClose: boolean; firstLine: number };

function refuseInterim(m: Message): void {
  const interim = m.type === '942' || m.fields.some((f) => f.tag === '34F' || f.tag === '13D' || f.tag === '13');
  if (!interim) return;
  const line = m.fields[0].line;
  throw new BusinessRuleError(
    `The file is an MT942 interim report (line ${line}), not a statement: it has no closing balance to reconcile, so nothing is posted from it; import the day's MT940 statement`,
    'statement_is_interim_report',
    [{ path: `line ${line}`, message: 'an interim report (MT942), not a statement (MT940)', code: 'statement_is_interim_report' }],
  );
}

function readMovement(s: Reading, f: Field): StatementEntry {
  const path = `line ${f.line}`;
  // a bank that breaks the line after the mark (some savings banks) continues the same field
  const lines = [...f.lines];
  if (lines.length > 1 && /^\d{6}(\d{4}| {4})?R?[CD][A-Z]?$/.test(lines[0].trimEnd())) lines.splice(0, 2, lines[0].trimEnd() + lines[1]);
  const m = LINE_61.exec(lines.join('\n').replace(/\s+$/, ''));
  if (!m) throw badStatement(`${path}: :61: is not a statement line (value date, C/D, amount, type, reference)`, path);
  const value = yymmdd(m[1], path);
  const entry = m[2] && m[2].trim() ? entryDay(m[2], value.date, path) : null;
  const amount = commaAmount(m[5], path);
  // C and RD (reversal of a debit) bring money in; D and RC take it out
  const moneyIn = m[3] === 'C' || m[3] === 'RD';
  const customerRef = m[7].trim();
  const type = (m[6] ?? '').trim();
  const supplementary = m[9]?.replace(/\s+/g, ' ').trim() || null;
  const notes = [value.note, entry?.note].filter((n): n is string => n !== null);
  const counterIban = supplementary && /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(supplementary) ? supplementary : null;
  return {
    order: s.entries.length + 1,
    bankReference: bankReference(m[8], path),
    amount: (moneyIn ? amount : amount.neg()).toString(),
    currency: s.currency,
    bookingDate: (entry ?? value).date,
    valueDate: value.date,
    // a reference of digits alone is the variable symbol where banks use them
    variableSymbol: variableSymbolIn(customerRef) ?? (usesVariableSymbols(s.account) && /^\d{1,10}$/.test(customerRef) ? customerRef.replace(/^0+(?=\d)/, '') || null : null),
    constantSymbol: null,
    specificSymbol: null,
    reference: customerRef && !/^(NONREF|NOTPROVIDED)$/i.test(customerRef) ? customerRef.slice(0, 140) : null,
    message: counterIban ? null : supplementary,
    partnerName: null,
    partnerAccount: counterIban,
    isFee: /^[NF]CHG$/.test(type) || /^[NF]COM$/.test(type),
    isReversal: m[3].startsWith('R'),
    extra: notes.length ? notes.join('; ') : null,
  };
}

/** What `:86:` says of the entry before it. */
function applyDetails(entry: StatementEntry, f: Field): void {
  const d = readDetails(f.lines);
  if (d.text) entry.message = [d.text, entry.message].filter(Boolean).join(' | ').slice(0, 1000);
  entry.partnerName = d.name?.slice(0, 255) ?? entry.partnerName;
  entry.partnerAccount = d.account?.slice(0, 64) ?? entry.partnerAccount;
  // Dutch banks write `EREF` in :61: for "the end-to-end id in :86:"
  if (d.endToEnd && (!entry.reference || entry.reference === 'EREF')) entry.reference = d.endToEnd.slice(0, 140);
  entry.variableSymbol ??= variableSymbolIn(d.remittance) ?? variableSymbolIn(d.text) ?? variableSymbolIn(d.endToEnd);
}

/** Text of a field we post nothing from, kept with the entry it follows. */
function keepText(entry: StatementEntry | null, f: Field): void {
  if (!entry) return;
  const text = `:${f.tag}: ${f.lines.map((l) => l.trim()).filter(Boolean).join(' ')}`.slice(0, 500);
  entry.extra = [entry.extra, text].filter(Boolean).join('; ').slice(0, 2000);
}

/** Every statement of an MT940 file, its pages joined. */
export function parseMt940(text: string, fallbackCurrency: string | null = null): ParsedStatement[] {
  const found = messages(text);
  if (found.length === 0) throw badStatement('The file has no MT940 statement (:20:)', 'line 1');
  found.forEach(refuseInterim);
  const readings: Reading[] = [];
  for (const message of found) {
    const s: Reading = {
      format: 'mt940',
      account: '',
      statementNo: '',
      currency: '',
      openingBalance: '0',
      closingBalance: '0',
      dateFrom: '',
      dateTo: '',
      entries: [],
      opened: false,
      closed: false,
      intermediateClose: false,
      firstLine: message.fields[0].line,
    };
    let opening: ReturnType<typeof balanceField> | null = null;
    let entry: StatementEntry | null = null;
    let accountCurrency: string | null = null;
    for (const f of message.fields) {
      const path = `line ${f.line}`;
      switch (f.tag) {
        case '20':
          break;
        case '25': {
          const read = accountField(f);
          s.account = read.account;
          accountCurrency = read.currency;
          break;
        }
        case '28':
        case '28C':
          s.statementNo = statementNumber(f.lines.join('').trim(), path);
          break;
        case '60F':
        case '60M': {
          opening = balanceField(f, accountCurrency ?? fallbackCurrency);
          Object.assign(s, { openingBalance: opening.amount, currency: opening.currency, dateFrom: opening.date, opened: true });
          break;
        }
        case '61': {
          if (!s.opened) throw badStatement(`${path}: a movement (:61:) before the opening balance (:60F:)`, path);
          entry = readMovement(s, f);
          s.entries.push(entry);
          break;
        }
        case '86':
          if (entry) applyDetails(entry, f);
          break;
        case '62F':
        case '62M': {
          const b = balanceField(f, s.currency || accountCurrency || fallbackCurrency);
          if (s.currency && b.currency !== s.currency) throw badStatement(`${path}: the closing balance is in ${b.currency}, the opening in ${s.currency}`, path);
          Object.assign(s, { closingBalance: b.amount, dateTo: b.date, closed: true, intermediateClose: b.intermediate });
          entry = null;
          break;
        }
        default:
          // :21:, :64:, :65:, :90C:, :90D:, :NS: and whatever a bank adds: text, never a failure
          keepText(entry, f);
          break;
      }
    }
    const where = `statement ${readings.length + 1} (line ${s.firstLine})`;
    if (!s.account) throw badStatement(`${where} has no account (:25:)`, where);
    if (!s.opened || !s.closed) throw badStatement(`${where} lacks its ${s.opened ? 'closing (:62F:)' : 'opening (:60F:)'} balance`, where);
    const previous = readings.at(-1);
    if (opening?.intermediate && previous?.intermediateClose && previous.account === s.account) {
      // the next page of the same statement: its opening is the page before's closing
      if (!Dec(previous.closingBalance).eq(s.openingBalance)) {
        throw badStatement(
          `line ${s.firstLine}: this page opens with ${s.openingBalance} (:60M:), but the page before closed with ${previous.closingBalance} (:62M:)`,
          `line ${s.firstLine}`,
        );
      }
      for (const e of s.entries) previous.entries.push({ ...e, order: previous.entries.length + 1 });
      Object.assign(previous, { closingBalance: s.closingBalance, dateTo: s.dateTo, intermediateClose: s.intermediateClose });
      continue;
    }
    readings.push(s);
  }
  return readings.map(({ opened, closed, intermediateClose, firstLine, ...s }) => ({
    ...s,
    statementNo: s.statementNo || s.dateTo,
    entries: s.entries.map((e) => ({ ...e, currency: s.currency })),
  }));
}
