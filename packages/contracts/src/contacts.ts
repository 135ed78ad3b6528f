import { z } from 'zod';
import { addressSchema, culture, currencyCode, id, int64, isoDate, isoDateTime, longText, nullish, peppolId, shortText } from './common.js';
import { keysetPagedEnvelope, keysetPagingQuery, searchQuery, sortQuery } from './paging.js';

/*
 * The organisation's directory of customers and vendors (decision 234): kept by settings, named by
 * documents with `contact_id` (a snapshot of it is copied into the document's customer or vendor),
 * filled and checked from the public registers (ARES, VIES, the Czech VAT payers' register).
 */

export const contactBankAccountSchema = z
  .object({
    account_number: nullish(shortText(64)).describe('A Czech domestic account `[prefix-]number/bank code` (checked by the weighted mod-11 test; its IBAN is derived)'),
    iban: nullish(shortText(42)).describe('IBAN (ISO 13616 check digits); derived from account_number when that is Czech'),
    bic: nullish(z.string().regex(/^[A-Za-z]{6}[A-Za-z0-9]{2}([A-Za-z0-9]{3})?$/, 'a BIC of 8 or 11 characters')),
  })
  .meta({ id: 'ContactBankAccount', description: 'A bank account of a contact: a Czech account number, an IBAN, or both' });
export type ContactBankAccount = z.infer<typeof contactBankAccountSchema>;

const contactFields = {
  business_name: shortText().min(1).describe('The name documents print (required)'),
  display_name: nullish(shortText()),
  reg_no: nullish(shortText(64)).describe('Company number; a Czech IČO (eight digits, address.country CZ or none) must pass its mod-11 check digit (400)'),
  vat_no: nullish(shortText(64)).describe('VAT number (DIČ) with its country prefix, checked against the format of that country (400)'),
  tax_no: nullish(shortText(64)),
  address: nullish(addressSchema),
  email: nullish(z.email().max(320)),
  phone: nullish(shortText(64)),
  peppol_id: nullish(peppolId),
  preferred_locale: nullish(culture).describe('The language documents for this contact are written in, e.g. cs-CZ or en-GB'),
  bank_accounts: nullish(z.array(contactBankAccountSchema).max(20)),
  payment_terms_days: nullish(z.int().min(0).max(365)).describe('Days from issue to due date a document for this contact takes when it states no date_due'),
  currency: nullish(currencyCode).describe('The currency a document for this contact takes when it states none'),
  notes: nullish(longText()),
};

export const contactRequestSchema = z
  .object({
    ...contactFields,
    archived: nullish(z.boolean()).describe('Replace only: true archives the contact (it stays on its documents and leaves the list), false brings it back'),
  })
  .meta({ id: 'ContactRequest', description: 'A contact to create or replace whole: business_name required' });
export type ContactRequest = z.infer<typeof contactRequestSchema>;

export const contactRecordSchema = z
  .object({
    id: int64,
    ...contactFields,
    bank_accounts: z.array(contactBankAccountSchema),
    archived: z.boolean().describe('An archived contact stays on the documents that name it; it is left out of the list unless asked for'),
    used: z.boolean().describe('Whether a document has named it: deleting a used contact archives it instead'),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'ContactRecord', description: 'A customer or vendor of the directory' });
export type ContactRecord = z.infer<typeof contactRecordSchema>;

export const contactDeletedSchema = z
  .object({
    id: int64,
    deleted: z.boolean().describe('true: removed; false: archived instead, because documents name it'),
    archived: z.boolean(),
  })
  .meta({ id: 'ContactDeleted' });

export const contactListQuerySchema = z.object({
  ...keysetPagingQuery(100),
  search: searchQuery.optional().describe('Case-insensitive substring of the name, IČO (reg_no), DIČ (vat_no) or e-mail'),
  sort: sortQuery.optional().describe('id, business_name, created_at, updated_at; - for descending'),
  archived: z.enum(['false', 'true', 'all']).default('false').describe('false (default): current contacts; true: archived ones; all: both'),
});
export type ContactListQuery = z.output<typeof contactListQuerySchema>;

export const contactPageSchema = keysetPagedEnvelope(contactRecordSchema);

// --- the registers ----------------------------------------------------------------------------

export const REGISTERS = ['ares', 'vies', 'vat_payers'] as const;
export type RegisterName = (typeof REGISTERS)[number];

export const registerSourceSchema = z
  .object({
    register: z.enum(REGISTERS).describe('ares: the Czech business register; vies: the EU VAT number check; vat_payers: the Czech register of VAT payers'),
    read_at: isoDateTime.describe('When the register answered this'),
    age_seconds: z.int().min(0).describe('How old the answer is: 0 when asked now, more when it came from the cache'),
    cached: z.boolean(),
  })
  .meta({ id: 'RegisterSource', description: 'Which register answered and when' });

export const contactLookupQuerySchema = z.object({
  reg_no: z.string().max(16).describe('IČO of the business to look up in ARES'),
});

export const contactLookupSchema = z
  .object({
    reg_no: z.string(),
    business_name: z.string(),
    vat_no: z.string().nullable().describe('DIČ when the business has one'),
    address: addressSchema,
    legal_form: z.string().nullable().describe("ARES's code of the legal form (e.g. 112 s.r.o., 121 a.s., 101 a sole trader)"),
    date_established: isoDate.nullable(),
    date_dissolved: isoDate.nullable().describe('Set when the business no longer exists'),
    source: registerSourceSchema,
  })
  .meta({ id: 'ContactLookup', description: 'What ARES says of a business, in the fields of a contact (POST it to /v1/contacts)' });
export type ContactLookup = z.infer<typeof contactLookupSchema>;

export const vatNumberQuerySchema = z.object({
  vat_no: z.string().max(32).describe('VAT number with its country prefix, e.g. DE123456789'),
});

export const vatNumberCheckSchema = z
  .object({
    vat_no: z.string(),
    valid: z.boolean().describe('Whether the member state confirms the number as a valid VAT registration on request_date'),
    name: z.string().nullable(),
    address: z.string().nullable(),
    request_date: isoDate.describe('The day the check speaks for'),
    consultation_number: z.string().nullable().describe("VIES's request identifier, the proof of the check (given when a requester VAT number is sent)"),
    source: registerSourceSchema,
  })
  .meta({ id: 'VatNumberCheck', description: "VIES's answer for an EU VAT number" });
export type VatNumberCheck = z.infer<typeof vatNumberCheckSchema>;

export const publishedAccountSchema = z
  .object({
    account_number: z.string().nullable().describe('A Czech account `[prefix-]number/bank code`'),
    iban: z.string().nullable(),
    published_on: isoDate.nullable(),
  })
  .meta({ id: 'PublishedAccount' });

export const vatPayerStatusSchema = z
  .object({
    vat_no: z.string(),
    registered: z.boolean().describe('Whether the register knows the number as a VAT payer'),
    unreliable: z.boolean().nullable().describe('Whether the tax administration has declared the payer unreliable (§106a of the VAT Act); null when not registered'),
    unreliable_since: isoDate.nullable(),
    tax_office: z.string().nullable().describe("The tax office's number (cisloFu)"),
    name: z.string().nullable(),
    published_accounts: z.array(publishedAccountSchema).describe('The accounts the payer has published for its supplies (§96 of the VAT Act)'),
    source: registerSourceSchema,
  })
  .meta({ id: 'VatPayerStatus', description: 'What the Czech register of VAT payers says of a payer' });
export type VatPayerStatus = z.infer<typeof vatPayerStatusSchema>;

/**
 * What a vendor bill records of the §109 check on its day: the buyer guarantees the vendor's VAT
 * when the vendor is an unreliable payer, or when more than twice the cash-payment limit is paid to
 * an account the vendor has not published.
 */
export const vendorCheckSchema = z
  .object({
    status: z
      .enum(['ok', 'risk', 'not_checked', 'unavailable'])
      .describe('ok: nothing the buyer guarantees; risk: see reasons; not_checked: not a Czech VAT payer, or the register is not configured; unavailable: the register did not answer'),
    checked_at: isoDateTime.nullable(),
    unreliable_payer: z.boolean().nullable(),
    account: z.string().nullable().describe('The account the bill is to be paid to (bank_account_number)'),
    account_published: z.boolean().nullable(),
    over_limit: z.boolean().describe('Whether the total in the legal currency exceeds twice the cash-payment limit (CZK 540 000)'),
    reasons: z.array(z.string()),
    register_read_at: isoDateTime.nullable(),
  })
  .meta({ id: 'VendorCheck', description: "The check of the vendor in the VAT payers' register on the bill's day (§109 of the VAT Act)" });
export type VendorCheck = z.infer<typeof vendorCheckSchema>;

/**
 * What an invoice with an intra-EU supply (tax category K) records of its customer's VAT number in
 * VIES on its day: the exemption needs a customer registered for VAT in another member state.
 */
export const customerVatCheckSchema = z
  .object({
    status: z
      .enum(['valid', 'invalid', 'unavailable', 'not_checked'])
      .describe('valid: VIES confirms the number; invalid: it does not (or it is no VAT number); unavailable: VIES or the member state did not answer; not_checked: VIES is not configured'),
    vat_no: z.string().nullable(),
    request_date: isoDate.nullable().describe('The day VIES speaks for'),
    consultation_number: z.string().nullable(),
    checked_at: isoDateTime,
    reasons: z.array(z.string()),
  })
  .meta({ id: 'CustomerVatCheck', description: "The check of an intra-EU supply's customer in VIES on the invoice's day" });
export type CustomerVatCheck = z.infer<typeof customerVatCheckSchema>;
