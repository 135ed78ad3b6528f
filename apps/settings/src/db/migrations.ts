import { sqlMigration } from '@ledgerline/service-kit';
import { documentMigrations } from './templates.migrations.js';
import { integrationMigrations } from './integrations.migrations.js';
import { webhookMigrations } from './webhooks.migrations.js';
import { repoRateMigrations } from './repo-rates.migrations.js';
import { exchangeRateMigrations } from './exchange-rates.migrations.js';
import { taxFilingMigrations } from './tax-filing.migrations.js';
import { contactMigrations } from './contacts.migrations.js';

export const migrations = [
  sqlMigration(
    'settings_0001_organisations_credentials',
    `
create table organisations (
  id bigserial primary key,
  name text not null,
  country char(2) not null,
  legal_currency char(3) not null,
  is_vat_payer boolean not null default true,
  peppol_id text, reg_no text, tax_no text, vat_no text, eori_no text,
  address jsonb not null default '{}',
  info_legal text,
  config jsonb not null default '{}',
  website text, email text, phone text, fb text, insta text,
  bank_account jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create table api_keys (
  id bigserial primary key,
  org_id bigint not null references organisations(id),
  name text not null,
  prefix text not null,
  key_hash text not null unique,
  scopes jsonb not null,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  last_used_at timestamptz
);
create index api_keys_org on api_keys (org_id, id);
create table api_clients (
  id bigserial primary key,
  org_id bigint not null references organisations(id),
  name text,
  client_id text not null unique,
  secret_hash text not null,
  scopes jsonb not null,
  created_at timestamptz not null default now()
);
create table signing_keys (
  kid text primary key,
  public_jwk jsonb not null,
  private_jwk jsonb not null,
  created_at timestamptz not null default now()
);
`,
  ),
  ...integrationMigrations,
  ...documentMigrations,
  sqlMigration(
    'settings_0300_signing_keys_sealed',
    `
-- The private signing key is kept sealed with the secret box (SECRETS_KEY); private_jwk only holds
-- keys written before this migration until the service seals them at boot.
alter table signing_keys add column private_jwk_sealed text;
alter table signing_keys alter column private_jwk drop not null;
alter table signing_keys add constraint signing_keys_private_present check (private_jwk is not null or private_jwk_sealed is not null);
`,
  ),
  sqlMigration(
    'settings_0400_large_enterprise',
    `
-- Compliance rules with earlier mandates for large firms (France 2026) read this from the profile.
alter table organisations add column is_large_enterprise boolean not null default false;
`,
  ),
  sqlMigration(
    'settings_0500_bank_statement_expectation',
    `
-- The account whose statements a bank integration delivers, and their format (issue 17); not secret.
alter table bank_integrations add column statement_account text, add column statement_format text check (statement_format in ('camt053', 'gpc', 'mt940'));
create index bank_integrations_statement_account on bank_integrations (org_id, statement_account) where statement_account is not null;
`,
  ),
  ...webhookMigrations,
  sqlMigration(
    'settings_0700_api_client_lifecycle',
    `
-- Decision 149. An API client can be revoked (the token endpoint refuses it, the gateway its
-- tokens) and shows when it last obtained a token.
alter table api_clients add column revoked_at timestamptz, add column last_used_at timestamptz;
create index api_clients_org on api_clients (org_id, id);
`,
  ),
  sqlMigration(
    'settings_0800_lock_date',
    `
-- Decision 156. The books are closed through this day: the services refuse every write that
-- would post on or before it. Null while every period is open.
alter table organisations add column lock_date date;
`,
  ),
  sqlMigration(
    'settings_0900_closed_years',
    `
-- Decision 173. The years accounting has closed (a closing entry of kind year_end_close), as its
-- events tell: a row per closing entry, marked reopened when the entry reversing it arrives. The
-- lock date is not moved back into a year that is closed. Either event may arrive first: the row
-- is keyed by the closing entry, so the reopening wins in any order.
create table closed_years (
  org_id bigint not null,
  closing_entry_id bigint not null,
  year int not null,
  reopened boolean not null,
  primary key (org_id, closing_entry_id)
);
create index closed_years_open on closed_years (org_id, year) where not reopened;
`,
  ),
  sqlMigration(
    'settings_1000_rounding_increment',
    `
-- Decision 191. Sales documents in the legal currency are rounded to a multiple of this (whole
-- crowns: 1) unless they say otherwise; null rounds nothing.
alter table organisations add column rounding_increment numeric(6,4);
`,
  ),
  ...exchangeRateMigrations,
  ...taxFilingMigrations,
  sqlMigration(
    'settings_1300_default_supply',
    `
-- Issue 70. What a document line supplies when neither it nor its catalogue item says: goods
-- (revenue 604, cost 504) or services (602, 518); null: goods.
alter table organisations add column default_supply text check (default_supply in ('goods', 'services'));
`,
  ),
  ...repoRateMigrations,
  ...contactMigrations,
];
