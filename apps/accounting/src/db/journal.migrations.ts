import { sqlMigration } from '@ledgerline/service-kit';

/** Manual journal entries and their numbering (decisions 165, 170). */
export const journalMigrations = [
  // the entries themselves; their postings are ledger entries like any document's, with
  // source_type journal_entry
  sqlMigration(
    'accounting_0009_journal_entries',
    `
create table journal_entries (
  id bigserial primary key,
  org_id bigint not null,
  no text not null,
  date_posting date not null,
  description text not null,
  reference text,
  currency text not null,
  total numeric(18,2) not null check (total > 0),
  lines jsonb not null,
  reverses_id bigint references journal_entries(id),
  reversed_by_id bigint references journal_entries(id),
  created_at timestamptz not null default now(),
  unique (org_id, no),
  -- an entry is reversed at most once, whatever races
  unique (org_id, reverses_id)
);
create index journal_entries_by_day on journal_entries (org_id, date_posting, id);

-- the last number given per organisation and year; taken in the entry's own transaction, so a
-- refused entry gives its number back and the series has no gaps
create table journal_entry_numbers (
  org_id bigint not null,
  year int not null,
  last int not null,
  primary key (org_id, year)
);
`,
  ),
  // who posted a journal entry: the credential the request came with (decision 165)
  sqlMigration(
    'accounting_0010_journal_entry_author',
    `alter table journal_entries add column created_by text not null default 'unknown';
     alter table journal_entries alter column created_by drop default;`,
  ),
  // what posted an entry: an accountant, or the closing of a year (decision 170)
  sqlMigration(
    'accounting_0011_journal_entry_kind',
    `alter table journal_entries add column kind text not null default 'manual' check (kind in ('manual', 'year_end_close'));`,
  ),
  // a revaluation of foreign-currency items and its reversal (decision 206), what it revalued, once
  // per day; the exchange difference of a set-off at different rates (decision 207)
  sqlMigration(
    'accounting_0013_fx_revaluations',
    `alter table journal_entries drop constraint journal_entries_kind_check;
     alter table journal_entries add constraint journal_entries_kind_check check (kind in ('manual', 'year_end_close', 'fx_revaluation', 'fx_settlement'));
     create table fx_revaluations (
       org_id bigint not null,
       date date not null,
       currency text not null,
       gain numeric(18,2) not null,
       loss numeric(18,2) not null,
       lines jsonb not null,
       journal_entry_id bigint,
       reversal_id bigint,
       created_at timestamptz not null default now(),
       created_by text not null,
       primary key (org_id, date)
     );`,
  ),
  // every filing produced for the tax office, as produced (issue 57): what was filed, and what a follow-up compares with
  sqlMigration(
    'accounting_0014_tax_filings',
    `create table tax_filings (
       id bigserial primary key,
       org_id bigint not null,
       form text not null check (form in ('DPHKH1', 'DPHDP3', 'DPHSHV')),
       date_from date not null,
       date_to date not null,
       kind text not null,
       tax numeric(18,2),
       xml text not null,
       sha256 text not null,
       created_at timestamptz not null default now(),
       created_by text not null
     );
     create index tax_filings_period on tax_filings (org_id, form, date_from, id desc);`,
  ),
  // fixed assets (issue 77): the register, what of each is posted, and one depreciation run a month
  sqlMigration(
    'accounting_0017_fixed_assets',
    `alter table journal_entries drop constraint journal_entries_kind_check;
     alter table journal_entries add constraint journal_entries_kind_check
       check (kind in ('manual', 'year_end_close', 'fx_revaluation', 'fx_settlement', 'depreciation', 'fixed_asset'));
     create table fixed_assets (
       id bigserial primary key,
       org_id bigint not null,
       name text not null,
       inventory_number text not null,
       acquisition_cost numeric(18,2) not null check (acquisition_cost > 0),
       date_acquired date not null,
       date_in_use date not null,
       asset_account text not null,
       accumulated_account text not null,
       expense_account text not null,
       accounting_months int not null,
       tax_group int not null,
       tax_method text not null,
       first_year_increase int not null default 0,
       interrupted_years int[] not null default '{}',
       improvements jsonb not null default '[]',
       bill_id bigint,
       in_use_entry_id bigint,
       status text not null default 'active' check (status in ('active', 'disposed')),
       disposal jsonb,
       created_at timestamptz not null default now(),
       updated_at timestamptz not null default now(),
       unique (org_id, inventory_number)
     );
     create table depreciation_runs (
       id bigserial primary key,
       org_id bigint not null,
       period text not null,
       total numeric(18,2) not null,
       journal_entry_id bigint not null,
       created_at timestamptz not null default now(),
       unique (org_id, period)
     );
     -- every amount of accounting depreciation posted for an asset: by a run, or at its disposal
     create table asset_depreciation_postings (
       org_id bigint not null,
       asset_id bigint not null references fixed_assets (id),
       period text not null,
       amount numeric(18,2) not null,
       run_id bigint references depreciation_runs (id),
       journal_entry_id bigint not null,
       primary key (asset_id, period)
     );
     create index asset_depreciation_postings_run on asset_depreciation_postings (org_id, run_id);`,
  ),
];
