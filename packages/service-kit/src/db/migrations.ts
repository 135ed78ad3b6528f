import { Migration } from '@mikro-orm/migrations';
import type { MigrationObject } from '@mikro-orm/core';

/**
 * A migration written as plain SQL. Names must be unique and sort in the order they apply;
 * services prefix theirs with the service name (e.g. `sales_0001_documents`).
 */
export function sqlMigration(name: string, sql: string): MigrationObject {
  const cls = class extends Migration {
    override up(): void {
      // a migration may build an index over a large table: the pooled sessions' statement
      // timeout is lifted for its transaction (migrations are transactional)
      this.addSql('set local statement_timeout = 0;');
      this.addSql(sql);
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return { name, class: cls };
}

/** Tables the kit itself needs in every service database: outbox, inbox, idempotency keys. */
export const kitMigrations: MigrationObject[] = [
  sqlMigration(
    'kit_0001_outbox_inbox_idempotency',
    `
create table kit_outbox (
  id bigserial primary key,
  event_id uuid not null unique,
  subject text not null,
  type text not null,
  org_id bigint,
  envelope jsonb not null,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  attempts int not null default 0,
  last_error text
);
create index kit_outbox_unsent on kit_outbox (id) where sent_at is null;

create table kit_inbox (
  consumer text not null,
  event_id text not null,
  subject text not null,
  processed_at timestamptz not null default now(),
  primary key (consumer, event_id)
);

create table kit_idempotency (
  org_id bigint not null,
  idem_key text not null,
  method text not null,
  path text not null,
  request_hash text not null,
  response_status int not null,
  response_headers jsonb not null,
  response_body text not null,
  created_at timestamptz not null default now(),
  primary key (org_id, idem_key)
);
create index kit_idempotency_created on kit_idempotency (created_at);
`,
  ),
  sqlMigration(
    'kit_0002_idempotency_per_credential',
    `
-- An Idempotency-Key belongs to the credential that sent it: another credential of the same
-- organisation neither replays its answer nor collides with it. Rows written before this
-- migration have no credential and are never replayed again (they expire within 24 hours).
alter table kit_idempotency add column credential_id text not null default '';
alter table kit_idempotency add column secret_bearing boolean not null default false;
alter table kit_idempotency drop constraint kit_idempotency_pkey;
alter table kit_idempotency add primary key (org_id, credential_id, idem_key);
`,
  ),
  sqlMigration(
    'kit_0003_retention_indexes',
    `
-- The retention sweep deletes inbox rows by age and sent outbox rows by send time in batches.
create index kit_inbox_processed on kit_inbox (processed_at);
create index kit_outbox_sent on kit_outbox (sent_at) where sent_at is not null;
`,
  ),
  sqlMigration(
    'kit_0004_outbox_envelope_text',
    `
-- The envelope is kept as the exact text the relay publishes (no jsonb parse on insert, no
-- parse and re-serialisation on publish); the trace context the relay puts in a header has its
-- own column, so the relay never reads the envelope.
alter table kit_outbox alter column envelope type text using envelope::text;
alter table kit_outbox add column traceparent text;
update kit_outbox set traceparent = envelope::jsonb->>'traceparent' where sent_at is null;
`,
  ),
  sqlMigration(
    'kit_0005_outbox_resource',
    `
-- The resource an event is about (its CloudEvents subject), which the relay sends in the
-- message's ce-subject header: a consumer orders a resource's events, and an integration can
-- route them, without parsing the envelope. Rows written before it publish without the header.
alter table kit_outbox add column resource text;
`,
  ),
  sqlMigration(
    'kit_0006_audit_trail',
    `
-- Decision 211. Every write through the API, recorded in the transaction of the write; the chainer
-- then gives each organisation's records their place in a hash chain (seq, prev_hash, hash), and
-- kit_audit_heads keeps where each chain ends, so a changed, deleted or cut-off record is found.
create table kit_audit_events (
  id bigserial primary key,
  org_id bigint not null,
  recorded_at timestamptz not null default now(),
  credential_type text not null,
  credential_id text not null,
  request_id text not null,
  operation text not null,
  method text not null,
  path text not null,
  resource_type text not null,
  resource_id text,
  status int not null,
  before jsonb,
  after jsonb,
  changed_fields text[] not null default '{}',
  seq bigint,
  prev_hash char(64),
  hash char(64),
  unique (org_id, seq)
);
create index kit_audit_events_unchained on kit_audit_events (id) where hash is null;
create index kit_audit_events_org_time on kit_audit_events (org_id, recorded_at desc, id desc);
create index kit_audit_events_resource on kit_audit_events (org_id, resource_type, resource_id);
-- Append-only: a record's content never changes; the chainer only fills in seq, prev_hash and hash
-- once. (Whoever can disable the trigger can change a row, which the chain then shows.)
create function kit_audit_events_append_only() returns trigger language plpgsql as $fn$
begin
  if (new.id, new.org_id, new.recorded_at, new.credential_type, new.credential_id, new.request_id, new.operation, new.method, new.path,
      new.resource_type, new.resource_id, new.status, new.before::text, new.after::text, new.changed_fields)
     is distinct from
     (old.id, old.org_id, old.recorded_at, old.credential_type, old.credential_id, old.request_id, old.operation, old.method, old.path,
      old.resource_type, old.resource_id, old.status, old.before::text, old.after::text, old.changed_fields)
     or (old.hash is not null and (new.seq, new.prev_hash, new.hash) is distinct from (old.seq, old.prev_hash, old.hash)) then
    raise exception 'audit records are append-only' using errcode = 'insufficient_privilege';
  end if;
  return new;
end
$fn$;
create trigger kit_audit_events_append_only before update on kit_audit_events for each row execute function kit_audit_events_append_only();
create table kit_audit_heads (
  org_id bigint primary key,
  last_seq bigint not null,
  last_hash char(64) not null,
  updated_at timestamptz not null default now()
);
`,
  ),
  sqlMigration(
    'kit_0007_live_sql',
    `
-- Decision 233. The live definitions of a service's database functions and triggers, kept as
-- .sql files and applied again whenever a file's text changes: which checksum of each is in force.
create table kit_live_sql (
  name text primary key,
  checksum char(64) not null,
  applied_at timestamptz not null default now()
);
`,
  ),
  sqlMigration(
    'kit_0008_audit_append_only_by_column',
    `
-- Issue 79. The chainer's update of every record (seq, prev_hash, hash) ran the append-only check,
-- which wrote the record's before and after out as text twice each: 43 µs a record against 11
-- without it. A trigger of columns fires only for an UPDATE that names one of them, so the
-- content's check now fires for whatever could change the content and not for the chainer's
-- update, whose columns have a check of their own: filled in once.
drop trigger kit_audit_events_append_only on kit_audit_events;
create trigger kit_audit_events_append_only
  before update of id, org_id, recorded_at, credential_type, credential_id, request_id, operation, method, path,
    resource_type, resource_id, status, before, after, changed_fields
  on kit_audit_events for each row execute function kit_audit_events_append_only();
create function kit_audit_events_chained_once() returns trigger language plpgsql as $fn$
begin
  if old.hash is not null and (new.seq, new.prev_hash, new.hash) is distinct from (old.seq, old.prev_hash, old.hash) then
    raise exception 'audit records are append-only' using errcode = 'insufficient_privilege';
  end if;
  return new;
end
$fn$;
create trigger kit_audit_events_chained_once before update of seq, prev_hash, hash
  on kit_audit_events for each row execute function kit_audit_events_chained_once();
`,
  ),
];
