import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An organisation's exchange rate of one currency on one day, into its legal currency. */
export const ExchangeRateSchema = defineEntity({
  name: 'ExchangeRate',
  tableName: 'exchange_rates',
  properties: {
    orgId: p.integer().fieldName('org_id').primary(),
    currency: p.string().primary(),
    rateDate: p.string().fieldName('rate_date').columnType('date').primary(),
    amount: p.integer(),
    rate: p.decimal().columnType('numeric(20,10)'),
    source: p.string().$type<'cnb' | 'ecb' | 'manual'>(),
    updatedAt: p.datetime().fieldName('updated_at').onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type ExchangeRateRow = InferEntity<typeof ExchangeRateSchema>;

/** A working day whose published file FX_RATES_URL gave was stored (by whichever replica). */
export const ExchangeRateFetchSchema = defineEntity({
  name: 'ExchangeRateFetch',
  tableName: 'exchange_rate_fetches',
  properties: {
    fetchDay: p.string().fieldName('fetch_day').columnType('date').primary(),
    source: p.string(),
    rateDate: p.string().fieldName('rate_date').columnType('date'),
    organisations: p.integer(),
    fetchedAt: p.datetime().fieldName('fetched_at').onCreate(() => new Date()),
  },
});

export const exchangeRateEntities = [ExchangeRateSchema, ExchangeRateFetchSchema];
