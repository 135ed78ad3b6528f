import type { TenantScope } from '@ledgerline/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { SUBJECTS, type CloudEvent } from '@ledgerline/contracts';
import { sqlMigration } from '../db/migrations.js';
import { sqlRows } from '../db/orm.js';
import { PoisonMessageError, type ConsumerDefinition } from '../events/consumer.js';
import { REPLICA_COLUMNS, replicaOfRow, type OrganisationReplica, type ReplicaRow } from './replica-row.js';

export type { OrganisationReplica };

/**
 * Settings owns organisations; every other service keeps a replica of the profile, fed by
 * `settings.organisation.updated`, so a write never has to ask settings (architecture §5). The replica
 * is one table and one consumer, the same in every service that asks for it
 * (`organisationReplica: true` in its definition).
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

/** The part of the profile every replica reads; the rest is kept as published (a tolerant reader). */
const profileEventSchema = z.looseObject({
  id: z.int().positive().optional(),
  name: z.string().nullish(),
  country: z.string().regex(/^[A-Za-z]{2}$/).nullish(),
  legal_currency: z.string().regex(/^[A-Z]{3}$/),
  is_vat_payer: z.boolean().nullish(),
});

export async function organisationReplica(scope: TenantScope): Promise<OrganisationReplica | null> {
  const { em, orgId } = scope;
  const [row] = await sqlRows<ReplicaRow>(em, `select ${REPLICA_COLUMNS} from kit_organisations where org_id = ?`, [orgId], { prepared: true });
  return row ? replicaOfRow(orgId, row) : null;
}

export async function legalCurrencyOf(scope: TenantScope, fallback = FALLBACK_LEGAL_CURRENCY): Promise<string> {
  const { em, orgId } = scope;
  return (await organisationReplica(scope))?.legalCurrency ?? fallback;
}

/**
 * Applies `settings.organisation.updated` to the replica. Events carry the whole profile, so the
 * newest one wins; an older event arriving late changes nothing. An event without an
 * organisation or a legal currency can never apply: it is dead-lettered with the reason.
 */
export async function applyOrganisationUpdated(em: EntityManager, event: CloudEvent): Promise<'applied' | 'stale'> {
  const parsed = profileEventSchema.safeParse(event.data);
  if (!parsed.success) {
    throw new PoisonMessageError(`${event.type} ${event.id}: not an organisation profile: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const p = parsed.data;
  const orgId = event.orgid && /^\d+$/.test(event.orgid) ? Number(event.orgid) : p.id;
  if (!orgId) throw new PoisonMessageError(`${event.type} ${event.id} carries no organisation`);
  const rows = await sqlRows(
    em,
    `insert into kit_organisations (org_id, name, country, legal_currency, is_vat_payer, profile, source_time, updated_at)
     values (?, ?, ?, ?, ?, ?::jsonb, ?, now())
     on conflict (org_id) do update set name = excluded.name, country = excluded.country, legal_currency = excluded.legal_currency,
       is_vat_payer = excluded.is_vat_payer, profile = excluded.profile, source_time = excluded.source_time, updated_at = now()
     where kit_organisations.source_time <= excluded.source_time
     returning org_id`,
    [orgId, p.name ?? null, p.country?.toUpperCase() ?? null, p.legal_currency, p.is_vat_payer ?? true, JSON.stringify(event.data), new Date(event.time)],
  );
  return rows.length ? 'applied' : 'stale';
}

/** The consumer that keeps a service's replica; its durable name is `<service>-settings-organisation-updated`. */
export function organisationReplicaConsumer(service: string): ConsumerDefinition {
  return {
    name: `${service}-settings-organisation-updated`,
    subject: SUBJECTS.settingsOrganisationUpdated,
    handle: async (ctx, event) => {
      await applyOrganisationUpdated(ctx.em, event);
    },
  };
}
