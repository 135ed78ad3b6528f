import { z } from 'zod';
import { SCOPES } from '@ledgerline/contracts/scopes';

export const scopeSchema = z.enum(SCOPES);
export const apiKeyCreateSchema = z.object({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(scopeSchema).min(1),
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
});
export const apiKeyUpdateSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    scopes: z.array(scopeSchema).min(1).optional(),
    expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'give at least one of name, scopes, expires_at' });
export const clientCreateSchema = z
  .object({
    id: z.number().int().nullable().optional(),
    client_id: z.string().nullable().optional(),
    name: z.string().max(200).nullable().optional(),
    scopes: z.array(scopeSchema).min(1).optional(),
  })
  .default({});
export const tokenRequestSchema = z.object({
  grant_type: z.literal('client_credentials'),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  scope: z.string().optional(),
});
const address = z.object({
  name: z.string().nullish(),
  company: z.string().nullish(),
  address1: z.string().nullish(),
  address2: z.string().nullish(),
  postal_code: z.string().nullish(),
  city: z.string().nullish(),
  region: z.string().nullish(),
  country: z.string().max(2).nullish(),
});
export const organisationInputSchema = z.object({
  name: z.string().trim().min(1).max(300).optional(),
  country: z.string().regex(/^[A-Za-z]{2}$/, 'two-letter ISO 3166 country code').optional(),
  legal_currency: z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 currency code, three upper-case letters').optional(),
  is_vat_payer: z.boolean().optional(),
  peppol_id: z.string().regex(/^\d{4}:.+$/, 'scheme:value, e.g. 9950:2020123456').nullable().optional(),
  reg_no: z.string().nullable().optional(),
  tax_no: z.string().nullable().optional(),
  vat_no: z.string().nullable().optional(),
  eori_no: z.string().nullable().optional(),
  address: address.optional(),
  info_legal: z.string().nullable().optional(),
  config: z.object({ logo: z.string().nullish(), signature: z.string().nullish() }).optional(),
  website: z.string().nullable().optional(),
  email: z.string().nullable().optional(),
  phone: z.string().nullable().optional(),
  fb: z.string().nullable().optional(),
  insta: z.string().nullable().optional(),
  bank_account: z
    .object({ account_number: z.string().nullish(), iban: z.string().nullish(), bic: z.string().nullish() })
    .nullable()
    .optional(),
});
export const organisationCreateSchema = organisationInputSchema.extend({ name: z.string().trim().min(1).max(300) });
