import { sqlMigration } from '@ledgerline/service-kit';

/**
 * Issue 74: the directory of customers and vendors, and the answers of the public registers it is
 * filled and checked from (kept with the moment they were read: an answer is public data, shared by
 * every organisation, and says how old it is when it is served again).
 */
export const contactMigrations = [
  sqlMigration(
    'settings_1400_contacts',
    `
create table contacts (
  id bigserial primary key,
  org_id bigint not null references organisations(id),
  business_name text not null,
  reg_no text,
  vat_no text,
  peppol_id text,
  email text,
  details jsonb not null default '{}',
  archived boolean not null default false,
  used boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index contacts_org on contacts (org_id, archived, id);
create index contacts_vat_no on contacts (org_id, vat_no) where vat_no is not null;
create index contacts_peppol_id on contacts (org_id, peppol_id) where peppol_id is not null;
create index contacts_reg_no on contacts (org_id, reg_no) where reg_no is not null;

create table register_answers (
  register text not null check (register in ('ares', 'vies', 'vat_payers')),
  key text not null,
  answer jsonb not null,
  read_at timestamptz not null,
  primary key (register, key)
);
`,
  ),
];
