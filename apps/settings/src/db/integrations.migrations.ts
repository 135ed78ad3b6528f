import { sqlMigration } from '@ledgerline/service-kit';

/**
 * Integrations (PUT /v1/settings/integrations/cz/hosting/{id} hosting provider, POST /v1/settings/integrations/sk.bank_a bank). Secrets (`*_enc`) are AES-256-GCM sealed by the
 * service before they reach the database; no plaintext secret column exists.
 */
export const integrationMigrations = [
  sqlMigration(
    'settings_0200_integrations',
    `
create table hosting_integrations (
  id bigserial primary key,
  org_id bigint not null references organisations(id),
  integration_id text not null,
  name text,
  source text not null check (source in ('MANUAL', 'MARKETPLACE')),
  config jsonb not null,
  api_url text,
  api_key_enc text,
  signature_enc text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index hosting_integrations_id on hosting_integrations (org_id, integration_id);

create table bank_integrations (
  id bigserial primary key,
  org_id bigint not null references organisations(id),
  provider text not null,
  key text,
  type text not null,
  provider_key text,
  name text,
  config_enc text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index bank_integrations_key on bank_integrations (org_id, provider, key) where key is not null;
`,
  ),
];
