import { z } from 'zod';
import { AMOUNT_LIMIT } from '@ledgerline/core/limits';

/**
 * Shared building blocks of the interface (architecture §1–§4).
 *
 * Conventions used by every schema in this package:
 * - objects are never `.strict()`: the services refuse a field an operation does not know with
 *   their own walk (`parseRequest` in the kit, decision 146), which lets the fields of the answered
 *   resource through, so that a resource read can be sent back;
 * - every number is finite (zod 4's `z.number()` rejects `Infinity` and `NaN`);
 * - optional fields of requests and responses accept `null` as well as absence (`.nullish()`),
 *   because the spec calls most fields nullable;
 * - schemas that should appear as named OpenAPI components carry `.meta({ id })`.
 */

// --- limits ----------------------------------------------------------------------------------

/** Longest code, name, number or reference we accept (a database `varchar(255)` fits it). */
export const SHORT_TEXT = 255;
/** Longest free text (notes, memo, description, legal info). */
export const LONG_TEXT = 10_000;
/** Longest embedded content (an HTML template, a data-URI logo, a raw bank message). */
export const CONTENT_TEXT = 1_000_000;
/** Largest magnitude of an amount (kept in the core package, which the arithmetic shares). */
export { AMOUNT_LIMIT };
/** Largest exchange rate or currency coefficient: `fx_rate numeric(20,10)` holds < 10¹⁰. */
export const FX_RATE_LIMIT = 1e9;
/** @deprecated the old single bound; amounts now use AMOUNT_LIMIT, rates FX_RATE_LIMIT. */
export const NUMBER_LIMIT = AMOUNT_LIMIT;
/** Largest page size (`take`); above it the request is rejected with 400 (architecture §2). */
export const MAX_TAKE = 1000;
export const INT32_MAX = 2_147_483_647;

// --- primitives ------------------------------------------------------------------------------

export const shortText = (max = SHORT_TEXT) => z.string().max(max);
export const longText = () => z.string().max(LONG_TEXT);

/** Optional in a request or a response: absent or `null`. */
export const nullish = <T extends z.ZodType>(schema: T) => schema.nullish();

/** A field a client may send in a request but that the service computes and ignores. */
export const ignoredInput = <T extends z.ZodType>(schema: T) => schema.nullish().describe('Ignored: computed by the service');

/**
 * The increment a document's total with VAT is rounded to (1: whole units; 0.05: to five
 * hundredths): positive, at most 10, at most four decimals.
 */
export const roundingIncrement = z
  .number()
  .positive()
  .max(10)
  .refine((v) => /^\d+(\.\d{1,4})?$/.test(String(v)), { message: 'at most four decimal places' });

/** A decimal amount on the wire: a finite JSON number (the services compute with decimals, never floats). */
export const money = z
  .number()
  .min(-AMOUNT_LIMIT)
  .max(AMOUNT_LIMIT)
  .describe('Decimal amount as a finite JSON number, |amount| ≤ 10¹³');

/** A sum over many documents (balances, trial-balance figures): finite, not bounded per document. */
export const moneyAggregate = z.number().describe('Decimal amount (a sum over documents) as a finite JSON number');

/** Decimals a JSON number is written with (`0.004` → 3, `1e-7` → 7, `12` → 0). */
export function decimalPlaces(n: number): number {
  const m = /^-?\d*(?:\.(\d+))?(?:e([+-]\d+))?$/i.exec(String(n));
  if (!m) return 0;
  return Math.max(0, (m[1]?.length ?? 0) - Number(m[2] ?? 0));
}

/** An amount of a payment in cents: |amount| ≤ 10¹³ with at most two decimals. */
export const centAmount = money.refine((a) => decimalPlaces(a) <= 2, { message: 'at most two decimals (cents)' });

/** A quantity, rate or ratio: a finite JSON number, |x| ≤ 10¹³. */
export const decimal = z.number().min(-AMOUNT_LIMIT).max(AMOUNT_LIMIT);
/** A tax rate in percent (21 means 21 %). */
export const percentRate = z.number().min(0).max(100).describe('Tax rate in percent, e.g. 21');
/** A deduction ratio between 0 and 1. */
export const ratio = z.number().min(0).max(1);
/** An exchange rate or currency coefficient: finite and positive. */
export const positiveRate = z.number().positive().max(FX_RATE_LIMIT);

/** A JSON integer in the int64 range that JavaScript holds exactly. */
export const int64 = z.int();
export const int32 = z.int32();
/** An identifier (int64) of a stored record. */
export const id = z.int().min(1);
/** Document precision: decimals of amounts, 0–4 (default 2 when absent). */
export const precision = z.int().min(0).max(4).describe('Decimals of amounts, 0–4; 2 when absent');

/**
 * Years a date may fall in. Postgres has no year 0 and JavaScript reads years below 100 as
 * 19xx, so dates far outside business use are refused (400) instead of failing in the database.
 */
export const DATE_MIN_YEAR = 1900;
export const DATE_MAX_YEAR = 9999;
/** Whether the year a `YYYY-…` date or date-time starts with lies in the accepted window. */
export function yearInWindow(s: string): boolean {
  const year = Number(s.slice(0, 4));
  return year >= DATE_MIN_YEAR && year <= DATE_MAX_YEAR;
}
const yearMessage = { message: `the year must be between ${DATE_MIN_YEAR} and ${DATE_MAX_YEAR}` };

/** ISO 8601 calendar date `YYYY-MM-DD`, validated as a real date (no 2024-02-30) from 1900 to 9999. */
export const isoDate = z.iso.date().refine(yearInWindow, yearMessage).describe('ISO 8601 calendar date (YYYY-MM-DD), years 1900–9999');
/** ISO 8601 date-time with `Z` or an offset, years 1900–9999. */
/** Sources of a rate taken from the organisation's exchange-rate table (GET /v1/settings/exchange-rates). */
export const TABLE_RATE_SOURCES = ['cnb', 'ecb', 'manual'] as const;

/** Where a document's rate to the legal currency came from (response only; ignored in requests). */
export const documentFxRateOrigin = {
  fx_rate_date: nullish(isoDate).describe(
    "The day of the exchange-rate table's rate the document took (the rate in force on its tax point date: that day's, else the last one before it); null when the rate was stated or the document is in the legal currency",
  ),
  fx_rate_source: nullish(z.enum(['stated', ...TABLE_RATE_SOURCES])).describe(
    "Where fx_rate came from: stated in the request, or the table's cnb (Czech National Bank), ecb (European Central Bank) or manual rate; null in the legal currency",
  ),
};

export const isoDateTime = z.iso
  .datetime({ offset: true })
  .refine(yearInWindow, yearMessage)
  .describe('ISO 8601 date-time with Z or an offset, years 1900–9999');
export const uuid = z.uuid();

/**
 * Active ISO 4217 alphabetic codes (ISO 4217 list one), without the testing and "no currency"
 * codes (XTS, XXX) and the units of precious metals and bond markets (XAU, XAG, XPD, XPT, XBA–XBD,
 * XDR, XSU, XUA), which no invoice is issued in.
 */
export const ISO_4217_CURRENCIES: ReadonlySet<string> = new Set(
  (
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD ' +
    'CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP ' +
    'GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW ' +
    'KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN ' +
    'NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL ' +
    'SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES ' +
    'VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG ZWL'
  ).split(' '),
);

/**
 * The currencies the euro replaced (ISO 4217 list three), each with its irrevocable conversion
 * rate to the euro and the day it was fixed (Council Regulation (EC) No 2866/98 and the regulations
 * for each later member): old bank statements are in them, and a rate to the legal currency can
 * be set for them by hand (`PUT /v1/settings/exchange-rates/DEM/2001-12-31`), nothing else.
 */
export const EURO_LEGACY_CURRENCIES: Readonly<Record<string, { perEuro: string; since: string }>> = {
  ATS: { perEuro: '13.7603', since: '1999-01-01' },
  BEF: { perEuro: '40.3399', since: '1999-01-01' },
  DEM: { perEuro: '1.95583', since: '1999-01-01' },
  ESP: { perEuro: '166.386', since: '1999-01-01' },
  FIM: { perEuro: '5.94573', since: '1999-01-01' },
  FRF: { perEuro: '6.55957', since: '1999-01-01' },
  IEP: { perEuro: '0.787564', since: '1999-01-01' },
  ITL: { perEuro: '1936.27', since: '1999-01-01' },
  LUF: { perEuro: '40.3399', since: '1999-01-01' },
  NLG: { perEuro: '2.20371', since: '1999-01-01' },
  PTE: { perEuro: '200.482', since: '1999-01-01' },
  GRD: { perEuro: '340.750', since: '2001-01-01' },
  SIT: { perEuro: '239.640', since: '2007-01-01' },
  CYP: { perEuro: '0.585274', since: '2008-01-01' },
  MTL: { perEuro: '0.429300', since: '2008-01-01' },
  SKK: { perEuro: '30.1260', since: '2009-01-01' },
  EEK: { perEuro: '15.6466', since: '2011-01-01' },
  LVL: { perEuro: '0.702804', since: '2014-01-01' },
  LTL: { perEuro: '3.45280', since: '2015-01-01' },
  HRK: { perEuro: '7.53450', since: '2023-01-01' },
};

/** An active ISO 4217 code, or one the euro replaced: what bank statements and exchange rates may be in. */
export const bankCurrencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, 'ISO 4217 currency code: three upper-case letters')
  .refine((c) => ISO_4217_CURRENCIES.has(c) || c in EURO_LEGACY_CURRENCIES, { message: 'not an ISO 4217 currency code, nor one the euro replaced' })
  .describe('ISO 4217 currency code, or one the euro replaced (DEM, NLG, SKK, … on old statements)');

/** ISO 4217 currency code: three upper-case letters of an active currency (`CZK`, `EUR`). */
export const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, 'ISO 4217 currency code: three upper-case letters')
  .refine((c) => ISO_4217_CURRENCIES.has(c), { message: 'not an ISO 4217 currency code' })
  .describe('ISO 4217 currency code, e.g. CZK, EUR');
/** Alias of `currencyCode`. */
export const currency = currencyCode;

/**
 * ISO 3166-1 alpha-2 codes officially assigned (249), plus XK (Kosovo, used by the EU and banks).
 * An organisation's country selects tax and compliance rules, so a code outside this list is refused.
 */
export const ISO_3166_COUNTRIES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT ' +
    'BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ' +
    'ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT ' +
    'HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS ' +
    'LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI ' +
    'NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG ' +
    'SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  )
    .trim()
    .split(' ')
    .concat('XK'),
);

/** Country of an Address: at most 2 characters; ISO 3166-1 alpha-2 intended. */
export const addressCountry = z.string().max(2).describe('ISO 3166-1 alpha-2 country code (at most 2 characters)');
/** A two-letter ISO 3166-1 country code in upper case (the organisation profile). */
export const countryCode = z.string().regex(/^[A-Z]{2}$/, 'two-letter ISO 3166-1 country code in upper case');

/** Peppol participant identifier `scheme:value`, e.g. `9950:2020123456` (architecture §1). */
export const peppolId = z
  .string()
  .max(SHORT_TEXT)
  .regex(/^[0-9]{4}:\S+$/, 'Peppol participant id as scheme:value, e.g. 9950:2020123456')
  .describe('Peppol participant identifier scheme:value, e.g. 9950:2020123456');

/** BCP 47 language tag such as `cs-CZ`. */
export const culture = z.string().max(35).describe('BCP 47 language tag, e.g. cs-CZ');

// --- shared shapes ---------------------------------------------------------------

export const addressSchema = z
  .object({
    name: nullish(shortText()),
    company: nullish(shortText()),
    address1: nullish(shortText()),
    address2: nullish(shortText()),
    postal_code: nullish(shortText(32)),
    city: nullish(shortText()),
    region: nullish(shortText()),
    country: nullish(addressCountry),
  })
  .meta({ id: 'Address', description: 'Postal address; country holds at most 2 characters' });
export type Address = z.infer<typeof addressSchema>;

export const contactSchema = z
  .object({
    id: nullish(int64),
    business_name: nullish(shortText()),
    display_name: nullish(shortText()),
    reg_no: nullish(shortText(64)),
    vat_no: nullish(shortText(64)),
    tax_no: nullish(shortText(64)),
    address: nullish(addressSchema),
    email: nullish(shortText(320)),
    preferred_locale: nullish(culture),
    phone: nullish(shortText(64)),
    peppol_id: nullish(peppolId),
  })
  .meta({ id: 'Contact', description: 'A customer, vendor or other contact; peppol_id is its Peppol electronic address (scheme:value)' });
export type Contact = z.infer<typeof contactSchema>;

export const bankAccountSchema = z
  .object({
    id: nullish(int64),
    account_number: nullish(shortText(64)),
  })
  .meta({ id: 'BankAccount' });
export type BankAccount = z.infer<typeof bankAccountSchema>;

export const transactionTypeSchema = z
  .object({
    id: nullish(int32),
    name: nullish(shortText()),
    associated_payment_cards: nullish(z.array(shortText()).max(100)),
  })
  .meta({ id: 'TransactionType', description: 'Transaction type of a document' });
export type TransactionType = z.infer<typeof transactionTypeSchema>;

export const glAccountSchema = z
  .object({
    id: nullish(int64),
    number: nullish(shortText(32)),
    name: nullish(shortText()),
    description: nullish(longText()),
  })
  .meta({ id: 'GlAccount', description: 'General-ledger account; number is a string such as "311"' });
export type GlAccount = z.infer<typeof glAccountSchema>;

export const PAID_RECORD_TYPES = ['sales_invoice', 'sales_credit_note', 'purchase_bill', 'purchase_vendor_credit', 'sales_proforma', 'purchase_advance'] as const;
export const paidRecordTypeSchema = z.enum(PAID_RECORD_TYPES);
export type PaidRecordType = z.infer<typeof paidRecordTypeSchema>;

export const paidRecordSchema = z
  .object({
    id: nullish(int64),
    no: nullish(shortText()),
    type: nullish(paidRecordTypeSchema),
    contact: nullish(
      z.object({
        id: nullish(int64),
        business_name: nullish(shortText()),
      }),
    ),
  })
  .meta({ id: 'PaidRecord', description: 'The document a payment settles' });
export type PaidRecord = z.infer<typeof paidRecordSchema>;

export const fxRateSchema = z
  .object({
    rate: nullish(positiveRate),
    currency: nullish(currencyCode),
    source: nullish(shortText()),
  })
  .meta({ id: 'FxRate' });
export type FxRate = z.infer<typeof fxRateSchema>;

export const taxDefinitionSchema = z
  .object({
    index: nullish(int32),
    code: nullish(shortText(64)),
    name: nullish(shortText()),
    currency: nullish(currencyCode),
    rate_type: nullish(shortText(64)),
    is_implicit: nullish(z.boolean()),
    rates: nullish(z.array(z.object({ rate: nullish(percentRate), is_default: nullish(z.boolean()) })).max(100)),
  })
  .meta({ id: 'TaxDefinition' });
export type TaxDefinition = z.infer<typeof taxDefinitionSchema>;

export const taxNexusSchema = z
  .object({
    id: nullish(int64),
    code: nullish(shortText(64)),
    currency: nullish(currencyCode),
    taxes: nullish(z.array(taxDefinitionSchema).max(100)),
    jurisdiction: nullish(
      z.object({
        country: nullish(addressCountry),
        region: nullish(shortText()),
        subregion: nullish(shortText()),
        city: nullish(shortText()),
        postal_code: nullish(shortText(32)),
      }),
    ),
    registration_mode: nullish(shortText(64)),
  })
  .meta({ id: 'TaxNexus' });
export type TaxNexus = z.infer<typeof taxNexusSchema>;

/** A `{id, code, name_org, name_leg, name}` reference (payment term, delivery condition on a document). */
export const codedReferenceSchema = z.object({
  id: nullish(int64),
  code: nullish(shortText(64)),
  name_org: nullish(shortText()),
  name_leg: nullish(shortText()),
  name: nullish(shortText()),
});

// --- errors (architecture §2) ----------------------------------------------------------------------

export const fieldErrorSchema = z.object({
  path: z.string().describe('Field path such as items[0].qty, or (root)'),
  message: z.string(),
  code: z.string().describe('Stable machine word, e.g. too_small, invalid_type'),
});
export type FieldError = z.infer<typeof fieldErrorSchema>;

/** RFC 9457 problem details, served as `application/problem+json`. */
export const problemSchema = z
  .object({
    type: z.string().describe('Stable relative URI, e.g. /problems/validation-error'),
    title: z.string(),
    status: z.int().min(400).max(599),
    detail: z.string(),
    instance: z.string().optional().describe('The request path'),
    code: z.string().describe('Stable machine word, e.g. validation_error, duplicate_number, document_locked'),
    request_id: z.string().optional().describe('The X-Request-Id of the request'),
    errors: z.array(fieldErrorSchema).optional().describe('One entry per failing field (400, some 422)'),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' });
export type Problem = z.infer<typeof problemSchema>;

/** `{id}` path parameter: an int64 record id. */
export const idPathParams = z.object({
  id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('Record id (int64)'),
});

/** `layout` and `culture` of a rendering. */
export const renderQuery = z.object({
  layout: z.string().max(SHORT_TEXT).optional().describe('Template code; the default template when absent'),
  culture: culture.optional().describe('Language of the rendering (BCP 47), e.g. cs-CZ'),
});

/**
 * Figures and identity of a stored document that a client may send back with a write (a copy of
 * an answer, say): accepted and ignored, or compared with the computed ones under `strict`.
 */
export const derivedDocumentInputFields = {
  id: ignoredInput(int64),
  uid: ignoredInput(z.string().max(64)),
  created_at: ignoredInput(z.string().max(64)),
  edited_at: ignoredInput(z.string().max(64)),
  is_locked: ignoredInput(z.boolean()),
  total_amount: ignoredInput(money),
  subtotal_amount: ignoredInput(money),
  amount_paid: ignoredInput(money),
  amount_due: ignoredInput(money),
  payment_status: ignoredInput(shortText(32)),
  overdue_days: ignoredInput(int32),
};

/**
 * Query of a document write (POST of invoices, credit notes, bills, vendor credits): `strict=true`
 * compares the derived figures a client sends with the computed ones and answers 422
 * `derived_figures_mismatch` when any differs (architecture §4); without it they are ignored.
 */
export const documentWriteQuerySchema = z.object({
  strict: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1')
    .describe('true: 422 derived_figures_mismatch when a sent derived figure (totals, line amounts, recap) differs from the computed one'),
});

export const PAYMENT_STATUSES = ['unpaid', 'partially_paid', 'paid', 'overpaid'] as const;
export const paymentStatusSchema = z.enum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof paymentStatusSchema>;
