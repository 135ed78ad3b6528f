import { sqlMigration } from '@ledgerline/service-kit';

export const taxFilingMigrations = [
  sqlMigration(
    'settings_1200_tax_filing',
    `
-- Issue 57. The filer's data the tax office's forms need and the ledger does not know (tax office,
-- filer type, who signs, the filing period), one row per organisation, validated when set.
create table tax_filing_settings (
  org_id bigint primary key references organisations(id),
  data jsonb not null,
  updated_at timestamptz not null default now()
);
`,
  ),
];
