import type { Scope } from '@ledgerline/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { documentEntities } from './templates.entities.js';
import { integrationEntities } from './integrations.entities.js';
import { exchangeRateEntities } from './exchange-rates.entities.js';
import { webhookEntities } from './webhooks.entities.js';
import { contactEntities } from './contacts.entities.js';

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

export const OrganisationSchema = defineEntity({
  name: 'Organisation',
  tableName: 'organisations',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string(),
    country: p.string().length(2),
    legalCurrency: p.string().length(3),
    isVatPayer: p.boolean(),
    isLargeEnterprise: p.boolean().fieldName('is_large_enterprise'),
    peppolId: p.string().nullable(),
    regNo: p.string().nullable(),
    taxNo: p.string().nullable(),
    vatNo: p.string().nullable(),
    eoriNo: p.string().nullable(),
    address: p.json<OrgAddress>(),
    infoLegal: p.string().nullable(),
    config: p.json<{ logo?: string | null; signature?: string | null }>(),
    website: p.string().nullable(),
    email: p.string().nullable(),
    phone: p.string().nullable(),
    fb: p.string().nullable(),
    insta: p.string().nullable(),
    bankAccount: p.json<{ account_number?: string | null; iban?: string | null; bic?: string | null }>().nullable(),
    /** Sales documents in the legal currency are rounded to a multiple of this (decision 191); null: not rounded. */
    roundingIncrement: p.decimal().precision(6).scale(4).nullable().fieldName('rounding_increment'),
    /** What a document line supplies when neither it nor its catalogue item says (issue 70); null: goods. */
    defaultSupply: p.string().nullable().fieldName('default_supply'),
    /** The books are closed through this day (decision 156); null while every period is open. */
    lockDate: p.string().columnType('date').nullable().fieldName('lock_date'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
/** The tenant itself. Not tenant-filtered: it is looked up by its own id. */
export type Organisation = InferEntity<typeof OrganisationSchema>;

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    name: p.string(),
    prefix: p.string(),
    keyHash: p.string().unique(),
    scopes: p.json<Scope[]>(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKeySchema>;

export const ApiClientSchema = defineEntity({
  name: 'ApiClient',
  tableName: 'api_clients',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    name: p.string().nullable(),
    clientId: p.string().unique(),
    secretHash: p.string(),
    scopes: p.json<Scope[]>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
  },
});
export type ApiClient = InferEntity<typeof ApiClientSchema>;

export const SigningKeySchema = defineEntity({
  name: 'SigningKey',
  tableName: 'signing_keys',
  properties: {
    kid: p.string().primary(),
    publicJwk: p.json<Record<string, unknown>>(),
    privateJwk: p.json<Record<string, unknown>>().nullable(),
    privateJwkSealed: p.text().fieldName('private_jwk_sealed').nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** Ed25519 key pairs that sign access tokens; the gateway reads the public halves (JWKS). */
export type SigningKey = InferEntity<typeof SigningKeySchema>;

/** A year accounting closed, as its journal-entry events tell (decision 173); reopened when the closing is reversed. */
export const ClosedYearSchema = defineEntity({
  name: 'ClosedYear',
  tableName: 'closed_years',
  properties: {
    orgId: p.integer().fieldName('org_id').primary(),
    closingEntryId: p.integer().fieldName('closing_entry_id').primary(),
    year: p.integer(),
    reopened: p.boolean(),
  },
});

export const entities = [OrganisationSchema, ApiKeySchema, ApiClientSchema, SigningKeySchema, ClosedYearSchema, ...integrationEntities, ...documentEntities, ...webhookEntities, ...exchangeRateEntities, ...contactEntities];
