import { sqlMigration } from '@ledgerline/service-kit';

export const repoRateMigrations = [
  sqlMigration(
    'settings_1400_repo_rates',
    `
-- Issue 70. Each organisation's own changes of the CNB two-week repo rate beyond (or over) the
-- history the code ships with: from the bank's history file (imported or fetched) or set by hand.
-- Statutory late-payment interest reads the rate in force on a half-year's last day.
create table repo_rates (
  org_id bigint not null references organisations(id),
  valid_from date not null,
  rate numeric(8,4) not null check (rate between -10 and 100),
  source text not null check (source in ('cnb_file', 'manual')),
  updated_at timestamptz not null default now(),
  primary key (org_id, valid_from)
);
-- The last day an organisation's history is known complete through (the day its file was
-- published, or a change set by hand); the shipped history's own day applies when it is later.
create table repo_rate_coverage (
  org_id bigint primary key references organisations(id),
  known_through date not null,
  updated_at timestamptz not null default now()
);
-- The days REPO_RATES_URL's file was stored (one row a day, whichever replica stored it).
create table repo_rate_fetches (
  fetch_day date primary key,
  changes int not null,
  organisations int not null,
  fetched_at timestamptz not null default now()
);
`,
  ),
];
