import { sqlMigration } from '@ledgerline/service-kit';

/**
 * Webhook endpoints and their deliveries. Secrets are sealed before they reach the database; a
 * delivery keeps the exact body it signs, and at most 1 KB of each answer.
 */
export const webhookMigrations = [
  sqlMigration(
    'settings_0500_webhooks',
    `
create table webhook_endpoints (
  id bigserial primary key,
  org_id bigint not null references organisations(id),
  url text not null,
  events jsonb not null,
  description text,
  secret_sealed text not null,
  previous_secret_sealed text,
  previous_secret_until timestamptz,
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  disabled_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_org on webhook_endpoints (org_id) where status = 'enabled';

create table webhook_deliveries (
  id bigserial primary key,
  org_id bigint not null,
  endpoint_id bigint not null references webhook_endpoints(id) on delete cascade,
  event_id uuid not null,
  event_type text not null,
  resource text,
  payload text not null,
  status text not null default 'pending' check (status in ('pending', 'delivering', 'succeeded', 'failed')),
  attempts int not null default 0,
  next_attempt_at timestamptz,
  last_status_code int,
  last_duration_ms int,
  last_error text,
  last_response text check (octet_length(last_response) <= 1024),
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  unique (endpoint_id, event_id)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status in ('pending', 'delivering');
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, id desc);
create index webhook_deliveries_resource on webhook_deliveries (endpoint_id, resource, id) where status in ('pending', 'delivering');
`,
  ),
  sqlMigration(
    'settings_0501_webhook_owner',
    `
-- Issue 52: the credential on whose behalf an endpoint delivers (key:<id>, client:<client_id>);
-- null for endpoints saved before, which keep delivering until they are changed.
alter table webhook_endpoints add column owner text;
`,
  ),
];
