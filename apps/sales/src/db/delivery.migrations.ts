import { sqlMigration } from '@ledgerline/service-kit';

export const deliveryMigrations = [
  sqlMigration(
    'sales_0100_template_replicas_email_records',
    `
-- Replica of the organisation's templates (settings.template.saved); the newest event wins.
create table template_replicas (
  id bigserial primary key,
  org_id bigint not null,
  template_id bigint not null,
  code text,
  template jsonb not null,
  source_time timestamptz not null,
  updated_at timestamptz not null default now(),
  unique (org_id, template_id)
);
create index template_replicas_code on template_replicas (org_id, code);

-- E-mail records: every attempt to send a document, with its outcome.
create table email_records (
  id bigserial primary key,
  org_id bigint not null,
  document_type text not null check (document_type in ('sales_invoice', 'sales_credit_note')),
  document_id bigint not null,
  document_no text,
  from_address text,
  reply_to text,
  to_address text,
  to_cc text,
  to_bcc text,
  subject text,
  body text,
  include_attachment boolean not null,
  attachments jsonb not null default '[]',
  status text not null check (status in ('sent', 'written', 'failed')),
  error text,
  message_id text,
  created_at timestamptz not null default now()
);
create index email_records_org on email_records (org_id, id desc);
`,
  ),
];
