import { EntitySchema } from '@mikro-orm/core';

export interface HostingConfig {
  is_tax_payer?: boolean;
  taxes_included?: boolean;
  auto_send_invoice?: boolean;
  create_invoice_after?: string;
  numbering_source?: string;
  numbering_mask?: string;
}

/** #7: one hosting-provider integration per (organisation, id). Secrets are sealed. */
export interface HostingIntegration {
  id: number;
  orgId: number;
  integrationId: string;
  name?: string | null;
  source: 'MANUAL' | 'MARKETPLACE';
  config: HostingConfig;
  apiUrl?: string | null;
  apiKeyEnc?: string | null;
  signatureEnc?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const HostingIntegrationSchema = new EntitySchema<HostingIntegration>({
  name: 'HostingIntegration',
  tableName: 'hosting_integrations',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    integrationId: { type: 'string', fieldName: 'integration_id' },
    name: { type: 'string', nullable: true },
    source: { type: 'string' },
    config: { type: 'json' },
    apiUrl: { type: 'string', nullable: true },
    apiKeyEnc: { type: 'text', nullable: true, fieldName: 'api_key_enc' },
    signatureEnc: { type: 'text', nullable: true, fieldName: 'signature_enc' },
    createdAt: { type: 'Date', onCreate: () => new Date() },
    updatedAt: { type: 'Date', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});

/** #26: a bank integration of a provider (path segment, e.g. `sk.bank_a`). Config is sealed. */
export interface BankIntegration {
  id: number;
  orgId: number;
  provider: string;
  key?: string | null;
  type: string;
  providerKey?: string | null;
  name?: string | null;
  configEnc?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const BankIntegrationSchema = new EntitySchema<BankIntegration>({
  name: 'BankIntegration',
  tableName: 'bank_integrations',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    provider: { type: 'string' },
    key: { type: 'string', nullable: true },
    type: { type: 'string' },
    providerKey: { type: 'string', nullable: true, fieldName: 'provider_key' },
    name: { type: 'string', nullable: true },
    configEnc: { type: 'text', nullable: true, fieldName: 'config_enc' },
    createdAt: { type: 'Date', onCreate: () => new Date() },
    updatedAt: { type: 'Date', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});

export const integrationEntities = [HostingIntegrationSchema, BankIntegrationSchema];
