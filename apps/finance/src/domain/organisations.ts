import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { CloudEvent } from '@ledgerline/contracts';
import { PoisonMessageError } from '@ledgerline/service-kit';
import { OrgProfileSchema } from '../db/entities.js';

/** Legal currency used until the organisation profile has reached finance. */
export const FALLBACK_LEGAL_CURRENCY = 'CZK';

/** The part of `settings.organisation.updated` finance keeps (a tolerant reader). */
const organisationUpdatedSchema = z.looseObject({ id: z.int(), legal_currency: z.string().regex(/^[A-Z]{3}$/) });

export async function legalCurrencyOf(em: EntityManager, orgId: number): Promise<string> {
  const p = await em.findOne(OrgProfileSchema, { orgId });
  return p?.legalCurrency.trim() ?? FALLBACK_LEGAL_CURRENCY;
}

/**
 * Applies `settings.organisation.updated` to the replica. Events carry the whole profile, so the
 * newest wins; an older event arriving late is ignored.
 */
export async function applyOrganisationUpdated(em: EntityManager, event: CloudEvent): Promise<'applied' | 'stale'> {
  if (!event.orgid || !/^\d+$/.test(event.orgid)) throw new PoisonMessageError(`${event.type} ${event.id} carries no organisation`);
  const parsed = organisationUpdatedSchema.safeParse(event.data);
  if (!parsed.success) throw new PoisonMessageError(`${event.type} ${event.id}: not an organisation profile`);
  const orgId = Number(event.orgid);
  const time = new Date(event.time);
  const existing = await em.findOne(OrgProfileSchema, { orgId });
  if (existing && existing.sourceTime > time) return 'stale';
  if (existing) Object.assign(existing, { legalCurrency: parsed.data.legal_currency, sourceTime: time, updatedAt: new Date() });
  else em.create(OrgProfileSchema, { orgId, legalCurrency: parsed.data.legal_currency, sourceTime: time, updatedAt: new Date() });
  await em.flush();
  return 'applied';
}
