import { creditAllocationExchangeColumnsSql, attachmentTableSql } from '@ledgerline/posted-documents';
import { sqlMigration } from '@ledgerline/service-kit';
import { deliveryMigrations } from './delivery.migrations.js';
import { complianceMigrations } from './compliance.migrations.js';

export const migrations = [
  sqlMigration(
    'sales_0001_documents_numbering_replica',
    `
-- Replica of the organisation profile (settings.organisation.updated); the issuer snapshot source.
create table organisations (
  org_id bigint primary key,
  name text,
  country char(2),
  legal_currency char(3) not null,
  profile jsonb not null,
  source_time timestamptz not null,
  updated_at timestamptz not null default now()
);

-- Numbering series per organisation and document type; one default per type (seeded on first use).
create table number_series (
  id bigserial primary key,
  org_id bigint not null,
  doc_type text not null check (doc_type in ('sales_invoice', 'sales_credit_note')),
  name text not null,
  mask text not null,
  is_default boolean not null default false,
  created_at timestamptz not null default now()
);
create unique index number_series_one_default on number_series (org_id, doc_type) where is_default;

-- Last counter value per series and period ('2026', '2026-11' or ''); incremented under a row lock
-- in the transaction that stores the document, so numbers are gap-free and unique.
create table number_series_counters (
  series_id bigint not null references number_series(id),
  period_key text not null,
  last_value bigint not null,
  primary key (series_id, period_key)
);

-- Sales invoices and credit notes. Header figures as numeric; the full document as computed once
-- at creation in 'body' (what GET answers and events carry); payment state is kept in columns.
create table sales_documents (
  id bigserial primary key,
  uid uuid not null unique,
  org_id bigint not null,
  doc_type text not null check (doc_type in ('sales_invoice', 'sales_credit_note')),
  no text not null,
  counter_id bigint references number_series(id),
  customer_id bigint,
  customer_name text,
  currency char(3) not null,
  precision smallint not null,
  date_issued date not null,
  date_due date,
  notes text,
  credited_doc_id bigint references sales_documents(id),
  credited_doc_no text,
  subtotal_amount numeric(20,4) not null,
  tax_amount numeric(20,4) not null,
  total_amount numeric(20,4) not null,
  amount_paid numeric(20,4) not null default 0,
  amount_due numeric(20,4) not null,
  payment_status text not null,
  body jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  edited_at timestamptz
);
create unique index sales_documents_no on sales_documents (org_id, doc_type, no);
create index sales_documents_list on sales_documents (org_id, doc_type, id);
create index sales_documents_updated on sales_documents (org_id, doc_type, updated_at);
create index sales_documents_credited on sales_documents (credited_doc_id) where credited_doc_id is not null;

-- Payments applied to documents (finance.payment.matched), one row per event.
create table sales_document_payments (
  id bigserial primary key,
  org_id bigint not null,
  document_id bigint not null references sales_documents(id),
  event_id text not null unique,
  payment_id bigint not null,
  source text not null,
  amount numeric(20,4) not null,
  currency char(3) not null,
  date date not null,
  created_at timestamptz not null default now()
);

-- Catalogue items and price lists (architecture §1).
create table items (
  id bigserial primary key,
  org_id bigint not null,
  sku text,
  name text not null,
  unit jsonb,
  sales_rate numeric(24,10) not null,
  currency char(3) not null,
  tax_rate numeric(9,4),
  gl_account jsonb,
  created_at timestamptz not null default now()
);
create index items_org on items (org_id, id);

create table price_lists (
  id bigserial primary key,
  org_id bigint not null,
  name text not null,
  currency char(3) not null,
  valid_from date,
  valid_to date,
  created_at timestamptz not null default now()
);

create table price_list_rates (
  id bigserial primary key,
  org_id bigint not null,
  price_list_id bigint not null references price_lists(id),
  item_id bigint not null references items(id),
  rate numeric(24,10) not null,
  min_qty numeric(24,10) not null default 0
);
create index price_list_rates_item on price_list_rates (org_id, item_id);
`,
  ),
  ...complianceMigrations,
  ...deliveryMigrations,
  sqlMigration(
    'sales_0300_kit_organisation_replica',
    `
-- The organisation replica moved to the kit's kit_organisations (one table and consumer in every
-- service); the rows move with it, so nothing waits for the next settings event.
insert into kit_organisations (org_id, name, country, legal_currency, is_vat_payer, profile, source_time, updated_at)
select org_id, name, upper(country), legal_currency, coalesce((profile->>'is_vat_payer')::boolean, true), profile, source_time, updated_at
  from organisations
on conflict (org_id) do nothing;
drop table organisations;
`,
  ),
  sqlMigration(
    'sales_0400_price_list_default',
    `
-- A price list applies to a rate lookup that names none only when it is the default of its
-- currency (decision 60): at most one default per organisation and currency.
alter table price_lists add column is_default boolean not null default false;
create unique index price_lists_one_default on price_lists (org_id, currency) where is_default;
`,
  ),
  sqlMigration(
    'sales_0500_documents_by_issue_date',
    `
-- Lists filtered by issue date (a day's invoices) counted every document of the organisation and
-- type row by row: 33 ms over 12,000 invoices, growing with the table. This index answers the
-- count from the index alone and the page in id order within a day.
-- (if not exists: an operator with a large table may build it beforehand with create index
-- concurrently, which a migration in a transaction cannot.)
create index if not exists sales_documents_issued on sales_documents (org_id, doc_type, date_issued, id);
`,
  ),
  sqlMigration(
    'sales_0600_json_bodies_open_documents',
    `
-- Decision 130. A bank payment looks for the open invoice it pays among the organisation's open
-- documents only (this index, in id order per currency), not through every document it ever
-- issued; and by the payment reference's own column, not by reading each candidate's body.
alter table sales_documents add column payment_reference text;
update sales_documents set payment_reference = body->>'payment_reference' where body->>'payment_reference' is not null;
create index if not exists sales_documents_open on sales_documents (org_id, doc_type, currency, id) where amount_due > 0;
-- A body is written once and read whole: as json it is stored as the text it was written in,
-- where jsonb built a binary form of every document on insert and wrote it back out as text on
-- every read. (Rewrites the table, holding its lock meanwhile.)
alter table sales_documents alter column body type json using body::json;
`,
  ),
  sqlMigration(
    'sales_0700_view_is_body',
    `
-- Decision 133. A document whose stored body is still its whole view is answered as the body's
-- text, unparsed. Documents posted before this column answer as they did (false).
alter table sales_documents add column view_is_body boolean not null default false;
-- Whatever changes a figure the view shows, now or in a later version, clears it: the column
-- list names everything the view is made of besides the body's own text.
create function sales_documents_view_changed() returns trigger language plpgsql as $fn$
begin
  new.view_is_body := false;
  return new;
end
$fn$;
create trigger sales_documents_view_changed
  before update of body, amount_paid, amount_due, payment_status, edited_at, date_due on sales_documents
  for each row execute function sales_documents_view_changed();
`,
  ),
  sqlMigration(
    'sales_0800_credit_allocations',
    `
-- Decision 148. A credit note applied to an open invoice of its customer: both documents' amount
-- paid moved by the amount in the same transaction; a row taken back keeps its removed_at.
create table sales_credit_allocations (
  id bigserial primary key,
  org_id bigint not null,
  credit_id bigint not null references sales_documents(id),
  target_id bigint not null references sales_documents(id),
  amount numeric(20,4) not null check (amount > 0),
  currency char(3) not null,
  date date not null,
  created_at timestamptz not null,
  removed_at timestamptz
);
create index sales_credit_allocations_credit on sales_credit_allocations (org_id, credit_id, id);
create index sales_credit_allocations_target on sales_credit_allocations (org_id, target_id);
`,
  ),
  sqlMigration(
    'sales_0900_payments_by_date',
    `
-- Decision 161. Aged receivables as they stood at the end of a day add back what was paid after
-- it: the organisation's payments dated after a day, read by this index.
create index if not exists sales_document_payments_date on sales_document_payments (org_id, date);
`,
  ),
  sqlMigration(
    'sales_1000_credit_allocation_amount',
    `
-- Decision 195. The allocations' amount as purchase's and every document money column have it
-- (numeric(18,4): any amount due fits); the table had numeric(20,4), a drift of two copies of one
-- declaration, now declared once (creditAllocationEntity, creditAllocationTableSql).
alter table sales_credit_allocations alter column amount type numeric(18,4);
`,
  ),
  sqlMigration(
    'sales_1100_allocation_exchange_difference',
    `
-- Decision 207. A credit applied to a document converted at another rate settles each at its own
-- legal value; the allocation keeps both and the exchange difference the ledger posts.
${creditAllocationExchangeColumnsSql('sales_credit_allocations')}
`,
  ),
  sqlMigration(
    'sales_1200_recurring_invoices',
    `
-- Decision 209. An invoice issued every period from a template. next_issue_date is what the
-- scheduler looks for; each issue is one row of recurring_invoice_issues, written in the
-- transaction that posts the invoice, so a period is issued once however many replicas run and
-- wherever a process stops.
create table recurring_invoices (
  id bigserial primary key,
  org_id bigint not null,
  name text,
  template jsonb not null,
  schedule jsonb not null,
  send_email boolean not null default false,
  status text not null check (status in ('active', 'paused', 'finished')),
  paused_reason jsonb,
  next_issue_date date,
  issued_count integer not null default 0,
  last_issued_date date,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index recurring_invoices_org on recurring_invoices (org_id, id);
create index recurring_invoices_due on recurring_invoices (next_issue_date, id) where status = 'active';
create table recurring_invoice_issues (
  recurring_invoice_id bigint not null references recurring_invoices(id) on delete cascade,
  issue_date date not null,
  org_id bigint not null,
  invoice_id bigint not null,
  email_status text check (email_status in ('pending', 'sent', 'failed')),
  email_record_id bigint,
  created_at timestamptz not null default now(),
  primary key (recurring_invoice_id, issue_date)
);
create index recurring_invoice_issues_email on recurring_invoice_issues (created_at) where email_status = 'pending';
alter table sales_documents add column recurring_invoice_id bigint;
create index sales_documents_recurring on sales_documents (org_id, recurring_invoice_id, id) where recurring_invoice_id is not null;
`,
  ),
  sqlMigration(
    'sales_1300_attachments',
    `
-- Decision 210. Files kept with a document, their bytes in this database with their SHA-256.
${attachmentTableSql('sales_document_attachments', 'sales_documents')}
`,
  ),
  sqlMigration(
    'sales_1400_payment_reminders',
    `
-- Decision 212. The reminder levels of an organisation; each day's run (once per organisation and
-- day); its letters (one per customer) and their lines, one per invoice and level, ever.
create table reminder_settings (
  org_id bigint primary key,
  settings jsonb not null,
  updated_at timestamptz not null
);
create table reminder_runs (
  org_id bigint not null,
  run_date date not null,
  created_at timestamptz not null default now(),
  primary key (org_id, run_date)
);
create table reminder_letters (
  id bigserial primary key,
  org_id bigint not null,
  run_date date not null,
  customer_key text not null,
  customer jsonb not null,
  language text not null,
  level int not null,
  to_address text,
  subject text not null,
  body text not null,
  email_status text not null check (email_status in ('pending', 'sent', 'written', 'failed', 'no_recipient')),
  email_error text,
  message_id text,
  sent_at timestamptz,
  created_at timestamptz not null default now()
);
create index reminder_letters_pending on reminder_letters (id) where email_status = 'pending';
create table reminder_lines (
  id bigserial primary key,
  org_id bigint not null,
  letter_id bigint not null references reminder_letters(id),
  invoice_id bigint not null references sales_documents(id),
  invoice_no text not null,
  level int not null check (level between 1 and 5),
  run_date date not null,
  currency char(3) not null,
  amount_due numeric(18,4) not null,
  days_overdue int not null,
  interest_rate numeric(8,4),
  interest numeric(18,4),
  fee numeric(18,4) not null,
  created_at timestamptz not null default now(),
  unique (invoice_id, level)
);
create index reminder_lines_invoice on reminder_lines (org_id, invoice_id, level);
create index reminder_lines_letter on reminder_lines (org_id, letter_id);
`,
  ),
  sqlMigration(
    'sales_1500_customer_list',
    `
-- Decision 213. A customer's documents in the list's order, read from where a cursor stopped.
-- Partial (customer_id is not null, which a customer filter implies): only reads that name a
-- customer can use it, so the planner cannot take it for the reads the other indexes serve.
-- (if not exists: an operator with many documents may build it beforehand with create index
-- concurrently, which does not hold writes back while it builds)
create index if not exists sales_documents_customer on sales_documents (org_id, customer_id, doc_type, id) where customer_id is not null;
`,
  ),
  sqlMigration(
    'sales_1600_item_supply',
    `
-- Issue 70. What a catalogue item supplies, goods or services: a document line naming the item
-- and saying nothing of its own takes it (revenue 604 or 602, EC Sales List code 0 or 3).
alter table items add column supply text check (supply in ('goods', 'services'));
`,
  ),
  sqlMigration(
    'sales_1700_reminder_attempts',
    `
-- Issue 71. A letter's e-mail is tried a bounded number of times with backoff: each try is counted
-- (and committed) before the letter is printed, so a process that dies printing it counts a try
-- and never loops on it; past the last try the letter is failed with its reason.
alter table reminder_letters add column attempts int not null default 0;
alter table reminder_letters add column next_attempt_at timestamptz;
drop index if exists reminder_letters_pending;
create index reminder_letters_pending on reminder_letters (next_attempt_at nulls first, id) where email_status = 'pending';
`,
  ),
  sqlMigration(
    'sales_1800_reminder_letter_pdf',
    `
-- Issue 71. A letter's PDF is kept once it is printed for its e-mail (what the customer got), so
-- GET …/reminders/{id}/pdf answers it as kept, with its SHA-256 as the ETag, instead of printing it
-- again on every read.
alter table reminder_letters add column pdf bytea;
alter table reminder_letters add column pdf_sha256 char(64);
`,
  ),
  sqlMigration(
    'sales_1900_advance_invoices',
    `
-- Issue 75 (decision 236). Proformas and the tax documents of their payments are sales documents
-- of their own types, numbered by their own series; a proforma's settlement or cancellation and a
-- tax document's proforma are columns, so the proforma's view and a final invoice find them
-- without reading bodies.
alter table sales_documents drop constraint if exists sales_documents_doc_type_check;
alter table sales_documents add constraint sales_documents_doc_type_check
  check (doc_type in ('sales_invoice', 'sales_credit_note', 'sales_proforma', 'sales_advance_tax_document'));
alter table number_series drop constraint if exists number_series_doc_type_check;
alter table number_series add constraint number_series_doc_type_check
  check (doc_type in ('sales_invoice', 'sales_credit_note', 'sales_proforma', 'sales_advance_tax_document'));
alter table sales_documents add column proforma_id bigint;
alter table sales_documents add column proforma_state text check (proforma_state in ('settled', 'cancelled'));
alter table sales_documents add column settled_by_id bigint;
alter table sales_documents add column settled_by_no text;
alter table sales_documents add column cancelled_at timestamptz;
create index sales_documents_of_proforma on sales_documents (org_id, proforma_id, id) where proforma_id is not null;
alter table email_records drop constraint if exists email_records_document_type_check;
alter table email_records add constraint email_records_document_type_check
  check (document_type in ('sales_invoice', 'sales_credit_note', 'sales_proforma'));
`,
  ),
  sqlMigration(
    'sales_1910_hosting_orders',
    `
-- Issue 75, part 5. An order from a hosting provider, recorded once per (integration, order id):
-- the request it came with (an invoice's body, its customer resolved), and the proforma and
-- invoice it brought about.
create table hosting_orders (
  id bigserial primary key,
  org_id bigint not null,
  integration_id text not null,
  order_id text not null,
  create_invoice_after text not null check (create_invoice_after in ('order', 'payment')),
  request json not null,
  proforma_id bigint,
  invoice_id bigint,
  created_at timestamptz not null default now(),
  unique (org_id, integration_id, order_id)
);
create index hosting_orders_proforma on hosting_orders (org_id, proforma_id) where proforma_id is not null;
`,
  ),
];
