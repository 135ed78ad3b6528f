import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows } from '@ledgerline/service-kit';

/**
 * The ledger's replica of each organisation's profile (from settings.organisation.updated): the
 * legal currency the ledger is kept in and the country whose VAT defaults apply.
 */
export interface OrganisationProfile {
  country: string;
  legalCurrency: string;
  isVatPayer: boolean;
}

async function exec<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  return sqlRows<T>(em, sql, params);
}

export async function saveOrganisationProfile(em: EntityManager, orgId: number, p: OrganisationProfile): Promise<void> {
  await exec(
    em,
    `insert into organisation_profiles (org_id, country, legal_currency, is_vat_payer, updated_at) values (?, ?, ?, ?, now())
     on conflict (org_id) do update set country = excluded.country, legal_currency = excluded.legal_currency,
       is_vat_payer = excluded.is_vat_payer, updated_at = now()`,
    [orgId, p.country.toUpperCase(), p.legalCurrency, p.isVatPayer],
  );
}

export async function organisationProfile(em: EntityManager, orgId: number): Promise<OrganisationProfile | null> {
  const rows = await exec<{ country: string; legal_currency: string; is_vat_payer: boolean }>(
    em,
    'select country, legal_currency, is_vat_payer from organisation_profiles where org_id = ?',
    [orgId],
  );
  return rows[0] ? { country: rows[0].country, legalCurrency: rows[0].legal_currency, isVatPayer: rows[0].is_vat_payer } : null;
}
