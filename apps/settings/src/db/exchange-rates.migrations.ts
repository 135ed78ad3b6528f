import { sqlMigration } from '@ledgerline/service-kit';

export const exchangeRateMigrations = [
  sqlMigration(
    'settings_1100_exchange_rates',
    `
-- Issue 56. Each organisation's table of rates into its legal currency: the central bank's days
-- it imported (cnb, ecb) and rates it set by hand (manual), one per currency and day. The rate in
-- force on a day is that day's, else the last one before it (the descending index).
create table exchange_rates (
  org_id bigint not null references organisations(id),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  rate_date date not null,
  amount int not null check (amount > 0),
  rate numeric(20,10) not null check (rate > 0),
  source text not null check (source in ('cnb', 'ecb', 'manual')),
  updated_at timestamptz not null default now(),
  primary key (org_id, currency, rate_date)
);
create index exchange_rates_in_force on exchange_rates (org_id, currency, rate_date desc);
`,
  ),
  sqlMigration(
    'settings_1110_exchange_rate_fetches',
    `
-- The days FX_RATES_URL's file was stored (one row a working day, whichever replica stored it).
create table exchange_rate_fetches (
  fetch_day date primary key,
  source text not null,
  rate_date date not null,
  organisations int not null,
  fetched_at timestamptz not null default now()
);
`,
  ),
];
