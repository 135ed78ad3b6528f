import { sqlMigration } from '@ledgerline/service-kit';

export const migrations = [
  sqlMigration(
    'finance_0001_bank_transactions_payouts',
    `
create table bank_transactions (
  id bigserial primary key,
  org_id bigint not null,
  account_number text,
  statement_id bigint,
  line_order int,
  description text,
  amount numeric(18,2) not null check (amount <> 0),
  amount_original numeric(18,2),
  payment_amount numeric(18,2),
  date_transaction date not null,
  date_accounting date,
  currency char(3) not null,
  payment_reference text,
  partner_account_number text,
  partner_name text,
  raw_message text,
  contact jsonb,
  paid_record jsonb,
  gl_account jsonb,
  match_status text not null check (match_status in ('matched', 'unmatched', 'none')),
  match jsonb,
  created_at timestamptz not null default now()
);
create index bank_transactions_org on bank_transactions (org_id, id);
-- One statement line is recorded once per organisation (duplicate detection, architecture §2: 409).
create unique index bank_transactions_statement_line on bank_transactions (org_id, account_number, statement_id, line_order)
  where account_number is not null and statement_id is not null and line_order is not null;

create table payouts (
  id bigserial primary key,
  org_id bigint not null,
  uid uuid not null unique,
  version int not null,
  is_locked boolean not null default false,
  currency char(3) not null,
  date_issued date,
  description text,
  total_amount numeric(18,2) not null,
  psp_object_id text,
  no text,
  copy_from_id bigint,
  transaction_type jsonb,
  lines jsonb not null,
  created_at timestamptz not null default now(),
  edited_at timestamptz not null default now()
);
create index payouts_org on payouts (org_id, id);
create index payouts_psp on payouts (org_id, psp_object_id);
create sequence payout_line_ids;
`,
  ),
  sqlMigration(
    'finance_0002_legal_currency',
    `
-- Legal-currency figures of payments (null on rows recorded before this migration).
alter table bank_transactions
  add column legal_currency char(3),
  add column fx_rate numeric(20,10) check (fx_rate > 0),
  add column currency_coef numeric(18,6) check (currency_coef > 0),
  add column fx_rate_source text,
  add column amount_leg numeric(18,2),
  add column settlement_amount_leg numeric(18,2);
alter table payouts
  add column legal_currency char(3),
  add column fx_rate numeric(20,10) check (fx_rate > 0),
  add column currency_coef numeric(18,6) check (currency_coef > 0),
  add column total_amount_leg numeric(18,2);

-- Replica of each organisation's legal currency (settings.organisation.updated).
create table org_profiles (
  org_id bigint primary key,
  legal_currency char(3) not null,
  source_time timestamptz not null,
  updated_at timestamptz not null default now()
);
`,
  ),
  sqlMigration(
    'finance_0003_kit_organisation_replica',
    `
-- The organisation replica moved to the kit's kit_organisations; the rows move with it.
insert into kit_organisations (org_id, legal_currency, profile, source_time, updated_at)
select org_id, legal_currency, jsonb_build_object('id', org_id, 'legal_currency', legal_currency), source_time, updated_at
  from org_profiles
on conflict (org_id) do nothing;
drop table org_profiles;
`,
  ),
  sqlMigration(
    'finance_0004_payments_by_document',
    `
-- Pricing a payment of a foreign-currency document reads what earlier payments of that document
-- applied and cleared; these indexes find them without scanning every payment.
create index bank_transactions_paid_document on bank_transactions (org_id, (match->>'type'), ((match->>'id')::bigint))
  where match_status = 'matched';
create index payouts_lines on payouts using gin (lines jsonb_path_ops);
`,
  ),
  sqlMigration(
    'finance_0005_bank_statements',
    `
-- Imported statement files (issue 17): one row per statement, its entries' outcomes kept as answered.
create table bank_statements (
  id bigserial primary key,
  org_id bigint not null,
  format text not null check (format in ('camt053', 'gpc', 'mt940')),
  account text not null,
  statement_no text not null,
  currency char(3) not null,
  opening_balance numeric(18,2) not null,
  closing_balance numeric(18,2) not null,
  date_from date not null,
  date_to date not null,
  entries jsonb not null,
  created_at timestamptz not null default now()
);
-- a statement (account, number, period end) is imported once
create unique index bank_statements_once on bank_statements (org_id, account, statement_no, date_to);
create index bank_statements_org on bank_statements (org_id, id);

-- the bank's reference of an entry: an account's entry is recorded once, whichever statement brings it
alter table bank_transactions
  add column bank_reference text,
  add column matched_by text,
  add column version int not null default 1;
create unique index bank_transactions_bank_reference on bank_transactions (org_id, account_number, bank_reference)
  where account_number is not null and bank_reference is not null;
-- who paid from an account before (amount matching prefers that customer's invoices)
create index bank_transactions_partner on bank_transactions (org_id, partner_account_number)
  where partner_account_number is not null and match_status = 'matched';
create index bank_transactions_status on bank_transactions (org_id, match_status, id);
create index bank_transactions_statement on bank_transactions (org_id, statement_id) where statement_id is not null;
`,
  ),
  sqlMigration(
    'finance_0006_transactions_by_date',
    `
-- Bank transactions listed by date (a day's or a month's payments) are found by this index, not by
-- reading every transaction of the organisation.
-- (if not exists: an operator with a large table may build it beforehand with create index
-- concurrently, which a migration in a transaction cannot.)
create index if not exists bank_transactions_dated on bank_transactions (org_id, date_transaction, id);
`,
  ),
  sqlMigration(
    'finance_0007_transactions_updated_at',
    `
-- Decision 154. When a bank transaction last changed (recorded, matched later, a match taken
-- back), for lists asked for what changed since a client's last sync; existing rows take the
-- time of the migration (read once more by a sync from before it, never missed).
-- Indexed by the time alone: a sync asks for a recent moment, which the time narrows to the few
-- rows changed since; led by the organisation, it would compete with the dated index for the
-- organisation's lists by date.
alter table bank_transactions add column updated_at timestamptz not null default now();
create index bank_transactions_updated on bank_transactions (updated_at);
`,
  ),
  sqlMigration(
    'finance_0008_entry_identity',
    `
-- Issue 52. A bank reference alone names no entry (banks reuse and blank them): an account's entry
-- is the same entry only when its reference, signed amount and booking day agree, and a statement
-- may hold several such entries (its n-th is occurrence n). Each (account, key, occurrence) is
-- recorded once, whichever statement (or request) brings it.
alter table bank_transactions add column reference_occurrence int not null default 1 check (reference_occurrence >= 1);
drop index bank_transactions_bank_reference;
create unique index bank_transactions_entry_identity on bank_transactions
  (org_id, account_number, bank_reference, amount, (coalesce(date_accounting, date_transaction)), reference_occurrence)
  where account_number is not null and bank_reference is not null;
`,
  ),
  sqlMigration(
    'finance_0009_fx_rate_date',
    `
-- Decision 205. A foreign-currency payment without a rate of its own takes the exchange-rate
-- table's rate in force on its booking day; it keeps that rate's day beside its source.
alter table bank_transactions add column fx_rate_date date;
`,
  ),
  sqlMigration(
    'finance_0010_payment_orders',
    `
-- Issue 76. Bills put into one batch for the bank (pain.001 / ABO). An item is one bill; a bill
-- waits in at most one open order at a time (the partial unique index), and its item is paid once
-- payments of at least its amount are matched to the bill.
create table payment_orders (
  id bigserial primary key,
  org_id bigint not null,
  status text not null check (status in ('open', 'sent', 'completed', 'cancelled')),
  version int not null default 1,
  currency char(3) not null,
  execution_date date not null,
  total_amount numeric(18,2) not null,
  from_account jsonb not null,
  message_id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  sent_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz
);
create index payment_orders_org on payment_orders (org_id, id);
create table payment_order_items (
  org_id bigint not null,
  order_id bigint not null references payment_orders (id),
  line int not null,
  bill_id bigint not null,
  bill_no text not null,
  vendor_doc_no text,
  vendor_name text not null,
  amount numeric(18,2) not null check (amount > 0),
  currency char(3) not null,
  account jsonb not null,
  variable_symbol text,
  constant_symbol text,
  specific_symbol text,
  message text,
  end_to_end_id text not null,
  risk_accepted boolean not null default false,
  status text not null check (status in ('ordered', 'paid', 'cancelled')),
  amount_paid numeric(18,2) not null default 0,
  payment_ids bigint[] not null default '{}',
  primary key (order_id, line)
);
create unique index payment_order_items_open_bill on payment_order_items (org_id, bill_id) where status = 'ordered';
create index payment_order_items_bill on payment_order_items (org_id, bill_id);
`,
  ),
  sqlMigration(
    'finance_0011_fio_integrations',
    `
-- Issue 78. Accounts whose movements are fetched from Fio banka's API: the token sealed (bound to
-- the row), when the bank was last called (one call per token every 30 seconds), the last result
-- and error, and when the next fetch is due. Statements fetched so are of format fio.
alter table bank_statements drop constraint if exists bank_statements_format_check;
alter table bank_statements add constraint bank_statements_format_check check (format in ('camt053', 'gpc', 'mt940', 'fio'));
create table fio_integrations (
  id bigserial primary key,
  org_id bigint not null,
  name text,
  account text,
  token_enc text not null,
  token_last4 text not null,
  interval_minutes int not null check (interval_minutes between 1 and 1440),
  fetch_from date not null,
  next_fetch_at timestamptz not null,
  last_call_at timestamptz,
  last_fetch_at timestamptz,
  last_success_at timestamptz,
  last_result jsonb,
  last_error jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index fio_integrations_org on fio_integrations (org_id, id);
create index fio_integrations_due on fio_integrations (next_fetch_at);
`,
  ),
];
