import Decimal from 'decimal.js';
import { EURO_LEGACY_CURRENCIES, RPC_SUBJECTS, exchangeRatesInForceAnswerSchema, EXCHANGE_RATE_ASKS, type RateInForce } from '@ledgerline/contracts';
import { BusinessRuleError } from '../errors.js';
import type { TenantContext } from '../context.js';

/*
 * The organisation's exchange-rate table, kept by settings, as the other services read it: a
 * foreign-currency document, payment or statement entry without a stated rate takes the rate in
 * force on its day (that day's, else the last one published before it). One round trip answers
 * any number of (currency, day) pairs.
 */

export type { RateInForce };

/** Where a record's rate to the legal currency came from, as the API says it (`fx_rate_source`). */
export type TableRateSource = RateInForce['source'];

const key = (currency: string, date: string) => `${currency} ${date}`;

/** The rates in force for each (currency, day) asked; a pair the table cannot price is absent from the map. */
export async function tableRates(ctx: Pick<TenantContext, 'ask'>, asks: Array<{ currency: string; date: string }>): Promise<Map<string, RateInForce>> {
  const unique = [...new Map(asks.map((a) => [key(a.currency, a.date), a])).values()];
  const found = new Map<string, RateInForce>();
  for (let i = 0; i < unique.length; i += EXCHANGE_RATE_ASKS) {
    const batch = unique.slice(i, i + EXCHANGE_RATE_ASKS);
    const answer = exchangeRatesInForceAnswerSchema.parse(await ctx.ask(RPC_SUBJECTS.settingsExchangeRates, { asks: batch }));
    batch.forEach((a, j) => {
      const rate = answer.rates[j];
      if (rate) found.set(key(a.currency, a.date), rate);
    });
  }
  return found;
}

/** The looked-up rate of `currency` on `date` from a map `tableRates` answered. */
export function rateFrom(rates: Map<string, RateInForce>, currency: string, date: string): RateInForce | null {
  return rates.get(key(currency, date)) ?? null;
}

/**
 * How a rate of `currency` on `date` is given: the central bank's rates, or one set by hand — the
 * only way for a currency the euro replaced, whose rate follows from the euro's.
 */
export function howToGiveRate(currency: string, date: string, legalCurrency: string): string {
  const legacy = EURO_LEGACY_CURRENCIES[currency];
  return legacy
    ? `${currency} was replaced by the euro (1 EUR = ${legacy.perEuro} ${currency} from ${legacy.since}), so no central bank publishes it: set its rate by hand, the euro's rate to ${legalCurrency} divided by ${legacy.perEuro} (PUT /v1/settings/exchange-rates/${currency}/${date})`
    : `import the central bank's rates (POST /v1/settings/exchange-rates/import) or set one (PUT /v1/settings/exchange-rates/${currency}/${date})`;
}

/** 422 `fx_rate_required` naming the currency, the day and the ways to give a rate. */
export function noRateInForce(currency: string, date: string, legalCurrency: string, path: string): BusinessRuleError {
  const message = `No ${currency} rate to ${legalCurrency} in force on ${date}: give ${path}, ${howToGiveRate(currency, date, legalCurrency)}`;
  return new BusinessRuleError(message, 'fx_rate_required', [{ path, message: `required: the exchange-rate table has no ${currency} rate on or before ${date}`, code: 'fx_rate_required' }]);
}

/** The rate in force of `currency` on `date`, or 422 `fx_rate_required` naming `path`. */
export async function tableRate(ctx: Pick<TenantContext, 'ask'>, p: { currency: string; date: string; legalCurrency: string; path: string }): Promise<RateInForce> {
  const rate = rateFrom(await tableRates(ctx, [p]), p.currency, p.date);
  if (!rate) throw noRateInForce(p.currency, p.date, p.legalCurrency, p.path);
  return rate;
}

/**
 * The rate for one unit of the currency (what a record with no `currency_coef` of its own stores):
 * rate / amount, to the ten decimals a stored rate keeps (exact for the central banks' rates).
 */
export function ratePerUnit(rate: Pick<RateInForce, 'rate' | 'amount'>): string {
  return new Decimal(rate.rate).div(rate.amount).toDecimalPlaces(10, Decimal.ROUND_HALF_UP).toString();
}
