import { sqlMigration } from '@ledgerline/service-kit';

/** Compliance evaluations of sales invoices: append-only, the latest per invoice is current. */
export const complianceMigrations = [
  sqlMigration(
    'sales_0200_compliance_records',
    `
create table compliance_records (
  id bigserial primary key,
  org_id bigint not null,
  invoice_id bigint not null references sales_documents(id),
  status text not null check (status in ('pending', 'evaluated', 'blocked')),
  reporting_method text,
  delivery_eligibility text,
  required_action text,
  allowed_actions jsonb,
  blocking_reason text,
  rule_id text,
  failed_checks jsonb not null default '[]',
  evaluated_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index compliance_records_latest on compliance_records (org_id, invoice_id, id desc);
`,
  ),
];
