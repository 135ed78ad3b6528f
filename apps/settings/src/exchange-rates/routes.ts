import type { EndpointHandlers } from '@ledgerline/service-kit';
import { importRates, putRate, ratesInForce } from './rates.js';

type ExchangeRateOperations = 'listExchangeRates' | 'importExchangeRates' | 'putExchangeRate';

/** The organisation's exchange-rate table: read on a day, imported from a central bank's file, set by hand. */
export function exchangeRateRoutes(): Pick<EndpointHandlers<'settings'>, ExchangeRateOperations> {
  return {
    listExchangeRates: async ({ ctx, input: { query } }) => ratesInForce(ctx, query.date, query.currency),
    importExchangeRates: async ({ ctx, input }) => importRates(ctx, input.raw),
    putExchangeRate: async ({ ctx, input }) => putRate(ctx, input.params.currency, input.params.date, input.body),
  };
}
