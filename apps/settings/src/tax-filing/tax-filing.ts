import type { TaxFilerAnswer, TaxFilingSettings, TaxFilingSettingsRequest } from '@ledgerline/contracts';
import { getOrganisation } from '../domain/organisations.js';
import { NotFoundError, sqlRows, type TenantScope } from '@ledgerline/service-kit';

/*
 * The filer's data for the tax office's forms (issue 57): kept per organisation as sent (after
 * validation) and answered by GET, for the filings produced from the ledger.
 */

type Stored = Omit<TaxFilingSettings, 'updated_at'>;

const view = (data: Stored, updatedAt: Date | string): TaxFilingSettings => ({ ...data, updated_at: new Date(updatedAt).toISOString() });

async function stored(scope: TenantScope): Promise<TaxFilingSettings | null> {
  const [row] = await sqlRows<{ data: Stored; updated_at: Date }>(scope.em, 'select data, updated_at from tax_filing_settings where org_id = ?', [scope.orgId]);
  return row ? view(row.data, row.updated_at) : null;
}

export async function getTaxFilingSettings(scope: TenantScope): Promise<TaxFilingSettings> {
  const found = await stored(scope);
  if (!found) throw new NotFoundError('The tax filing settings are not set: PUT /v1/settings/tax-filing', 'tax_filing_settings_not_found');
  return found;
}

/** Replaces the settings whole (what is not sent is cleared). */
export async function putTaxFilingSettings(scope: TenantScope, input: TaxFilingSettingsRequest): Promise<TaxFilingSettings> {
  const data: Stored = {
    tax_office: input.tax_office,
    tax_office_workplace: input.tax_office_workplace ?? null,
    filer_type: input.filer_type,
    natural_person: input.natural_person ?? null,
    signatory: input.signatory ?? null,
    prepared_by: input.prepared_by ?? null,
    phone: input.phone ?? null,
    email: input.email ?? null,
    data_box: input.data_box ?? null,
    period: input.period,
    reverse_charge_code: input.reverse_charge_code ?? null,
  };
  const [row] = await sqlRows<{ updated_at: Date }>(
    scope.em,
    `insert into tax_filing_settings (org_id, data, updated_at) values (?, ?::jsonb, now())
     on conflict (org_id) do update set data = excluded.data, updated_at = now() returning updated_at`,
    [scope.orgId, JSON.stringify(data)],
  );
  return view(data, row.updated_at);
}

/** `rpc.settings.tax_filing` (accounting, producing a filing): the organisation as the forms name it, and the filer's settings (null when not set). */
export async function taxFiler(scope: TenantScope): Promise<TaxFilerAnswer> {
  const org = await getOrganisation(scope);
  return {
    organisation: { name: org.name, vat_no: org.vatNo ?? null, country: org.country, address: (org.address as Record<string, unknown> | null) ?? null },
    settings: await stored(scope),
  };
}
