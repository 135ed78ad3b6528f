import Decimal from 'decimal.js';
import { exchangeRatesInForceRequestSchema, type ExchangeRate, type ExchangeRateImport, type ExchangeRateRequest, type ExchangeRateTable, type ExchangeRatesInForceAnswer } from '@ledgerline/contracts';
import { BusinessRuleError, NotFoundError, ValidationError, insertRows, sqlRows, type TenantScope } from '@ledgerline/service-kit';
import { ExchangeRateSchema } from '../db/exchange-rates.entities.js';
import { getOrganisation } from '../domain/organisations.js';
import { RateFileError, currencyProblem, parseRateFile, type PublishedRate, type RateFile } from './rate-files.js';

/*
 * An organisation's table of exchange rates into its legal currency. The rate in force on a day
 * is that day's, else the last one before it (a weekend or holiday takes Friday's fixing, as the
 * central banks publish none). A rate set by hand for a day wins over an imported one.
 */

/** Which central bank's rates a legal currency takes: the CNB's for CZK books, the ECB's for EUR books. */
export const SOURCE_OF_BASE: Record<string, 'cnb' | 'ecb'> = { CZK: 'cnb', EUR: 'ecb' };
const MAX_FILE_BYTES = 8 * 1024 * 1024;

interface RateRow {
  currency: string;
  rate_date: string;
  amount: number;
  rate: string;
  source: ExchangeRate['source'];
}

const view = (row: RateRow, base: string): ExchangeRate => ({
  currency: row.currency,
  amount: Number(row.amount),
  rate: new Decimal(row.rate).toNumber(),
  rate_date: row.rate_date,
  source: row.source,
  base_currency: base,
});

async function legalCurrency(scope: TenantScope): Promise<string> {
  return (await getOrganisation(scope)).legalCurrency;
}

/** The rate of each currency (or of `currency`) in force on `date`. */
export async function ratesInForce(scope: TenantScope, date: string, currency?: string): Promise<ExchangeRateTable> {
  const base = await legalCurrency(scope);
  const rows = await sqlRows<RateRow>(
    scope.em,
    `select distinct on (currency) currency, to_char(rate_date, 'YYYY-MM-DD') as rate_date, amount, rate::text as rate, source
       from exchange_rates
      where org_id = ? and rate_date <= ?::date and (?::text is null or currency = ?::text)
      order by currency, rate_date desc`,
    [scope.orgId, date, currency ?? null, currency ?? null],
  );
  if (currency && !rows.length) {
    throw new NotFoundError(`No ${currency} rate on or before ${date}: import the central bank's rates or set one (PUT /v1/settings/exchange-rates/${currency}/${date})`, 'exchange_rate_not_found');
  }
  return { date, base_currency: base, entities: rows.map((r) => view(r, base)) };
}

/** An uploaded file's UTF-8 text: 400 when it is missing, larger than `maxBytes` or not UTF-8. */
export function readTextBody(body: unknown, what: string, missing: string, maxBytes = MAX_FILE_BYTES): string {
  if (!(body instanceof Uint8Array) || body.length === 0) throw new ValidationError(missing, [{ path: 'body', message: `${what} is missing`, code: 'required' }]);
  if (body.length > maxBytes) throw new ValidationError(`${what} is larger than ${maxBytes} bytes`, [{ path: 'body', message: 'too large', code: 'too_big' }]);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new ValidationError(`${what} is not UTF-8 text`, [{ path: 'body', message: 'not UTF-8', code: 'invalid_encoding' }]);
  }
}

const readText = (body: unknown) =>
  readTextBody(body, 'The rate file', "Send the central bank's rate file as the body (Content-Type text/plain for the CNB's, application/xml for the ECB's)");

/** Reads a central bank's file; a malformed one is a 400 naming its line. */
export function readRateFile(body: unknown): RateFile {
  const text = readText(body);
  try {
    return parseRateFile(text);
  } catch (err) {
    if (err instanceof RateFileError) throw new ValidationError(`The rate file is not usable: ${err.message}`, [{ path: `body:${err.line}`, message: err.message, code: 'invalid_rate_file' }], 'invalid_rate_file');
    throw err;
  }
}

/**
 * Stores the file's days, each replacing what that source said of that day before (a rate set
 * by hand for a currency and day stays). The file's base currency must be the organisation's.
 */
export async function importRates(scope: TenantScope, body: unknown): Promise<ExchangeRateImport> {
  const file = readRateFile(body);
  const base = await legalCurrency(scope);
  if (file.base !== base) {
    throw new BusinessRuleError(
      `The ${file.source.toUpperCase()}'s rates are in ${file.base}; this organisation keeps its books in ${base}${SOURCE_OF_BASE[base] ? ` and takes the ${SOURCE_OF_BASE[base].toUpperCase()}'s` : ''}`,
      'exchange_rate_base_mismatch',
    );
  }
  const days = await storeRateFile(scope, file);
  return { source: file.source, base_currency: base, days: days.length, rates: file.rates.length, date_from: days[0], date_to: days[days.length - 1] };
}

/**
 * Writes a file's days into an organisation's table, each replacing what that source said of
 * that day before (a rate set by hand stays); answers the days, in order.
 */
export async function storeRateFile(scope: TenantScope, file: RateFile): Promise<string[]> {
  const days = [...new Set(file.rates.map((r) => r.rate_date))].sort();
  await sqlRows(scope.em, `delete from exchange_rates where org_id = ? and source = ? and rate_date = any(?::date[])`, [scope.orgId, file.source, days]);
  const rows = file.rates.map((r: PublishedRate) => ({ orgId: scope.orgId, currency: r.currency, rateDate: r.rate_date, amount: r.amount, rate: r.rate, source: file.source }));
  for (let i = 0; i < rows.length; i += 1000) {
    await insertRows(scope.em, ExchangeRateSchema, rows.slice(i, i + 1000), { onConflict: '(org_id, currency, rate_date) do nothing' });
  }
  return days;
}

/** Sets the rate of `currency` on `date` by hand: it wins over an imported one of that day. */
export async function putRate(scope: TenantScope, currency: string, date: string, input: ExchangeRateRequest): Promise<ExchangeRate> {
  const base = await legalCurrency(scope);
  if (currency === base) {
    throw new BusinessRuleError(`${currency} is this organisation's legal currency: its rate is 1`, 'exchange_rate_of_legal_currency', [{ path: 'currency', message: 'the legal currency', code: 'invalid' }]);
  }
  const problem = currencyProblem(currency, base, false);
  if (problem) throw new ValidationError(`The currency is not one a rate is kept for: ${problem}`, [{ path: 'currency', message: problem, code: 'invalid_currency' }]);
  const rate = new Decimal(input.rate);
  if (rate.decimalPlaces() > 10) throw new ValidationError('A rate has at most ten decimals', [{ path: 'rate', message: 'at most ten decimals', code: 'invalid' }]);
  const [row] = await insertRows(
    scope.em,
    ExchangeRateSchema,
    [{ orgId: scope.orgId, currency, rateDate: date, amount: input.amount ?? 1, rate: rate.toString(), source: 'manual', updatedAt: new Date() }],
    { onConflict: '(org_id, currency, rate_date) do update set amount = excluded.amount, rate = excluded.rate, source = excluded.source, updated_at = now()', returning: ['currency', 'amount', 'source'] },
  );
  return view({ currency, rate_date: date, amount: Number(row.amount), rate: rate.toString(), source: 'manual' }, base);
}

/**
 * `rpc.settings.exchange.rates`: the rate in force of each (currency, day) asked, in the order
 * asked, null where the table has none on or before that day. One statement for every ask.
 */
export async function ratesInForceFor(scope: TenantScope, raw: unknown): Promise<ExchangeRatesInForceAnswer> {
  const { asks } = exchangeRatesInForceRequestSchema.parse(raw);
  const base = await legalCurrency(scope);
  const rows = await sqlRows<RateRow & { i: number }>(
    scope.em,
    `select a.i::int as i, r.currency, to_char(r.rate_date, 'YYYY-MM-DD') as rate_date, r.amount, r.rate::text as rate, r.source
       from unnest(?::text[], ?::date[]) with ordinality as a(currency, day, i)
       cross join lateral (
         select currency, rate_date, amount, rate, source from exchange_rates
          where org_id = ? and currency = a.currency and rate_date <= a.day
          order by rate_date desc limit 1) r`,
    [asks.map((a) => a.currency), asks.map((a) => a.date), scope.orgId],
  );
  const rates: ExchangeRatesInForceAnswer['rates'] = asks.map(() => null);
  for (const r of rows) rates[r.i - 1] = { currency: r.currency, amount: Number(r.amount), rate: r.rate, rate_date: r.rate_date, source: r.source };
  return { legal_currency: base, rates };
}
