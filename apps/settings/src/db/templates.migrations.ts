import { sqlMigration } from '@ledgerline/service-kit';

export const documentMigrations = [
  sqlMigration(
    'settings_0100_templates_delivery_conditions',
    `
-- Document templates. Saving a template whose code exists in the organisation replaces it.
create table document_templates (
  id bigserial primary key,
  org_id bigint not null references organisations(id),
  code text,
  name text,
  html_template text,
  url text,
  file text,
  design text,
  pdf_options jsonb,
  config jsonb,
  l10n jsonb,
  languages jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index document_templates_code on document_templates (org_id, code) where code is not null;

-- Delivery conditions: the eleven Incoterms 2020 rules, seeded per organisation on first read.
create table delivery_conditions (
  id serial primary key,
  org_id bigint not null references organisations(id),
  code text not null,
  name text not null,
  l10n jsonb not null,
  position int not null,
  unique (org_id, code)
);
`,
  ),
];
