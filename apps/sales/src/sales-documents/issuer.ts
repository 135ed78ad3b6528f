import type { OrganisationReplica } from '@ledgerline/service-kit';

const ISSUER_FIELDS = ['name', 'reg_no', 'tax_no', 'vat_no', 'eori_no', 'address', 'info_legal', 'config', 'website', 'email', 'phone', 'fb', 'insta'] as const;

/** The `org` issuer object of a document, taken from the replicated profile. */
export function issuerSnapshot(replica: Pick<OrganisationReplica, 'profile'> | null): Record<string, unknown> | null {
  if (!replica) return null;
  const out: Record<string, unknown> = {};
  for (const f of ISSUER_FIELDS) out[f] = replica.profile[f] ?? null;
  return out;
}
