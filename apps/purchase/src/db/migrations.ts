import { creditAllocationExchangeColumnsSql, attachmentTableSql } from '@ledgerline/posted-documents';
import { sqlMigration } from '@ledgerline/service-kit';

export const migrations = [
  sqlMigration(
    'purchase_0001_documents',
    `
create table purchase_documents (
  id bigserial primary key,
  org_id bigint not null,
  kind text not null check (kind in ('bill', 'vendor_credit')),
  uid uuid not null unique,
  no text not null,
  vendor_doc_no text,
  credited_doc_id bigint references purchase_documents(id),
  credited_doc_no text,
  copy_from_id bigint,
  vendor jsonb not null,
  vendor_name text,
  type jsonb not null,
  currency char(3) not null,
  precision int not null,
  taxes_included boolean not null,
  tax_fx_rate numeric(20,10) not null,
  date_issued date not null,
  date_taxable date,
  date_due date,
  description text,
  rate_format text,
  tax_nexus jsonb,
  payment_reference text,
  bank_account_number text,
  rsn text,
  items jsonb not null,
  taxes jsonb not null,
  subtotal_amount numeric(18,4) not null,
  tax_amount numeric(18,4) not null,
  total_amount numeric(18,4) not null,
  amount_paid numeric(18,4) not null default 0,
  amount_due numeric(18,4) not null,
  payment_status text not null,
  is_locked boolean not null default false,
  input jsonb not null,
  created_at timestamptz not null default now(),
  edited_at timestamptz not null default now(),
  constraint purchase_documents_no unique (org_id, kind, no)
);
create index purchase_documents_org on purchase_documents (org_id, id);
create sequence purchase_line_ids;

create table numbering_counters (
  org_id bigint not null,
  series text not null,
  period text not null,
  last_value bigint not null,
  primary key (org_id, series, period)
);

create table payment_applications (
  id bigserial primary key,
  org_id bigint not null,
  event_id text not null unique,
  document_id bigint not null references purchase_documents(id),
  payment_id text not null,
  source text not null,
  amount numeric(18,4) not null,
  currency char(3) not null,
  applied_at timestamptz not null default now()
);
create index payment_applications_document on payment_applications (org_id, document_id);

create table org_profiles (
  org_id bigint primary key,
  legal_currency char(3) not null,
  updated_at timestamptz not null default now()
);
`,
  ),
  sqlMigration(
    'purchase_0002_kit_organisation_replica',
    `
-- The organisation replica moved to the kit's kit_organisations; the rows move with it. This table
-- never recorded the event time, so the copies count as older than any event still to come.
insert into kit_organisations (org_id, legal_currency, profile, source_time, updated_at)
select org_id, legal_currency, jsonb_build_object('id', org_id, 'legal_currency', legal_currency), '-infinity', updated_at
  from org_profiles
on conflict (org_id) do nothing;
drop table org_profiles;
`,
  ),
  sqlMigration(
    'purchase_0003_einvoice_imports',
    `
-- One row per imported e-invoice: a vendor's document number is imported once per kind (409 on a repeat).
create table einvoice_imports (
  org_id bigint not null,
  kind text not null,
  vendor_key text not null,
  vendor_doc_no text not null,
  document_id bigint not null references purchase_documents(id),
  imported_at timestamptz not null default now(),
  primary key (org_id, kind, vendor_key, vendor_doc_no)
);
`,
  ),
  sqlMigration(
    'purchase_0004_credits_by_credited_bill',
    `
-- A vendor credit sums the earlier credits of its bill; nothing indexed them by the bill, so each
-- credit read every document of the organisation (decision 113). Sales has had this index from
-- the start (sales_documents_credited).
-- (if not exists: an operator with a large table may build it beforehand with create index
-- concurrently, which a migration in a transaction cannot.)
create index if not exists purchase_documents_credited on purchase_documents (credited_doc_id) where credited_doc_id is not null;
`,
  ),
  sqlMigration(
    'purchase_0005_open_documents',
    `
-- Decision 130. A bank payment looks for the open bill it pays among the organisation's open
-- documents only, in id order per currency, not through every document it ever recorded.
create index if not exists purchase_documents_open on purchase_documents (org_id, kind, currency, id) where amount_due > 0;
`,
  ),
  sqlMigration(
    'purchase_0006_json_lines',
    `
-- Decision 131. A document's lines, tax recap and request are written once and read whole: as
-- json they are stored as the text written, where jsonb built a binary form of each on insert
-- and wrote it back out as text on every read. The vendor stays jsonb (statements read its id).
-- (Rewrites the table, holding its lock meanwhile.)
alter table purchase_documents
  alter column items type json using items::json,
  alter column taxes type json using taxes::json,
  alter column input type json using input::json;
`,
  ),
  sqlMigration(
    'purchase_0007_credit_allocations',
    `
-- Decision 148. A vendor credit applied to an open bill of its vendor: both documents' amount
-- paid moved by the amount in the same transaction; a row taken back keeps its removed_at.
create table purchase_credit_allocations (
  id bigserial primary key,
  org_id bigint not null,
  credit_id bigint not null references purchase_documents(id),
  target_id bigint not null references purchase_documents(id),
  amount numeric(18,4) not null check (amount > 0),
  currency char(3) not null,
  date date not null,
  created_at timestamptz not null,
  removed_at timestamptz
);
create index purchase_credit_allocations_credit on purchase_credit_allocations (org_id, credit_id, id);
create index purchase_credit_allocations_target on purchase_credit_allocations (org_id, target_id);
`,
  ),
  sqlMigration(
    'purchase_0008_updated_at',
    `
-- Decision 154. When a document last changed (created, paid, a credit applied), for lists asked
-- for what changed since a client's last sync. Documents that exist already take the time of the
-- migration: a sync from before it reads them once more, never misses one.
alter table purchase_documents add column updated_at timestamptz not null default now();
create index purchase_documents_updated on purchase_documents (org_id, kind, updated_at);
`,
  ),
  sqlMigration(
    'purchase_0009_payment_date',
    `
-- Decision 161. A payment applied to a bill keeps the payment's own day (the event's date), as
-- sales' payments always have: aged payables as they stood at the end of a day add back what was
-- paid after it. Rows applied before keep the day they were applied.
alter table payment_applications add column date date;
update payment_applications set date = applied_at::date;
alter table payment_applications alter column date set not null;
create index payment_applications_date on payment_applications (org_id, date);
`,
  ),
  sqlMigration(
    'purchase_0010_rounding_prepaid',
    `
-- Decision 191. What a received document states beyond its lines: the rounding added to its total
-- with VAT (BT-114; the total includes it and the ledger posts it to its own account) and what it
-- says was paid before it (BT-113; kept as stated, not a payment of ours).
alter table purchase_documents add column rounding_amount numeric(18,4) not null default 0,
  add column prepaid_amount numeric(18,4) not null default 0;
`,
  ),
  sqlMigration(
    'purchase_0011_fx_rate_origin',
    `
-- Decision 205. A foreign-currency document without a stated rate takes the exchange-rate table's
-- rate in force on its tax point date; it says which day's and whose (cnb, ecb, manual; stated).
alter table purchase_documents add column fx_rate_date date, add column fx_rate_source text;
`,
  ),
  sqlMigration(
    'purchase_0012_allocation_exchange_difference',
    `
-- Decision 207. A credit applied to a document converted at another rate settles each at its own
-- legal value; the allocation keeps both and the exchange difference the ledger posts.
${creditAllocationExchangeColumnsSql('purchase_credit_allocations')}
`,
  ),
  sqlMigration(
    'purchase_0013_attachments',
    `
-- Decision 210. Files kept with a document, their bytes in this database with their SHA-256.
${attachmentTableSql('purchase_document_attachments', 'purchase_documents')}
`,
  ),
  sqlMigration(
    'purchase_0014_contacts',
    `
-- Issue 74. The directory's contact a document was made from (its vendor is a copy of it), and a
-- bill's check of its vendor in the VAT payers' register on its day (§109 of the VAT Act).
alter table purchase_documents add column contact_id bigint, add column vendor_check jsonb;
`,
  ),
  sqlMigration(
    'purchase_0015_advance_bills',
    `
-- Decision 237. A vendor's proforma (kind advance: never posted, its payments to 314) and the
-- vendor's tax document on its payment (kind advance_tax_document: input VAT, Dr 343 / Cr 314);
-- a final bill deducts the advance bills it names and settles them.
alter table purchase_documents drop constraint purchase_documents_kind_check;
alter table purchase_documents add constraint purchase_documents_kind_check
  check (kind in ('bill', 'vendor_credit', 'advance', 'advance_tax_document'));
alter table purchase_documents
  add column advance_bill_id bigint,
  add column advance_bill_no text,
  add column advances json,
  add column tax_documents json,
  add column settled_by_id bigint,
  add column settled_by_no text;
create index purchase_documents_advance_bill on purchase_documents (org_id, advance_bill_id) where advance_bill_id is not null;
`,
  ),
  sqlMigration(
    'purchase_0016_payment_orders',
    `
-- Issue 76. The payment order a bill was last put in (finance.payment_order.updated), and whether
-- its item still waits for the bank: while it does and something is left to pay, the bill's
-- payment_status is 'ordered'.
alter table purchase_documents add column payment_order_id bigint, add column payment_order_open boolean not null default false;
`,
  ),
  sqlMigration(
    'purchase_0017_bills_by_vendor_number',
    `
-- Decision 254: a vendor credit naming only the vendor's invoice number (credited_doc_no) finds
-- the bill that recorded it (vendor_doc_no) of the same vendor; without this index that read
-- would go through every document of the organisation. (if not exists: an operator with a large
-- table may build it beforehand with create index concurrently.)
create index if not exists purchase_documents_vendor_doc_no on purchase_documents (org_id, kind, vendor_doc_no) where vendor_doc_no is not null;
`,
  ),
];
