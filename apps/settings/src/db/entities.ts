import type { Scope } from '@ledgerline/contracts';
import { EntitySchema } from '@mikro-orm/core';
import { documentEntities } from './templates.entities.js';
import { integrationEntities } from './integrations.entities.js';

export interface OrgAddress {
  name?: string | null;
  company?: string | null;
  address1?: string | null;
  address2?: string | null;
  postal_code?: string | null;
  city?: string | null;
  region?: string | null;
  country?: string | null;
}

/** The tenant itself. Not tenant-filtered: it is looked up by its own id. */
export interface Organisation {
  id: number;
  name: string;
  country: string;
  legalCurrency: string;
  isVatPayer: boolean;
  isLargeEnterprise: boolean;
  peppolId?: string | null;
  regNo?: string | null;
  taxNo?: string | null;
  vatNo?: string | null;
  eoriNo?: string | null;
  address: OrgAddress;
  infoLegal?: string | null;
  config: { logo?: string | null; signature?: string | null };
  website?: string | null;
  email?: string | null;
  phone?: string | null;
  fb?: string | null;
  insta?: string | null;
  bankAccount?: { account_number?: string | null; iban?: string | null; bic?: string | null } | null;
  createdAt: Date;
  updatedAt: Date;
}

export const OrganisationSchema = new EntitySchema<Organisation>({
  name: 'Organisation',
  tableName: 'organisations',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    name: { type: 'string' },
    country: { type: 'string', length: 2 },
    legalCurrency: { type: 'string', length: 3 },
    isVatPayer: { type: 'boolean' },
    isLargeEnterprise: { type: 'boolean', fieldName: 'is_large_enterprise' },
    peppolId: { type: 'string', nullable: true },
    regNo: { type: 'string', nullable: true },
    taxNo: { type: 'string', nullable: true },
    vatNo: { type: 'string', nullable: true },
    eoriNo: { type: 'string', nullable: true },
    address: { type: 'json' },
    infoLegal: { type: 'string', nullable: true },
    config: { type: 'json' },
    website: { type: 'string', nullable: true },
    email: { type: 'string', nullable: true },
    phone: { type: 'string', nullable: true },
    fb: { type: 'string', nullable: true },
    insta: { type: 'string', nullable: true },
    bankAccount: { type: 'json', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date() },
    updatedAt: { type: 'Date', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

export interface ApiKey {
  id: number;
  orgId: number;
  name: string;
  prefix: string;
  keyHash: string;
  scopes: Scope[];
  revokedAt?: Date | null;
  createdAt: Date;
  expiresAt?: Date | null;
  lastUsedAt?: Date | null;
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    name: { type: 'string' },
    prefix: { type: 'string' },
    keyHash: { type: 'string', unique: true },
    scopes: { type: 'json' },
    revokedAt: { type: 'Date', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date() },
    expiresAt: { type: 'Date', nullable: true },
    lastUsedAt: { type: 'Date', nullable: true },
  },
});

export interface ApiClient {
  id: number;
  orgId: number;
  name?: string | null;
  clientId: string;
  secretHash: string;
  scopes: Scope[];
  createdAt: Date;
}

export const ApiClientSchema = new EntitySchema<ApiClient>({
  name: 'ApiClient',
  tableName: 'api_clients',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    orgId: { type: 'number', fieldName: 'org_id' },
    name: { type: 'string', nullable: true },
    clientId: { type: 'string', unique: true },
    secretHash: { type: 'string' },
    scopes: { type: 'json' },
    createdAt: { type: 'Date', onCreate: () => new Date() },
  },
});

/** Ed25519 key pairs that sign access tokens; the gateway reads the public halves (JWKS). */
export interface SigningKey {
  kid: string;
  publicJwk: Record<string, unknown>;
  /** Plaintext private JWK: only rows written before keys were sealed, until boot seals them. */
  privateJwk?: Record<string, unknown> | null;
  /** The private JWK sealed with the secret box (`v1.<key id>.<base64>`), bound to the kid. */
  privateJwkSealed?: string | null;
  createdAt: Date;
}

export const SigningKeySchema = new EntitySchema<SigningKey>({
  name: 'SigningKey',
  tableName: 'signing_keys',
  properties: {
    kid: { type: 'string', primary: true },
    publicJwk: { type: 'json' },
    privateJwk: { type: 'json', nullable: true },
    privateJwkSealed: { type: 'text', fieldName: 'private_jwk_sealed', nullable: true },
    createdAt: { type: 'Date', onCreate: () => new Date() },
  },
});

export const entities = [OrganisationSchema, ApiKeySchema, ApiClientSchema, SigningKeySchema, ...integrationEntities, ...documentEntities];
