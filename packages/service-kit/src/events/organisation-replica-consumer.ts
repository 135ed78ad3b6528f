import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { SUBJECTS, type CloudEvent } from '@ledgerline/contracts';
import { sqlRows } from '../db/orm.js';
import { PoisonMessageError, type ConsumerDefinition } from './consumer-definition.js';

/* The consumer that keeps a service's replica of the organisations' profiles (organisations/replica.ts). */

/** The part of the profile every replica reads; the rest is kept as published (a tolerant reader). */
const profileEventSchema = z.looseObject({
  id: z.int().positive().optional(),
  name: z.string().nullish(),
  country: z.string().regex(/^[A-Za-z]{2}$/).nullish(),
  legal_currency: z.string().regex(/^[A-Z]{3}$/),
  is_vat_payer: z.boolean().nullish(),
});

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
