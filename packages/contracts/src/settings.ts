import { z } from 'zod';
import { CONTENT_TEXT, addressSchema, countryCode, ISO_3166_COUNTRIES, culture, currencyCode, id, int32, int64, isoDate, isoDateTime, nullish, peppolId, roundingIncrement, shortText } from './common.js';
import { pagedEnvelope, pagingQuery, searchQuery, sortQuery } from './paging.js';
import { orgIssuerShape } from './sales.js';
import { scopeSchema } from './scopes.js';
import { supplyKind } from './tax-category.js';

/*
 * Settings: API keys and clients (architecture §3), the organisation profile (architecture §1), templates,
 * delivery conditions and integrations.
 */

// --- API keys ------------------------------------------------------------------------

export const API_KEY_STATUSES = ['active', 'revoked', 'expired'] as const;

export const apiKeySchema = z
  .object({
    id: id,
    name: z.string(),
    prefix: z.string().describe('The first characters of the key, safe to show (e.g. ak_3kF9Qx2b)'),
    scopes: z.array(scopeSchema),
    status: z.enum(API_KEY_STATUSES),
    created_at: isoDateTime,
    expires_at: isoDateTime.nullable(),
    last_used_at: isoDateTime.nullable(),
    revoked_at: isoDateTime.nullable(),
  })
  .meta({ id: 'ApiKey', description: 'API key record; the secret is never returned again' });
export type ApiKey = z.infer<typeof apiKeySchema>;

/** Response of POST /settings/security/api-keys: the record plus the secret, shown once. */
export const apiKeyCreatedSchema = apiKeySchema
  .extend({ key: z.string().describe('The secret (ak_…); returned only by this call') })
  .meta({ id: 'ApiKeyCreated', description: 'A new API key with its secret, shown once' });
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;

const apiKeyName = z.string().trim().min(1).max(200);
const apiKeyScopes = z.array(scopeSchema).min(1).max(20);

export const apiKeyCreateSchema = z
  .object({
    name: apiKeyName,
    scopes: apiKeyScopes,
    expires_at: nullish(isoDateTime).describe('Expiry instant; never when absent or null'),
  })
  .meta({ id: 'ApiKeyCreateRequest', description: 'API key to create' });
export type ApiKeyCreate = z.infer<typeof apiKeyCreateSchema>;

export const apiKeyUpdateSchema = z
  .object({
    name: apiKeyName.optional(),
    scopes: apiKeyScopes.optional(),
    expires_at: nullish(isoDateTime).describe('New expiry; null clears it'),
  })
  .refine((v) => v.name !== undefined || v.scopes !== undefined || v.expires_at !== undefined, {
    message: 'give at least one of name, scopes, expires_at',
  })
  .meta({ id: 'ApiKeyUpdateRequest', description: 'Changes to an API key: name, scopes and/or expires_at' });
export type ApiKeyUpdate = z.infer<typeof apiKeyUpdateSchema>;

export const apiKeyDeletedSchema = z
  .object({ id: id, deleted: z.literal(true) })
  .meta({ id: 'ApiKeyDeleted', description: 'Result of deleting an API key' });
export type ApiKeyDeleted = z.infer<typeof apiKeyDeletedSchema>;

export const apiKeyListQuerySchema = z.object({ ...pagingQuery(100) });
export const apiKeyPageSchema = pagedEnvelope(apiKeySchema);

// --- API clients and tokens -------------------------------------------------------------

export const clientRequestSchema = z
  .object({
    id: nullish(int64).describe('Ignored'),
    client_id: nullish(z.string().max(255)).describe('Ignored: generated'),
    name: nullish(z.string().max(200)),
    scopes: apiKeyScopes.optional().describe("Scopes the client's tokens carry; the creating credential's scopes when absent"),
  })
  .meta({ id: 'ClientRequest', description: 'API client to create' });
export type ClientRequest = z.infer<typeof clientRequestSchema>;

export const clientSchema = z
  .object({
    id: id,
    client_id: z.string().describe('cl_…'),
    client_secret: z.string().describe('cs_…; returned only by the create call'),
    name: nullish(z.string()),
    scopes: z.array(scopeSchema).optional(),
  })
  .meta({ id: 'Client', description: 'A new API client with its secret, shown once' });
export type Client = z.infer<typeof clientSchema>;

/** An API client as listed and read: never its secret (decision 149). */
export const clientRecordSchema = z
  .object({
    id: id,
    client_id: z.string().describe('cl_…'),
    name: z.string().nullable(),
    scopes: z.array(scopeSchema),
    status: z.enum(['active', 'revoked']).describe('revoked: the token endpoint refuses it and its access tokens stop working'),
    created_at: isoDateTime,
    last_used_at: isoDateTime.nullable().describe('When it last obtained an access token (to the minute)'),
    revoked_at: isoDateTime.nullable(),
  })
  .meta({ id: 'ClientRecord', description: 'API client record; the secret is never returned again' });
export type ClientRecord = z.infer<typeof clientRecordSchema>;
export const clientListQuerySchema = z.object({ ...pagingQuery(100) });
export const clientPageSchema = pagedEnvelope(clientRecordSchema);
export const clientDeletedSchema = z
  .object({ id: id, deleted: z.literal(true) })
  .meta({ id: 'ClientDeleted', description: 'Result of deleting an API client' });

/** POST /oauth/token: client credentials grant (RFC 6749 §4.4). */
export const tokenRequestSchema = z
  .object({
    grant_type: z.literal('client_credentials'),
    client_id: z.string().min(1).max(255),
    client_secret: z.string().min(1).max(255),
    scope: z.string().max(1000).optional().describe('Space-separated subset of the client scopes; all of them when absent'),
  })
  .meta({ id: 'TokenRequest', description: 'Client credentials grant (RFC 6749 §4.4)' });
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

export const tokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.int().min(1).describe('Lifetime in seconds'),
    scope: z.string().describe('Space-separated granted scopes'),
  })
  .meta({ id: 'TokenResponse', description: 'A short-lived access token (RFC 6749 §5.1)' });
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

// --- organisation (architecture §1, §3) ------------------------------------------------------------

export const organisationBankAccountSchema = z.object({
  account_number: nullish(shortText(64)),
  iban: nullish(z.string().regex(/^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/, 'IBAN without spaces, upper case')),
  bic: nullish(z.string().regex(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'BIC of 8 or 11 characters')),
});

/** Organisation profile: the document issuer (`org`) plus country, legal currency, VAT and Peppol data. */
export const organisationSchema = z
  .object({
    id: id,
    ...orgIssuerShape,
    name: z.string(),
    country: countryCode,
    legal_currency: currencyCode,
    is_vat_payer: z.boolean(),
    is_large_enterprise: z.boolean().optional().describe('Large enterprise (earlier e-invoicing mandates, e.g. France 2026)'),
    peppol_id: peppolId.nullable(),
    bank_account: organisationBankAccountSchema.nullable(),
    rounding_increment: roundingIncrement
      .nullable()
      .describe('Sales documents in the legal currency are rounded to a multiple of this unless they say otherwise (null: not rounded)'),
    default_supply: supplyKind.optional().describe('What a document line supplies when neither it nor its catalogue item says: goods (revenue 604, cost 504) or services (602, 518); goods when never set'),
    lock_date: isoDate
      .nullable()
      .describe('The books are closed through this day: every write that would post on or before it is refused with 409 period_locked (null: every period is open)'),
    created_at: nullish(isoDateTime),
    updated_at: nullish(isoDateTime),
  })
  .meta({ id: 'Organisation', description: 'Organisation profile' });
export type Organisation = z.infer<typeof organisationSchema>;

const organisationInputFields = {
  ...orgIssuerShape,
  name: shortText(300).trim().min(1),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'two-letter ISO 3166-1 country code')
    .refine((c) => ISO_3166_COUNTRIES.has(c.toUpperCase()), { message: 'not an ISO 3166-1 country code' })
    .describe('ISO 3166-1 alpha-2 (any case); stored upper case'),
  legal_currency: currencyCode.describe('ISO 4217; CZK when absent on creation'),
  is_vat_payer: z.boolean(),
  is_large_enterprise: z.boolean().describe('Large enterprise: compliance rules with earlier mandates for large firms apply (default false)'),
  peppol_id: nullish(peppolId),
  bank_account: nullish(organisationBankAccountSchema),
  rounding_increment: nullish(roundingIncrement).describe(
    'Round the total with VAT of every new sales document in the legal currency to a multiple of this (1: whole crowns); a document overrides it with its own rounding_increment. null: no rounding (the default)',
  ),
  default_supply: nullish(supplyKind).describe('What a document line supplies when neither it nor its catalogue item says: goods (revenue 604, cost 504, EC Sales List code 0) or services (602, 518, code 3); null: goods'),
  lock_date: nullish(isoDate).describe(
    'Close the books through this day (today at the latest; null reopens every period). Moving it needs the admin scope. Documents, payments, matches, payouts and allocations dated on or before it are then refused with 409 period_locked. It is not moved back before 31 December of a closed year (409 year_closed: reopen the year first, POST /v1/accounting/year-end-closings/{year}/reopen)',
  ),
};

/** Body of PUT /settings/organisation: fields sent replace the stored ones; absent fields stay. */
export const organisationUpdateSchema = z
  .object(organisationInputFields)
  .partial()
  .meta({ id: 'OrganisationUpdateRequest', description: 'Organisation profile changes: fields sent replace the stored ones' });
export type OrganisationUpdate = z.infer<typeof organisationUpdateSchema>;

/** Body of POST /admin/organisations (operator token only). */
export const organisationCreateSchema = z
  .object(organisationInputFields)
  .partial()
  .required({ name: true })
  .meta({ id: 'OrganisationCreateRequest', description: 'A new organisation: name required; country CZ and legal_currency CZK when absent' });
export type OrganisationCreate = z.infer<typeof organisationCreateSchema>;

export const organisationCreatedSchema = z
  .object({ organisation: organisationSchema, admin_key: apiKeyCreatedSchema })
  .meta({ id: 'OrganisationCreated', description: 'The organisation and its first admin key with the secret, shown once' });
export type OrganisationCreated = z.infer<typeof organisationCreatedSchema>;

// --- templates ----------------------------------------------------------------------

export const pdfOptionsSchema = z.object({
  page_size: nullish(z.string().max(32)).describe('A4 (default), A5, Letter, Legal…'),
  no_pdf_compression: nullish(z.boolean()),
  dpi: nullish(int32.min(1).max(2400)),
  margin_top: nullish(int32.min(0).max(1000)).describe('Millimetres'),
  margin_bottom: nullish(int32.min(0).max(1000)).describe('Millimetres'),
  margin_left: nullish(int32.min(0).max(1000)).describe('Millimetres'),
  margin_right: nullish(int32.min(0).max(1000)).describe('Millimetres'),
  orientation: nullish(z.enum(['portrait', 'landscape'])),
  disable_smart_shrinking: nullish(z.boolean()),
});

const templateFields = {
  code: nullish(shortText(100)).describe('Layout code the `layout` parameter selects'),
  name: nullish(shortText()),
  html_template: nullish(z.string().max(CONTENT_TEXT)).describe('Liquid template producing HTML'),
  url: nullish(shortText(2000)),
  file: nullish(shortText()),
  design: nullish(shortText(100)),
  pdf_options: nullish(pdfOptionsSchema),
  config: nullish(
    z.object({
      brand_color_primary: nullish(shortText(32)),
      brand_color_secondary: nullish(shortText(32)),
      brand_color_alternative: nullish(shortText(32)),
    }),
  ),
  l10n: nullish(
    z
      .array(z.object({ id: nullish(int64), culture: culture, resource: shortText(), value: z.string().max(10_000) }))
      .max(10_000),
  ).describe('Localised resources used by the template'),
  languages: nullish(z.array(culture).max(100)),
};

export const templateSchema = z
  .object({ id: id, ...templateFields })
  .meta({ id: 'Template', description: 'Document template' });
export type Template = z.infer<typeof templateSchema>;

export const templateRequestSchema = z
  .object({ id: nullish(int64).describe('The template to overwrite; a new template when absent'), ...templateFields })
  .meta({ id: 'TemplateRequest', description: 'Document template to save' });
export type TemplateRequest = z.infer<typeof templateRequestSchema>;

export const templateSummarySchema = z
  .object({
    id: id,
    code: z.string().nullable(),
    name: z.string().nullable(),
    design: z.string().nullable(),
    languages: z.array(z.string()).nullable(),
  })
  .meta({ id: 'TemplateSummary' });
export type TemplateSummary = z.infer<typeof templateSummarySchema>;

export const templateListQuerySchema = z.object({
  ...pagingQuery(100),
  search: searchQuery.optional(),
  type: z.string().max(64).optional().describe('Document type the template is for, e.g. invoice, credit_note'),
});
export type TemplateListQuery = z.output<typeof templateListQuerySchema>;
export const templateListSchema = z.array(templateSummarySchema);

// --- delivery conditions ---------------------------------------------------------------

export const deliveryConditionSchema = z
  .object({
    id: int32,
    code: z.string().nullable(),
    name: z.string().nullable(),
    l10n: z.array(z.object({ id: int64, culture: z.string(), name: z.string() })).nullable(),
  })
  .meta({ id: 'DeliveryCondition', description: 'Delivery condition (Incoterms 2020 rule)' });
export type DeliveryCondition = z.infer<typeof deliveryConditionSchema>;

export const deliveryConditionListQuerySchema = z.object({
  ...pagingQuery(100),
  search: searchQuery.optional(),
  sort: sortQuery.optional(),
  culture: culture.optional().describe('Language of `name` (BCP 47, e.g. cs-CZ); English when absent'),
});
export type DeliveryConditionListQuery = z.output<typeof deliveryConditionListQuerySchema>;
export const deliveryConditionPageSchema = pagedEnvelope(deliveryConditionSchema);

// --- hosting integration ----------------------------------------------------------------

export const HOSTING_SOURCES = ['MANUAL', 'MARKETPLACE'] as const;

export const hostingConfigSchema = z.object({
  is_tax_payer: z.boolean().optional(),
  taxes_included: z.boolean().optional(),
  auto_send_invoice: z.boolean().optional(),
  create_invoice_after: z.string().max(64).optional(),
  numbering_source: z.string().max(64).optional(),
  numbering_mask: z.string().max(64).optional(),
});

export const hostingIntegrationPathSchema = z.object({
  id: z.string().min(1).max(100).describe('Integration id (string)'),
});

/** Body of PUT /settings/integrations/cz/hosting/{id}: config (non-empty) and source required. */
export const hostingIntegrationRequestSchema = z
  .object({
    config: hostingConfigSchema
      .refine((c) => Object.values(c).some((v) => v !== undefined), { message: 'config must not be empty' })
      .meta({ minProperties: 1, description: 'Integration settings; at least one of them' }),
    source: z.enum(HOSTING_SOURCES),
    name: nullish(shortText()),
    signature: nullish(shortText(1000)).describe('Shared secret signing the provider callbacks; stored, never returned'),
    api_url: nullish(z.url({ protocol: /^https?$/ }).max(2000)),
    api_key: nullish(shortText(1000)).describe('Stored encrypted, never returned'),
  })
  .meta({ id: 'HostingIntegrationRequest', description: 'Hosting-provider integration: config and source required' });
export type HostingIntegrationRequest = z.infer<typeof hostingIntegrationRequestSchema>;

export const hostingIntegrationSchema = z
  .object({
    id: z.string(),
    config: hostingConfigSchema,
    name: z.string().nullable(),
    signature: z.string().nullable().describe('Masked, e.g. ****cdef'),
    source: z.enum(HOSTING_SOURCES),
    api_url: z.string().nullable(),
    api_key: z.string().nullable().describe('Masked, e.g. ****cdef'),
  })
  .meta({ id: 'HostingIntegration', description: 'Hosting-provider integration; secrets masked' });
export type HostingIntegration = z.infer<typeof hostingIntegrationSchema>;

/** Masks a secret for display: `****` plus its last four characters (all masked when short). */
export function maskSecret(secret: string | null | undefined): string | null {
  if (secret === null || secret === undefined || secret === '') return null;
  return secret.length <= 8 ? '****' : `****${secret.slice(-4)}`;
}

// --- bank integration ------------------------------------------------------------------

/** What statements a bank integration delivers: the account they are of and their file format. */
export const bankStatementExpectationSchema = z
  .object({
    account: z.string().trim().min(1).max(64).describe('Our account as its statements name it: an IBAN or a domestic number (19-2000145399)'),
    format: z.enum(['camt053', 'gpc', 'mt940']),
  })
  .meta({ id: 'BankStatementExpectation' });
export type BankStatementExpectation = z.infer<typeof bankStatementExpectationSchema>;

export const bankIntegrationRequestSchema = z
  .object({
    id: nullish(int64).describe('Ignored'),
    key: nullish(shortText()),
    type: z.string().trim().min(1, 'type is required and must not be empty').max(100),
    provider_key: nullish(shortText()),
    name: nullish(shortText()),
    config: nullish(z.record(z.string(), z.unknown())).describe('Provider configuration; shape open; never returned'),
    statements: nullish(bankStatementExpectationSchema).describe('The account whose statements this integration delivers and their format: a statement of that account imported in another format is refused (422)'),
  })
  .meta({ id: 'BankIntegrationRequest', description: 'Bank integration: type required and non-empty' });
export type BankIntegrationRequest = z.infer<typeof bankIntegrationRequestSchema>;

export const bankIntegrationSchema = z
  .object({
    id: id,
    key: z.string().nullable(),
    type: z.string(),
    provider_key: z.string().nullable(),
    name: z.string().nullable(),
    statements: nullish(bankStatementExpectationSchema),
  })
  .meta({ id: 'BankIntegration', description: 'Bank integration (the response omits config)' });
export type BankIntegration = z.infer<typeof bankIntegrationSchema>;
