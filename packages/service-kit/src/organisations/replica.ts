import type { TenantScope } from '../context.js';
import { sqlMigration } from '../db/migrations.js';
import { sqlRows } from '../db/orm.js';
import { REPLICA_COLUMNS, replicaOfRow, type OrganisationReplica, type ReplicaRow } from './replica-row.js';

export type { OrganisationReplica };

/**
 * Settings owns organisations; every other service keeps a replica of the profile, fed by
 * `settings.organisation.updated`, so a write never has to ask settings (architecture §5). The replica
 * is one table (here, with its reads) and one consumer (events/organisation-replica-consumer.ts),
 * the same in every service that asks for it (`organisationReplica: true` in its definition).
 */
/** Legal currency assumed until an organisation's profile has reached the service. */
export const FALLBACK_LEGAL_CURRENCY = 'CZK';

export const organisationReplicaMigration = sqlMigration(
  'kit_0002_organisation_replica',
  `
create table kit_organisations (
  org_id bigint primary key,
  name text,
  country char(2),
  legal_currency char(3) not null,
  is_vat_payer boolean not null default true,
  profile jsonb not null,
  -- time of the event the row comes from: a late, older event never overwrites a newer one
  source_time timestamptz not null,
  updated_at timestamptz not null default now()
);
`,
);

export async function organisationReplica(scope: TenantScope): Promise<OrganisationReplica | null> {
  const { em, orgId } = scope;
  const [row] = await sqlRows<ReplicaRow>(em, `select ${REPLICA_COLUMNS} from kit_organisations where org_id = ?`, [orgId], { prepared: true });
  return row ? replicaOfRow(orgId, row) : null;
}

export async function legalCurrencyOf(scope: TenantScope, fallback = FALLBACK_LEGAL_CURRENCY): Promise<string> {
  const { em, orgId } = scope;
  return (await organisationReplica(scope))?.legalCurrency ?? fallback;
}
