import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export interface HostingConfig {
  is_tax_payer?: boolean;
  taxes_included?: boolean;
  auto_send_invoice?: boolean;
  create_invoice_after?: string;
  numbering_source?: string;
  numbering_mask?: string;
}

export const HostingIntegrationSchema = defineEntity({
  name: 'HostingIntegration',
  tableName: 'hosting_integrations',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    integrationId: p.string().fieldName('integration_id'),
    name: p.string().nullable(),
    source: p.string().$type<'MANUAL' | 'MARKETPLACE'>(),
    config: p.json<HostingConfig>(),
    apiUrl: p.string().nullable(),
    apiKeyEnc: p.text().nullable().fieldName('api_key_enc'),
    signatureEnc: p.text().nullable().fieldName('signature_enc'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
/** PUT /v1/settings/integrations/cz/hosting/{id}: one hosting-provider integration per (organisation, id). Secrets are sealed. */
export type HostingIntegration = InferEntity<typeof HostingIntegrationSchema>;

export const BankIntegrationSchema = defineEntity({
  name: 'BankIntegration',
  tableName: 'bank_integrations',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    provider: p.string(),
    key: p.string().nullable(),
    type: p.string(),
    providerKey: p.string().nullable().fieldName('provider_key'),
    name: p.string().nullable(),
    configEnc: p.text().nullable().fieldName('config_enc'),
    statementAccount: p.string().nullable(),
    statementFormat: p.string().$type<'camt053' | 'gpc' | 'mt940'>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
/** POST /v1/settings/integrations/sk.bank_a: a bank integration of a provider (path segment, e.g. `sk.bank_a`). Config is sealed. */
export type BankIntegration = InferEntity<typeof BankIntegrationSchema>;

export const integrationEntities = [HostingIntegrationSchema, BankIntegrationSchema];
