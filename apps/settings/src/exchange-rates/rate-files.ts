import Decimal from 'decimal.js';
import { EURO_LEGACY_CURRENCIES, ISO_4217_CURRENCIES } from '@ledgerline/contracts';

/*
 * The central banks' published exchange-rate files, read into rates of one base (legal)
 * currency: the Czech National Bank's daily fixing (CZK per `amount` units of a currency) and the
 * European Central Bank's euro reference rates (units of a currency per 1 EUR, turned round so
 * that every rate here means the same: base-currency units for `amount` units of `currency`).
 */

export interface PublishedRate {
  currency: string;
  /** Units of `currency` the rate is for (100 for HUF at the CNB). */
  amount: number;
  /** Base-currency units for `amount` units of `currency`, as a decimal string. */
  rate: string;
  /** The day the rate was published for (YYYY-MM-DD). */
  rate_date: string;
}

export interface RateFile {
  source: 'cnb' | 'ecb';
  /** The currency the rates are in: CZK for the CNB, EUR for the ECB. */
  base: string;
  rates: PublishedRate[];
}

/** A file that is not what it claims to be, with the line (1-based) that shows it. */
export class RateFileError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

/** Decimals an ECB rate keeps once turned round (the ledger's `fx_rate numeric(20,10)`). */
const INVERSE_DECIMALS = 10;
const CURRENCY = /^[A-Z]{3}$/;
const MAX_RATE = new Decimal(1e9);
/**
 * Codes a central bank's file lists beyond the currencies invoices are issued in: the IMF's special
 * drawing right (XDR, in the CNB's fixing), and codes ISO 4217 has retired that files of recent
 * years still hold (the kuna until 2022, and the currencies the euro replaced).
 */
const PUBLISHED_ONLY: ReadonlySet<string> = new Set(['XDR', 'HRK', 'LTL', 'LVL', 'EEK', 'SKK', 'MTL', 'CYP', 'SIT']);

/**
 * The one check of a rate's currency, for a file's lines and a rate set by hand alike (issue 71:
 * an import took a line for the file's own currency, made-up codes and one day twice): a currency
 * ISO 4217 lists (for a file, also one it listed, and XDR; by hand, also one the euro replaced, for old
 * statements in it), not the currency the rates are in. Null when it passes.
 */
export function currencyProblem(currency: string, base: string, publishedAllowed: boolean): string | null {
  if (!CURRENCY.test(currency)) return `"${currency.slice(0, 10)}" is not a currency code`;
  const known = ISO_4217_CURRENCIES.has(currency) || (publishedAllowed ? PUBLISHED_ONLY.has(currency) : currency in EURO_LEGACY_CURRENCIES);
  if (!known) return `${currency} is not an ISO 4217 currency`;
  if (currency === base) return `${currency} is the currency the rates are in: its rate is 1`;
  return null;
}

/** Each (day, currency) of a file once, whichever day block it stands in. */
function once(seen: Set<string>, day: string, currency: string, line: number): void {
  const key = `${day}|${currency}`;
  if (seen.has(key)) throw new RateFileError(line, `${currency} appears twice on ${day}`);
  seen.add(key);
}

function isoDay(d: number, m: number, y: number): string | null {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (y < 1990 || y > 2999 || date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

function positiveRate(text: string, line: number): Decimal {
  if (!/^\d{1,10}(\.\d{1,10})?$/.test(text)) throw new RateFileError(line, `"${text}" is not a rate`);
  const rate = new Decimal(text);
  if (rate.lte(0) || rate.gte(MAX_RATE)) throw new RateFileError(line, `rate ${text} is out of range`);
  return rate;
}

/**
 * The CNB's daily fixing (`denni_kurz.txt`): a header `DD.MM.YYYY #N`, the column line
 * `země|měna|množství|kód|kurz`, then one `country|currency name|amount|code|rate` line per
 * currency with a decimal comma. Several days one after another (a file of days joined) are read
 * day by day.
 */
export function parseCnbDaily(text: string): RateFile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const rates: PublishedRate[] = [];
  let day: string | null = null;
  let expectColumns = false;
  const seen = new Set<string>();
  lines.forEach((raw, i) => {
    const n = i + 1;
    const line = raw.trim();
    if (!line) return;
    const header = /^(\d{2})\.(\d{2})\.(\d{4})\s+#\d+$/.exec(line);
    if (header) {
      day = isoDay(Number(header[1]), Number(header[2]), Number(header[3]));
      if (!day) throw new RateFileError(n, `"${line}" names no calendar day`);
      expectColumns = true;
      return;
    }
    if (!day) throw new RateFileError(n, 'a CNB daily fixing starts with its date line "DD.MM.YYYY #N"');
    if (expectColumns) {
      if (line.toLowerCase() !== 'země|měna|množství|kód|kurz') throw new RateFileError(n, 'the column line "země|měna|množství|kód|kurz" is missing');
      expectColumns = false;
      return;
    }
    const cells = line.split('|');
    if (cells.length !== 5) throw new RateFileError(n, `expected 5 columns separated by "|", found ${cells.length}`);
    const [, , amountText, code, rateText] = cells.map((c) => c.trim());
    const problem = currencyProblem(code, 'CZK', true);
    if (problem) throw new RateFileError(n, problem);
    if (!/^[1-9]\d{0,6}$/.test(amountText)) throw new RateFileError(n, `"${amountText}" is not an amount of units`);
    once(seen, day, code, n);
    const rate = positiveRate(rateText.replace(',', '.'), n);
    rates.push({ currency: code, amount: Number(amountText), rate: rate.toString(), rate_date: day });
  });
  if (expectColumns) throw new RateFileError(lines.length, 'the file ends before its column line');
  if (!rates.length) throw new RateFileError(1, 'no rates in the file');
  return { source: 'cnb', base: 'CZK', rates };
}

/**
 * The ECB's euro reference rates in the eurofxref format (`eurofxref-daily.xml`,
 * `eurofxref-hist-90d.xml`, `eurofxref-hist.xml`): `<Cube time="YYYY-MM-DD">` days holding
 * `<Cube currency="USD" rate="1.0566"/>`, each rate the units of a currency per 1 EUR. Read as
 * EUR per `amount` units (the rate turned round, to ten decimals).
 */
export function parseEcbReference(xml: string): RateFile {
  const text = xml.replace(/^\uFEFF/, '');
  if (!/<(?:\w+:)?Envelope\b/.test(text) || !/eurofxref/.test(text)) throw new RateFileError(1, 'not an ECB eurofxref document (gesmes:Envelope of the eurofxref vocabulary)');
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new RateFileError(1, 'document type declarations are not accepted');
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const rates: PublishedRate[] = [];
  let day: string | null = null;
  const seen = new Set<string>();
  for (const m of text.matchAll(/<Cube\b([^>]*?)(\/?)>/g)) {
    const attrs = Object.fromEntries([...m[1].matchAll(/([\w:]+)\s*=\s*(?:'([^']*)'|"([^"]*)")/g)].map((a) => [a[1], a[2] ?? a[3]]));
    const n = lineOf(m.index!);
    if (attrs.time !== undefined) {
      const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(attrs.time);
      day = parts ? isoDay(Number(parts[3]), Number(parts[2]), Number(parts[1])) : null;
      if (!day) throw new RateFileError(n, `time="${attrs.time}" is not a calendar day`);
    } else if (attrs.currency !== undefined || attrs.rate !== undefined) {
      if (!day) throw new RateFileError(n, 'a rate outside a <Cube time="…"> day');
      const problem = currencyProblem(attrs.currency ?? '', 'EUR', true);
      if (problem) throw new RateFileError(n, problem);
      once(seen, day, attrs.currency, n);
      const quoted = positiveRate(attrs.rate ?? '', n);
      // quoted for 10, 100, 1000… units when one unit is worth little (JPY, HUF, IDR), as the CNB
      // quotes them, so the rate keeps ten significant digits
      const amount = quoted.gte(10) ? new Decimal(10).pow(Math.min(6, quoted.floor().toString().length - 1)).toNumber() : 1;
      rates.push({ currency: attrs.currency, amount, rate: new Decimal(amount).div(quoted).toDecimalPlaces(INVERSE_DECIMALS, Decimal.ROUND_HALF_UP).toString(), rate_date: day });
    }
  }
  if (!rates.length) throw new RateFileError(1, 'no rates in the document');
  return { source: 'ecb', base: 'EUR', rates };
}

/** A rate file by its content: XML is the ECB's, text the CNB's. */
export function parseRateFile(body: string): RateFile {
  return body.trimStart().startsWith('<') ? parseEcbReference(body) : parseCnbDaily(body);
}
