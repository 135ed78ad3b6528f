import { z } from 'zod';
import { bankCurrencyCode, currencyCode, isoDate, positiveRate } from './common.js';

// --- exchange rates (GET/PUT /v1/settings/exchange-rates…, POST …/import) -------------------------

export const EXCHANGE_RATE_SOURCES = ['cnb', 'ecb', 'manual'] as const;

/** A published or typed currency code: three upper-case letters (a central bank may list codes ISO has retired, e.g. HRK). */
const rateCurrency = z.string().regex(/^[A-Z]{3}$/);

export const exchangeRateSchema = z
  .object({
    currency: rateCurrency.describe('The foreign currency'),
    amount: z.int().min(1).describe('Units of the currency the rate is for (100 for HUF at the Czech National Bank)'),
    rate: positiveRate.describe("The organisation's legal currency for `amount` units of `currency`"),
    rate_date: isoDate.describe('The day the rate was published (or set) for: the date asked for, or the last one before it'),
    source: z.enum(EXCHANGE_RATE_SOURCES).describe('cnb: the Czech National Bank’s fixing; ecb: the ECB’s euro reference rate (turned round); manual: set by hand'),
    base_currency: currencyCode.describe("The organisation's legal currency, the one the rate is in"),
  })
  .meta({ id: 'ExchangeRate', description: 'The exchange rate in force on a day' });
export type ExchangeRate = z.infer<typeof exchangeRateSchema>;

export const exchangeRateQuerySchema = z.object({
  date: isoDate.describe('The day; the rate in force is that day’s, else the last one before it'),
  currency: bankCurrencyCode.optional().describe('One currency; without it, every currency the table knows'),
});

export const exchangeRateTableSchema = z
  .object({
    date: isoDate,
    base_currency: currencyCode,
    entities: z.array(exchangeRateSchema).describe('The rate in force on `date` of each currency (of the one asked for), by currency'),
  })
  .meta({ id: 'ExchangeRateTable', description: 'The exchange rates in force on a day' });
export type ExchangeRateTable = z.infer<typeof exchangeRateTableSchema>;

/** The body of an import: the central bank's file as published. */
export const exchangeRateFileSchema = z.string().describe("The Czech National Bank's daily fixing (text/plain) or the ECB's eurofxref XML (application/xml)");

export const exchangeRateImportSchema = z
  .object({
    source: z.enum(['cnb', 'ecb']),
    base_currency: currencyCode,
    days: z.int().describe('Days the file held (each replaced whole)'),
    rates: z.int().describe('Rates stored'),
    date_from: isoDate,
    date_to: isoDate,
  })
  .meta({ id: 'ExchangeRateImport', description: 'What an imported rate file held' });
export type ExchangeRateImport = z.infer<typeof exchangeRateImportSchema>;

export const exchangeRatePathSchema = z.object({ currency: bankCurrencyCode, date: isoDate });

export const exchangeRateRequestSchema = z
  .object({
    rate: positiveRate.describe("The organisation's legal currency for `amount` units"),
    amount: z.int().min(1).max(1_000_000).optional().describe('Units the rate is for (default 1)'),
  })
  .meta({ id: 'ExchangeRateRequest', description: 'A rate set by hand for one currency and day' });
export type ExchangeRateRequest = z.infer<typeof exchangeRateRequestSchema>;
