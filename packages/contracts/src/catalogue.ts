import { z } from 'zod';
import { AMOUNT_LIMIT, currencyCode, decimal, id, int64, isoDate, isoDateTime, nullish, percentRate, shortText, glAccountSchema, ignoredInput } from './common.js';
import { pagedEnvelope, pagingQuery, searchQuery, sortQuery } from './paging.js';
import { supplyKind } from './tax-category.js';

/* Items, price lists, numbering series and the item sales rate (architecture §1). */

// --- items and price lists (architecture §1) -------------------------------------------------------

const itemUnitSchema = z.object({ code: nullish(shortText(32)), name: nullish(shortText()) });

export const itemSchema = z
  .object({
    id: id,
    sku: nullish(shortText(64)),
    name: shortText(),
    unit: nullish(itemUnitSchema),
    sales_rate: decimal.describe('Net sales rate in currency'),
    currency: currencyCode,
    tax_rate: nullish(percentRate),
    gl_account: nullish(glAccountSchema).describe('Revenue account overriding 604/602 when posting'),
    supply: nullish(supplyKind).describe('goods or services: what a document line naming this item supplies unless it says so itself'),
  })
  .meta({ id: 'Item', description: 'Catalogue item' });
export type Item = z.infer<typeof itemSchema>;

export const itemRequestSchema = z
  .object({
    id: ignoredInput(int64),
    sku: nullish(shortText(64)),
    name: shortText().min(1),
    unit: nullish(itemUnitSchema),
    sales_rate: decimal.describe('Net sales rate in currency'),
    currency: currencyCode,
    tax_rate: nullish(percentRate),
    gl_account: nullish(glAccountSchema).describe('Revenue account (number) overriding 604/602 when posting'),
    supply: nullish(supplyKind).describe('goods or services (default: the organisation\'s default_supply when a line uses it)'),
  })
  .meta({ id: 'ItemRequest', description: 'Item to create: name, sales_rate and currency required' });
export type ItemRequest = z.infer<typeof itemRequestSchema>;

export const itemListQuerySchema = z.object({ ...pagingQuery(100), search: searchQuery.optional(), sort: sortQuery.optional() });
export type ItemListQuery = z.output<typeof itemListQuerySchema>;
export const itemPageSchema = pagedEnvelope(itemSchema);

// --- numbering series ------------------------------------------------------------------------

export const NUMBER_SERIES_DOC_TYPES = ['sales_invoice', 'sales_credit_note', 'sales_proforma', 'sales_advance_tax_document'] as const;
const seriesDocType = z.enum(NUMBER_SERIES_DOC_TYPES).describe('The documents the series numbers');

/** A numbering series of sales documents (architecture §4 numbering; `counter_id` of a document names it). */
export const numberSeriesSchema = z
  .object({
    id: id,
    doc_type: seriesDocType,
    name: shortText(),
    mask: shortText(64).describe('e.g. INV{YYYY}{#####}: {YYYY} {YY} {MM} {DD} and one counter {#…}; the counter restarts each year (month) the mask names'),
    is_default: z.boolean().describe('Numbers documents that name no counter_id; one per document type'),
    created_at: isoDateTime,
  })
  .meta({ id: 'NumberingSeries', description: 'Numbering series of sales documents' });
export type NumberSeriesView = z.infer<typeof numberSeriesSchema>;

export const numberSeriesRequestSchema = z
  .object({
    id: ignoredInput(int64),
    doc_type: seriesDocType,
    name: shortText().min(1),
    mask: z.string().min(1).max(64).describe('{YYYY} {YY} {MM} {DD} and exactly one counter {#…} (1–18 #); other characters are literal'),
    is_default: nullish(z.boolean()).describe('true makes it the default series of its document type (the previous default stays, no longer default)'),
  })
  .meta({ id: 'NumberingSeriesRequest', description: 'Numbering series to create: doc_type, name and mask required' });
export type NumberSeriesRequest = z.infer<typeof numberSeriesRequestSchema>;

export const numberSeriesListQuerySchema = z.object({ ...pagingQuery(100), doc_type: seriesDocType.optional() });
export type NumberSeriesListQuery = z.output<typeof numberSeriesListQuerySchema>;
export const numberSeriesPageSchema = pagedEnvelope(numberSeriesSchema);

const priceListRateSchema = z.object({
  item_id: id,
  rate: decimal.describe('Net rate in the price list currency'),
  min_qty: z.number().min(0).max(AMOUNT_LIMIT).nullish().describe('Smallest quantity the rate applies to (default 0)'),
});

const priceListFields = {
  name: shortText().min(1),
  currency: currencyCode,
  valid_from: nullish(isoDate),
  valid_to: nullish(isoDate),
  rates: z.array(priceListRateSchema).max(10_000),
};
const validityOrder = (p: { valid_from?: string | null; valid_to?: string | null }) =>
  !p.valid_from || !p.valid_to || p.valid_from <= p.valid_to;

const PRICE_LIST_RULE =
  'A price list applies to an item rate lookup when the lookup names it (price_list_id), or when it is the default list of the asked currency; otherwise the item\'s own rate applies.';

export const priceListSchema = z
  .object({ id: id, ...priceListFields, is_default: z.boolean().describe('The default list of its currency: used by rate lookups that name no list') })
  .meta({ id: 'PriceList', description: `Price list. ${PRICE_LIST_RULE}` });
export type PriceList = z.infer<typeof priceListSchema>;

export const priceListRequestSchema = z
  .object({
    id: ignoredInput(int64),
    ...priceListFields,
    is_default: nullish(z.boolean()).describe('Make this the default list of its currency (the previous default stops being one); false when absent'),
  })
  .refine(validityOrder, { message: 'valid_from is after valid_to', path: ['valid_to'] })
  .meta({ id: 'PriceListRequest', description: 'Price list to create: name, currency and rates' });
export type PriceListRequest = z.infer<typeof priceListRequestSchema>;

// --- item sales rate -------------------------------------------------------------------

export const RATE_FORMATS = ['netto', 'brutto'] as const;

export const itemSalesRateQuerySchema = z.object({
  rate_format: z.enum(RATE_FORMATS).default('netto').describe('netto (net, default) or brutto (with the item tax)'),
  item_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('int64; the path id when absent'),
  price_list_id: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe("The price list to use (int64); when absent, the default list of the currency, else the item's own rate"),
  currency_code: currencyCode.optional().describe('Currency of the rate; the item currency when absent'),
  qty: z.coerce.number().positive().max(AMOUNT_LIMIT).optional().describe('Quantity (double); 1 when absent'),
  reference_date: isoDateTime.optional().describe('Instant the rate must be valid at; now when absent'),
});
export type ItemSalesRateQuery = z.output<typeof itemSalesRateQuerySchema>;

export const itemSalesRateSchema = z
  .object({
    rate: z.number().nullable(),
    source: z.enum(['price_list', 'item']).nullable(),
    price_list_id: int64.nullable(),
  })
  .meta({ id: 'ItemSalesRate', description: `Best sales rate of an item. ${PRICE_LIST_RULE}` });
export type ItemSalesRate = z.infer<typeof itemSalesRateSchema>;
