import type { EntityManager } from '@mikro-orm/postgresql';
import type { CloudEvent } from '@ledgerline/contracts';
import { OrganisationReplicaSchema, type OrganisationReplica } from '../db/entities.js';

/** Legal currency used until the organisation profile has reached sales. */
export const FALLBACK_LEGAL_CURRENCY = 'CZK';

const ISSUER_FIELDS = ['name', 'reg_no', 'tax_no', 'vat_no', 'eori_no', 'address', 'info_legal', 'config', 'website', 'email', 'phone', 'fb', 'insta'] as const;

/** The `org` issuer object of a document, taken from the replicated profile. */
export function issuerSnapshot(replica: OrganisationReplica | null): Record<string, unknown> | null {
  if (!replica) return null;
  const out: Record<string, unknown> = {};
  for (const f of ISSUER_FIELDS) out[f] = replica.profile[f] ?? null;
  return out;
}

export async function findReplica(em: EntityManager, orgId: number): Promise<OrganisationReplica | null> {
  return em.findOne(OrganisationReplicaSchema, { orgId });
}

/**
 * Applies `settings.organisation.updated` to the local replica. Events carry the whole profile, so
 * the newest one wins; an older event arriving late is ignored.
 */
export async function applyOrganisationUpdated(em: EntityManager, event: CloudEvent): Promise<'applied' | 'stale' | 'ignored'> {
  const data = event.data as Record<string, unknown> | null;
  const orgId = Number(event.orgid ?? data?.id);
  if (!data || !Number.isSafeInteger(orgId) || orgId <= 0) return 'ignored';
  const time = new Date(event.time);
  const legal = typeof data.legal_currency === 'string' && /^[A-Z]{3}$/.test(data.legal_currency) ? data.legal_currency : FALLBACK_LEGAL_CURRENCY;
  const existing = await em.findOne(OrganisationReplicaSchema, { orgId });
  if (existing && existing.sourceTime > time) return 'stale';
  const fields = {
    name: typeof data.name === 'string' ? data.name : null,
    country: typeof data.country === 'string' ? data.country.slice(0, 2) : null,
    legalCurrency: legal,
    profile: data,
    sourceTime: time,
    updatedAt: new Date(),
  };
  if (existing) Object.assign(existing, fields);
  else em.create(OrganisationReplicaSchema, { orgId, ...fields });
  await em.flush();
  return 'applied';
}
