import { sqlMigration } from '@ledgerline/service-kit';
import { journalMigrations } from './journal.migrations.js';
import { ledgerFunctionMigrations } from './ledger-functions.migrations.js';
import { laterLedgerFunctionMigrations } from './ledger-functions-later.migrations.js';

/**
 * The ledger. Append-only: rows are never updated or deleted (a trigger refuses it; the only
 * exception is a ledger rebuild, which sets `ledger.rebuild = on` for its own transaction), and a
 * deferred constraint trigger refuses, at commit, any accounting transaction whose rows do not
 * balance (Σ debit = Σ credit), so no code path can store an unbalanced entry.
 */
const ledgerMigrations = [
  sqlMigration(
    'accounting_0001_ledger',
    `
create table gl_accounts (
  id bigserial primary key,
  org_id bigint not null,
  number text not null,
  name_cs text not null,
  name_en text not null,
  description text,
  unique (org_id, number)
);

create table books (
  org_id bigint not null,
  id bigint not null,
  name text not null,
  primary key (org_id, id)
);

create table accounting_transactions (
  id bigserial primary key,
  uid uuid not null,
  org_id bigint not null,
  book_id bigint not null,
  type text not null,
  source_type text not null,
  source_id bigint not null,
  source_version int not null default 1,
  entry_kind text not null default 'posting' check (entry_kind in ('posting', 'reversal')),
  source_event_id text,
  reverses_id bigint references accounting_transactions(id),
  accounting_status text not null default 'posted' check (accounting_status in ('posted', 'reversed')),
  no text,
  vendor_doc_no text,
  credited_doc_no text,
  payment_reference text,
  description text,
  date_issued date,
  date_due date,
  date_posting date not null,
  date_taxable date,
  date_tax_applied date,
  currency text not null,
  legal_currency text not null,
  precision int not null default 2,
  transaction_type jsonb,
  contact jsonb,
  bank_account jsonb,
  tax_nexus jsonb,
  paid_record jsonb,
  fx_rates jsonb not null default '[]',
  tax_deduction_ratio numeric(18,6),
  net_deduction_ratio numeric(18,6),
  amount_paid numeric(18,2),
  amount_due numeric(18,2),
  total numeric(18,2) not null,
  created_at timestamptz not null default now(),
  edited_at timestamptz,
  unique (org_id, source_type, source_id, source_version, entry_kind),
  unique (org_id, uid)
);
create index accounting_transactions_org_date on accounting_transactions (org_id, date_posting, id);

create table ledger_rows (
  id bigserial primary key,
  org_id bigint not null,
  transaction_id bigint not null references accounting_transactions(id),
  book_id bigint not null,
  ord int not null,
  role text not null,
  date_posting date not null,
  gl_account_number text not null,
  debit numeric(18,2) not null default 0 check (debit >= 0),
  credit numeric(18,2) not null default 0 check (credit >= 0),
  description text,
  currency text,
  payment_amount numeric(18,2),
  payment_reference text,
  contact jsonb,
  paid_record jsonb,
  fx_rates jsonb,
  tax_deduction_ratio numeric(18,6),
  net_deduction_ratio numeric(18,6)
);
create index ledger_rows_tb on ledger_rows (org_id, book_id, date_posting, gl_account_number) include (debit, credit);
create index ledger_rows_tx on ledger_rows (transaction_id);

create table ledger_tax_rows (
  id bigserial primary key,
  org_id bigint not null,
  transaction_id bigint not null references accounting_transactions(id),
  row_id bigint not null references ledger_rows(id),
  ord int not null,
  gl_account_number text not null,
  debit numeric(18,2) not null default 0,
  credit numeric(18,2) not null default 0,
  description text,
  currency text,
  tax_rate numeric(9,4),
  tax_rate_rc numeric(9,4),
  is_reverse_charge boolean not null default false,
  tax_index int,
  tax_code text,
  tax_name text,
  tax_base_in numeric(18,2), tax_base_in_leg numeric(18,2),
  tax_base_out numeric(18,2), tax_base_out_leg numeric(18,2),
  tax_amount_in numeric(18,2), tax_amount_in_leg numeric(18,2),
  tax_amount_claim numeric(18,2), tax_amount_claim_leg numeric(18,2),
  tax_amount_out numeric(18,2), tax_amount_out_leg numeric(18,2),
  tax_return_base_in text, tax_return_base_out text,
  tax_return_amount_claim text, tax_return_amount_out text,
  tax_control_statement text,
  tax_eu_sales_report text,
  tax_deduction_ratio numeric(18,6),
  net_deduction_ratio numeric(18,6)
);
create index ledger_tax_rows_tx on ledger_tax_rows (transaction_id);

-- Σ debit = Σ credit per accounting transaction, checked at commit.
create function ledger_check_balance() returns trigger language plpgsql as $fn$
declare
  tx bigint := coalesce(new.transaction_id, old.transaction_id);
  d numeric; c numeric;
begin
  select coalesce(sum(debit), 0), coalesce(sum(credit), 0) into d, c from ledger_rows where transaction_id = tx;
  if d <> c then
    raise exception 'accounting transaction % does not balance: debit % <> credit %', tx, d, c
      using errcode = '23514', constraint = 'ledger_balanced';
  end if;
  return null;
end $fn$;
create constraint trigger ledger_balanced after insert or update or delete on ledger_rows
  deferrable initially deferred for each row execute function ledger_check_balance();

-- Append-only: amounts and rows are never changed or removed (a rebuild excepted).
create function ledger_append_only() returns trigger language plpgsql as $fn$
begin
  if coalesce(current_setting('ledger.rebuild', true), '') = 'on' then
    return coalesce(new, old);
  end if;
  raise exception 'the ledger is append-only: % on % is refused', tg_op, tg_table_name using errcode = '55000';
end $fn$;
create trigger ledger_rows_append_only before update or delete on ledger_rows
  for each row execute function ledger_append_only();
create trigger ledger_tax_rows_append_only before update or delete on ledger_tax_rows
  for each row execute function ledger_append_only();

-- On a transaction header only the status may change (posted → reversed) and edited_at with it.
create function accounting_transaction_guard() returns trigger language plpgsql as $fn$
begin
  if coalesce(current_setting('ledger.rebuild', true), '') = 'on' then
    return coalesce(new, old);
  end if;
  if tg_op = 'DELETE' then
    raise exception 'the ledger is append-only: accounting transactions are never deleted' using errcode = '55000';
  end if;
  if (to_jsonb(new) - 'accounting_status' - 'edited_at') <> (to_jsonb(old) - 'accounting_status' - 'edited_at') then
    raise exception 'the ledger is append-only: only accounting_status may change' using errcode = '55000';
  end if;
  return new;
end $fn$;
create trigger accounting_transactions_guard before update or delete on accounting_transactions
  for each row execute function accounting_transaction_guard();
`,
  ),
  sqlMigration(
    'accounting_0002_organisation_profiles',
    `
-- Local replica of the organisation profile (settings.organisation.updated): the legal currency
-- and country the ledger posts and reports in.
create table organisation_profiles (
  org_id bigint primary key,
  country text not null,
  legal_currency text not null,
  is_vat_payer boolean not null default true,
  updated_at timestamptz not null default now()
);
`,
  ),
  sqlMigration(
    'accounting_0003_kit_organisation_replica',
    `
-- The organisation replica moved to the kit's kit_organisations; the rows move with it. This table
-- never recorded the event time, so the copies count as older than any event still to come.
insert into kit_organisations (org_id, country, legal_currency, is_vat_payer, profile, source_time, updated_at)
select org_id, upper(country), legal_currency, is_vat_payer,
       jsonb_build_object('id', org_id, 'country', upper(country), 'legal_currency', legal_currency, 'is_vat_payer', is_vat_payer),
       '-infinity', updated_at
  from organisation_profiles
on conflict (org_id) do nothing;
drop table organisation_profiles;
`,
  ),
  sqlMigration(
    'accounting_0018_entry_views',
    `
-- Each posted entry's view as GET /v1/accounting/transactions answers it, written once at posting
-- (decision 260): a page reads one text per entry instead of its header's, rows' and tax rows'
-- sixteen thousand values. What changes after posting is not in it but marked: the entry's status
-- and edited_at (its header's), each account's name (the chart's, in the reader's language). An
-- entry without one (posted before this, or by a rebuild) is built from its rows as before.
create table ledger_entry_views (
  transaction_id bigint primary key,
  org_id bigint not null,
  view text not null
);
`,
  ),
  sqlMigration(
    'accounting_0019_rows_by_day_and_account_in_text_order',
    `
-- Decision 271. Every statement that picks ledger rows by account compares the numbers as strings
-- in byte order (collate "C": 343 and [500;599] mean the same whatever the database's collation),
-- and an index column of the database's own collation cannot answer such a comparison: the
-- account ledger of 311 read every account's rows of each day from the table and threw away four
-- in five (a 500-line page of a year: 10 045 rows read for 1 827, 41 ms cold, 11-16 ms warm;
-- 10 ms and 6.6 ms from this index). The same columns, the account's in byte order: the
-- trial balance's and the day's reads use it as they used the one it replaces.
-- (if not exists: an operator with a large ledger may build it beforehand with create index
-- concurrently, which a migration in a transaction cannot; 12 s for ten million rows.)
create index if not exists ledger_rows_day_account on ledger_rows (org_id, book_id, date_posting, gl_account_number collate "C") include (debit, credit);
drop index if exists ledger_rows_tb;
`,
  ),
  sqlMigration(
    'accounting_0020_day_sums_by_account',
    `
-- Decision 271. An account's ledger sums the account's day sums before and within its period for
-- its opening balance and totals; the day sums are keyed by day first, so that read went through
-- every account's days (300 accounts over five years: 540 000 sums read for 1 800, 50 ms a page;
-- from this index 0.5 ms). By account, in byte order as the reads compare it, then day; the
-- amounts included, so the sums are read from the index alone. The reports by day (the trial
-- balance, the statements) keep the primary key.
create index if not exists ledger_day_balances_account on ledger_day_balances (org_id, book_id, gl_account_number collate "C", date_posting) include (debit, credit, lines);
`,
  ),
];

/** Every migration of the service, in the order of their names (the order they ran in). */
export const migrations = [...ledgerMigrations, ...ledgerFunctionMigrations, ...laterLedgerFunctionMigrations, ...journalMigrations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
