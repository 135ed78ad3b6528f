import { z } from 'zod';
import {
  AMOUNT_LIMIT,
  CONTENT_TEXT,
  addressSchema,
  bankAccountSchema,
  codedReferenceSchema,
  contactSchema,
  culture,
  currencyCode,
  decimal,
  id,
  int32,
  int64,
  isoDate,
  isoDateTime,
  longText,
  money,
  nullish,
  pagedEnvelope,
  pagingQuery,
  paymentStatusSchema,
  percentRate,
  positiveRate,
  precision,
  rangeQuery,
  repeatedParam,
  searchQuery,
  shortText,
  sortQuery,
  taxNexusSchema,
  transactionTypeSchema,
  uuid,
  glAccountSchema,
  ignoredInput,
  derivedDocumentInputFields,
  roundingIncrement,
} from './common.js';

/*
 * Sales documents (architecture §1, §4 arithmetic), items and price lists
 * (architecture §1), e-mail records and compliance records.
 *
 * Request schemas: derived figures a client sends (amount, subtotal_amount, total_amount,
 * tax_amount, *_leg, amount_paid, amount_due, id, uid, created_at, …) are accepted and ignored;
 * the service computes them (architecture §4). Required inputs of a sales document: `customer`,
 * `currency`, `date_issued` and at least one item with `qty` and `rate`.
 */

const nonZeroQty = decimal.refine((q) => q !== 0, { message: 'qty must not be zero' }).describe('Quantity; not zero');

// --- tax lines -------------------------------------------------------------------------------

/** Document tax line (sales), as stored: per item, per shipping charge and in the document recap. */
export const salesTaxLineSchema = z
  .object({
    id: nullish(int64),
    tax_rate: percentRate,
    tax_amount: money,
    tax_amount_leg: nullish(money),
    tax_base: money,
    tax_base_leg: nullish(money),
    currency_leg: nullish(currencyCode),
    tax_index: nullish(int32),
    tax_code: nullish(shortText(64)),
    tax_name: nullish(shortText()),
    rate_type: nullish(shortText(64)),
    tax_details: nullish(z.record(z.string(), z.unknown())),
  })
  .meta({ id: 'SalesTaxLine', description: 'Document tax line (sales); tax_rate in percent' });
export type SalesTaxLine = z.infer<typeof salesTaxLineSchema>;

/** A tax applied to a line of a request: `tax_rate` (percent) required; computed figures ignored. */
export const salesTaxLineRequestSchema = z
  .object({
    id: nullish(int64),
    tax_code: nullish(shortText(64)),
    tax_name: nullish(shortText()),
    tax_rate: percentRate,
    tax_index: nullish(int32),
    rate_type: nullish(shortText(64)),
    tax_details: nullish(z.record(z.string(), z.unknown())),
    tax_amount: nullish(money).describe('Ignored: computed'),
    tax_amount_leg: nullish(money).describe('Ignored: computed'),
    tax_base: nullish(money).describe('Ignored: computed'),
    tax_base_leg: nullish(money).describe('Ignored: computed'),
    currency_leg: nullish(currencyCode).describe('Ignored: the organisation legal currency'),
  })
  .meta({ id: 'SalesTaxLineRequest', description: 'Tax of a line: tax_rate in percent; figures are computed' });
export type SalesTaxLineRequest = z.infer<typeof salesTaxLineRequestSchema>;

/** A document-level recap row sent by a client: accepted and ignored (the recap is computed). */
const salesTaxRecapInputSchema = salesTaxLineSchema.partial();

// --- item lines ------------------------------------------------------------------------------

export const salesItemRefSchema = z.object({
  id: nullish(int64),
  sku: nullish(shortText(64)),
  name_org: nullish(shortText()),
  name_leg: nullish(shortText()),
  name: nullish(shortText()),
  desc_org: nullish(longText()),
  desc_leg: nullish(longText()),
  desc: nullish(longText()),
});
export const variantSchema = z.object({ id: nullish(int64), name: nullish(shortText()) });
export const salesUnitSchema = z.object({
  id: nullish(int64),
  code: nullish(shortText(32)),
  unece_code: nullish(shortText(8)),
  symbol_org: nullish(shortText(32)),
  symbol_leg: nullish(shortText(32)),
  symbol: nullish(shortText(32)),
  name_org: nullish(shortText()),
  name_leg: nullish(shortText()),
  name: nullish(shortText()),
});

const salesItemCommon = {
  id: nullish(int64),
  title: nullish(shortText(1000)),
  description: nullish(longText()),
  shop_a_line_id: nullish(int64),
  psp_object_id: nullish(shortText()),
  shop_b_line_id: nullish(int64),
  eshop_line_id: nullish(int64),
  sku: nullish(shortText(64)),
  item: nullish(salesItemRefSchema),
  variant: nullish(variantSchema),
  unit: nullish(salesUnitSchema),
  gl_account: nullish(glAccountSchema).describe('Revenue account of this line (number) overriding 604 when posting; when absent, the account of the catalogue item named by item.id'),
};

/** Sales document item (credit note or invoice), as stored. */
export const salesItemSchema = z
  .object({
    ...salesItemCommon,
    qty: decimal,
    rate: decimal,
    rate_discounted: nullish(decimal),
    discount_explicit: nullish(money),
    discount_implicit: nullish(money),
    amount: money,
    net_amount: nullish(money).describe('amount after the allocated document discount, the base its taxes are computed on'),
    taxes: z.array(salesTaxLineSchema),
  })
  .meta({ id: 'SalesItem', description: 'Item of a sales credit note or invoice' });
export type SalesItem = z.infer<typeof salesItemSchema>;

export const salesItemRequestSchema = z
  .object({
    ...salesItemCommon,
    qty: nonZeroQty,
    rate: decimal.describe('Unit price; net or gross per taxes_included'),
    discount_explicit: nullish(money).describe('Discount of this line in the document currency'),
    rate_discounted: nullish(decimal).describe('Ignored: computed'),
    discount_implicit: nullish(money).describe('Ignored: allocated from document discounts'),
    amount: nullish(money).describe('Ignored: computed'),
    taxes: nullish(z.array(salesTaxLineRequestSchema).max(10)),
  })
  .meta({ id: 'SalesItemRequest', description: 'Item of a sales document request: qty and rate required' });
export type SalesItemRequest = z.infer<typeof salesItemRequestSchema>;

/** Credit-note item — the sales item. */
export const creditNoteItemSchema = salesItemSchema;
export const creditNoteItemRequestSchema = salesItemRequestSchema;

// --- shipping charges, discounts, urls -------------------------------------------------------

const shippingCommon = {
  id: nullish(int64),
  title: nullish(shortText(1000)),
  shop_a_line_id: nullish(int64),
  shop_b_line_id: nullish(int64),
  eshop_line_id: nullish(int64),
};
export const shippingChargeSchema = z
  .object({
    ...shippingCommon,
    amount: money,
    discount_implicit: nullish(money),
    net_amount: nullish(money).describe('amount after the allocated document discount'),
    taxes: z.array(salesTaxLineSchema),
  })
  .meta({ id: 'ShippingCharge' });
export type ShippingCharge = z.infer<typeof shippingChargeSchema>;

export const shippingChargeRequestSchema = z
  .object({
    ...shippingCommon,
    amount: money.describe('Shipping charge; net or gross per taxes_included'),
    discount_implicit: nullish(money).describe('Ignored: allocated from document discounts'),
    taxes: nullish(z.array(salesTaxLineRequestSchema).max(10)),
  })
  .meta({ id: 'ShippingChargeRequest' });
export type ShippingChargeRequest = z.infer<typeof shippingChargeRequestSchema>;

export const DISCOUNT_VALUE_TYPES = ['percentage', 'fixed_amount'] as const;
export const DISCOUNT_ALLOCATION_METHODS = ['across', 'each'] as const;
export const DISCOUNT_TARGET_TYPES = ['line_item', 'shipping_line'] as const;

const discountCommon = {
  title: nullish(shortText()),
  value_type: z.enum(DISCOUNT_VALUE_TYPES).describe('percentage (value in percent) or fixed_amount'),
  allocation_method: nullish(z.enum(DISCOUNT_ALLOCATION_METHODS)).describe('across (default) or each'),
  target_type: nullish(z.enum(DISCOUNT_TARGET_TYPES)).describe('line_item (default) or shipping_line'),
};
export const discountSchema = z
  .object({ ...discountCommon, value: decimal, amount: money })
  .meta({ id: 'Discount', description: 'Document-level discount, allocated to lines' });
export type Discount = z.infer<typeof discountSchema>;

export const discountRequestSchema = z
  .object({
    ...discountCommon,
    value: z.number().min(0).max(1e15).describe('Percent for percentage, amount for fixed_amount'),
    amount: nullish(money).describe('Ignored: computed'),
  })
  .refine((d) => d.value_type !== 'percentage' || d.value <= 100, { message: 'a percentage discount is at most 100', path: ['value'] })
  .meta({ id: 'DiscountRequest' });
export type DiscountRequest = z.infer<typeof discountRequestSchema>;

export const documentUrlSchema = z
  .object({ token: nullish(shortText()), expire_at: nullish(isoDateTime), url: nullish(shortText(2000)) })
  .meta({ id: 'DocumentUrl', description: 'A shareable link to the rendered document' });

// --- issuer ----------------------------------------------------------------------------------

/** The issuing organisation printed on a document (a document's `org`). */
export const orgIssuerShape = {
  name: nullish(shortText()),
  reg_no: nullish(shortText(64)),
  tax_no: nullish(shortText(64)),
  vat_no: nullish(shortText(64)),
  eori_no: nullish(shortText(64)),
  address: nullish(addressSchema),
  info_legal: nullish(longText()),
  config: nullish(
    z.object({
      logo: nullish(z.string().max(CONTENT_TEXT)).describe('URL or data URI'),
      signature: nullish(z.string().max(CONTENT_TEXT)).describe('URL or data URI'),
    }),
  ),
  website: nullish(shortText(2000)),
  email: nullish(shortText(320)),
  phone: nullish(shortText(64)),
  fb: nullish(shortText(2000)),
  insta: nullish(shortText(2000)),
};
export const orgIssuerSchema = z.object(orgIssuerShape).meta({ id: 'OrgIssuer', description: 'The issuing organisation' });
export type OrgIssuer = z.infer<typeof orgIssuerSchema>;

// --- sales documents -------------------------------------------------------------------------

/** How a sales document is paid (printed as "Způsob úhrady" on Czech documents). */
export const PAYMENT_METHODS = ['bank_transfer', 'cash', 'card', 'cash_on_delivery'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Fields a client may set on a sales document (both request and response carry them). */
const salesDocumentInputFields = {
  bank_account: nullish(bankAccountSchema),
  billing_address: nullish(addressSchema),
  shipping_address: nullish(addressSchema),
  counter_id: nullish(int64).describe('Numbering series; the default series of the document type when absent'),
  currency_coef: nullish(positiveRate).describe('Units of currency the fx_rate is quoted for (default 1)'),
  fx_rate: nullish(positiveRate).describe('Legal currency per currency_coef units; 1 when currency is the legal currency'),
  tax_fx_rate: nullish(positiveRate).describe('fx_rate used for tax figures; fx_rate when absent'),
  culture: nullish(culture),
  document_locale: nullish(culture),
  template_layout: nullish(shortText()),
  date_taxable: nullish(isoDate),
  date_due: nullish(isoDate).describe('Due date: on or after date_issued (an earlier one is 400 due_before_issue)'),
  delivery_condition: nullish(codedReferenceSchema),
  no: nullish(shortText(64)).describe('Document number; allocated from the numbering series when absent'),
  notes: nullish(longText()),
  memo: nullish(longText()),
  org: nullish(orgIssuerSchema).describe('Issuer; the organisation profile when absent'),
  payment_reference: nullish(shortText(140)),
  payment_info: nullish(longText()),
  payment_method: nullish(z.enum(PAYMENT_METHODS)).describe(
    'How the customer pays, printed on the document: bank_transfer (what a document with a bank account says when this is absent), cash, card, cash_on_delivery',
  ),
  constant_symbol: nullish(z.string().regex(/^\d{1,4}$/, 'one to four digits')).describe('Czech and Slovak constant symbol (KS), printed beside the variable symbol'),
  specific_symbol: nullish(z.string().regex(/^\d{1,10}$/, 'one to ten digits')).describe('Czech and Slovak specific symbol (SS), printed beside the variable symbol'),
  rounding_increment: nullish(roundingIncrement).describe(
    "Round the total with VAT to a multiple of this (1: whole crowns), VAT unchanged; the difference is rounding_amount (EN 16931 BT-114), posted to its own account. Absent: the organisation's rounding_increment for documents in its legal currency, none for others; null: no rounding. A multiple of the document's smallest unit (400 otherwise)",
  ),
  payment_term: nullish(codedReferenceSchema),
  rate_format: nullish(shortText(32)),
  tax_nexus: nullish(taxNexusSchema),
  type: nullish(transactionTypeSchema),
  shop_a_object_id: nullish(int64).describe('Identifier of the object in an external online shop'),
};

/** Figures and state computed by the service (response only; ignored in requests). */
const salesDocumentStoredFields = {
  id: id,
  uid: uuid,
  created_at: isoDateTime,
  edited_at: nullish(isoDateTime),
  is_locked: z.boolean(),
  total_amount: money,
  subtotal_amount: money,
  tax_amount: nullish(money).describe('Σ of the tax recap'),
  rounding_amount: nullish(money).describe('Added to subtotal_amount + tax_amount to make total_amount a multiple of rounding_increment (BT-114); 0 without rounding'),
  rounding_amount_leg: nullish(money).describe('rounding_amount in the legal currency'),
  currency_leg: nullish(currencyCode).describe('The legal currency of the _leg figures'),
  subtotal_amount_leg: nullish(money).describe('subtotal_amount in the legal currency, as the ledger posts it'),
  tax_amount_leg: nullish(money).describe('tax_amount in the legal currency: Σ of the recap tax_amount_leg'),
  total_amount_leg: nullish(money).describe('total_amount in the legal currency: subtotal_amount_leg + tax_amount_leg + rounding_amount_leg'),
  amount_paid: money,
  amount_due: money,
  customer: contactSchema,
  currency: currencyCode,
  date_issued: isoDate,
  no: shortText(64),
  precision: precision,
  taxes_included: z.boolean(),
  payment_status: paymentStatusSchema,
  overdue_days: nullish(int32),
  items: z.array(salesItemSchema),
  taxes: z.array(salesTaxLineSchema).describe('Tax recap: one row per tax code and rate'),
  shipping_charges: z.array(shippingChargeSchema),
  discounts: z.array(discountSchema),
  urls: nullish(z.array(documentUrlSchema)),
};

const ignored = ignoredInput;

const salesDocumentRequestFields = {
  ...salesDocumentInputFields,
  customer: contactSchema.describe('The customer (required)'),
  currency: currencyCode.describe('ISO 4217 currency of the document (required)'),
  date_issued: isoDate.describe('Issue date (required)'),
  precision: nullish(precision),
  taxes_included: nullish(z.boolean()).describe('true: rates are gross; false (default): net'),
  items: z.array(salesItemRequestSchema).min(1),
  shipping_charges: nullish(z.array(shippingChargeRequestSchema).max(100)),
  discounts: nullish(z.array(discountRequestSchema).max(100)),
  // accepted and ignored
  ...derivedDocumentInputFields,
  rounding_amount: ignored(money),
  taxes: ignored(z.array(salesTaxRecapInputSchema)),
  urls: ignored(z.array(documentUrlSchema)),
};

/** Sales credit note as stored and returned. */
/** The buyer's references (Peppol BT-10, BT-13); a credit note without them takes its credited invoice's. */
const buyerReferenceFields = {
  buyer_reference: nullish(shortText()).describe('Buyer reference (Peppol BT-10)'),
  order_reference: nullish(shortText()).describe('Purchase order reference (Peppol BT-13)'),
};

export const creditNoteSchema = z
  .object({
    ...salesDocumentInputFields,
    ...salesDocumentStoredFields,
    credited_doc_id: nullish(int64),
    credited_doc_no: nullish(shortText(64)),
    ...buyerReferenceFields,
  })
  .meta({ id: 'CreditNote', description: 'Sales credit note' });
export type CreditNote = z.infer<typeof creditNoteSchema>;

/** Body of POST /sales/credit-notes. */
export const creditNoteRequestSchema = z
  .object({
    ...salesDocumentRequestFields,
    credited_doc_id: nullish(id).describe('The credited invoice: same organisation, customer and currency; all credit notes of an invoice together may not exceed its total (422 credit_exceeds_invoice)'),
    credited_doc_no: nullish(shortText(64)).describe('Number of the credited invoice; taken from it when credited_doc_id is given'),
    ...buyerReferenceFields,
  })
  .meta({ id: 'CreditNoteRequest', description: 'Sales credit note to create: customer, currency, date_issued and items required' });
export type CreditNoteRequest = z.infer<typeof creditNoteRequestSchema>;


/** Sales invoice (architecture §1): the credit note less credited_doc_*. */
export const invoiceSchema = z
  .object({ ...salesDocumentInputFields, ...salesDocumentStoredFields, ...buyerReferenceFields })
  .meta({ id: 'Invoice', description: 'Sales invoice' });
export type Invoice = z.infer<typeof invoiceSchema>;

export const invoiceRequestSchema = z
  .object({ ...salesDocumentRequestFields, ...buyerReferenceFields })
  .meta({ id: 'InvoiceRequest', description: 'Sales invoice to create: customer, currency, date_issued and items required' });
export type InvoiceRequest = z.infer<typeof invoiceRequestSchema>;

/** Query of the sales document lists (GET /sales/invoices, GET /sales/credit-notes). */
export const salesDocumentListQuerySchema = z.object({
  ...pagingQuery(100),
  search: searchQuery.optional(),
  sort: sortQuery.optional(),
  payment_status: repeatedParam(paymentStatusSchema).optional().describe('Payment statuses to include; repeatable'),
  date_issued: rangeQuery('date').optional(),
  date_due: rangeQuery('date').optional().describe('Due-date range: with payment_status=unpaid and partially_paid, `[;<yesterday>]` lists what is overdue'),
  updated_since: isoDateTime.optional().describe('Only documents created or edited at or after this instant'),
});
export type SalesDocumentListQuery = z.output<typeof salesDocumentListQuerySchema>;
export const invoiceListQuerySchema = salesDocumentListQuerySchema;
export const creditNoteListQuerySchema = salesDocumentListQuerySchema;

export const invoicePageSchema = pagedEnvelope(invoiceSchema);
export const creditNotePageSchema = pagedEnvelope(creditNoteSchema);

// --- credit-note number check ----------------------------------------------------------

export const creditNoteCheckNoQuerySchema = z.object({
  no: z.string().max(64).optional().describe('The credit-note number to look up'),
  exclude_id: repeatedParam(z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER))
    .optional()
    .describe('Credit-note ids to ignore (int64); repeatable'),
});
export type CreditNoteCheckNoQuery = z.output<typeof creditNoteCheckNoQuerySchema>;

export const creditNoteCheckNoResultSchema = z
  .object({ exists: z.boolean(), ids: nullish(z.array(int64)) })
  .meta({ id: 'CreditNoteNumberCheck', description: 'Whether the number exists and which credit notes hold it' });
export type CreditNoteCheckNoResult = z.infer<typeof creditNoteCheckNoResultSchema>;

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
    gl_account: nullish(glAccountSchema).describe('Revenue account overriding 604 when posting'),
  })
  .meta({ id: 'Item', description: 'Catalogue item' });
export type Item = z.infer<typeof itemSchema>;

export const itemRequestSchema = z
  .object({
    id: ignored(int64),
    sku: nullish(shortText(64)),
    name: shortText().min(1),
    unit: nullish(itemUnitSchema),
    sales_rate: decimal.describe('Net sales rate in currency'),
    currency: currencyCode,
    tax_rate: nullish(percentRate),
    gl_account: nullish(glAccountSchema).describe('Revenue account (number) overriding 604 when posting'),
  })
  .meta({ id: 'ItemRequest', description: 'Item to create: name, sales_rate and currency required' });
export type ItemRequest = z.infer<typeof itemRequestSchema>;

export const itemListQuerySchema = z.object({ ...pagingQuery(100), search: searchQuery.optional(), sort: sortQuery.optional() });
export type ItemListQuery = z.output<typeof itemListQuerySchema>;
export const itemPageSchema = pagedEnvelope(itemSchema);

// --- numbering series ------------------------------------------------------------------------

export const NUMBER_SERIES_DOC_TYPES = ['sales_invoice', 'sales_credit_note'] as const;
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
    id: ignored(int64),
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
    id: ignored(int64),
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

// --- e-mail -----------------------------------------------------------------------

export const emailAttachmentSchema = z.object({
  id: nullish(int64),
  file_name: nullish(shortText()),
  binary_content: nullish(z.base64().max(CONTENT_TEXT)).describe('File content, base64'),
});

const emailMessageFields = {
  from: nullish(shortText(320)),
  reply_to: nullish(shortText(320)),
  to: nullish(shortText(2000)).describe('Recipients, comma separated; the customer e-mail when absent'),
  to_cc: nullish(shortText(2000)),
  to_bcc: nullish(shortText(2000)),
  subject: nullish(shortText(998)),
  body: nullish(z.string().max(CONTENT_TEXT)),
  include_attachment: nullish(z.boolean()).describe('Attach the invoice PDF'),
  include_einvoice: nullish(z.enum(['ubl', 'isdoc'])).describe(
    'Attach the invoice as an e-invoice too: ubl (Peppol BIS Billing 3.0, UBL 2.1, as INVOICE-NO.xml) or isdoc (ISDOC 6.0.2, as INVOICE-NO.isdoc). An invoice the format cannot carry yet answers 422 einvoice_incomplete and nothing is sent',
  ),
  attachments: nullish(z.array(emailAttachmentSchema).max(20)),
};

export const EMAIL_STATUSES = ['sent', 'written', 'failed'] as const;

/** E-mail record with its outcome (architecture §7 extension fields). */
export const emailRecordSchema = z
  .object({
    id: id,
    ...emailMessageFields,
    status: nullish(z.enum(EMAIL_STATUSES)).describe('Outcome: sent over SMTP, written as .eml, or failed'),
    error: nullish(longText()).describe('Why the attempt failed'),
    document_type: nullish(z.enum(['sales_invoice', 'sales_credit_note'])),
    document_id: nullish(int64),
    created_at: nullish(isoDateTime),
  })
  .meta({ id: 'EmailRecord', description: 'E-mail record: one per sending attempt' });
export type EmailRecord = z.infer<typeof emailRecordSchema>;

/** Body of POST /sales/invoices/{id}/email: the message. */
export const emailRequestSchema = z
  .object({ id: ignored(int64), ...emailMessageFields })
  .meta({ id: 'EmailRequest', description: 'The message to send; empty fields are filled from the invoice and customer' });
export type EmailRequest = z.infer<typeof emailRequestSchema>;

export const emailListQuerySchema = z.object({ ...pagingQuery(10) });
export type EmailListQuery = z.output<typeof emailListQuerySchema>;
export const emailListSchema = z.array(emailRecordSchema);

export const emailInvoiceQuerySchema = z.object({
  layout: z.string().max(255).optional().describe('Template code of the attached rendering'),
  culture: culture.optional().describe('Language of the attached rendering'),
});

export const invoiceEmailResultSchema = z
  .object({
    id: int64.describe('Id of the e-mail record'),
    success: z.boolean(),
    to: z.string().nullable(),
    subject: z.string().nullable(),
    no: z.string().nullable().describe('Invoice number'),
  })
  .meta({ id: 'InvoiceEmailResult' });
export type InvoiceEmailResult = z.infer<typeof invoiceEmailResultSchema>;

// --- compliance (POST /v1/sales/invoices/compliance/evaluate, architecture §8) -------------------------------------------------

export const COMPLIANCE_STATUSES = ['pending', 'evaluated', 'blocked'] as const;
export const REPORTING_METHODS = ['no_reporting', 'reporting_by_delivery'] as const;
export const DELIVERY_ELIGIBILITIES = ['eligible', 'eligible_via_required_channel'] as const;
export const REQUIRED_ACTIONS = ['none', 'send_via_peppol'] as const;

export const allowedActionsSchema = z.object({
  send_email: z.boolean(),
  download_pdf: z.boolean(),
  send_via_peppol: z.boolean(),
  submit_to_tax_authority: z.boolean(),
});

export const complianceRecordSchema = z
  .object({
    invoice_id: int64,
    compliance: z.object({
      status: z.enum(COMPLIANCE_STATUSES),
      reporting_method: z.enum(REPORTING_METHODS).nullable(),
      delivery_eligibility: z.enum(DELIVERY_ELIGIBILITIES).nullable(),
      required_action: z.enum(REQUIRED_ACTIONS).nullable(),
      allowed_actions: allowedActionsSchema.nullable(),
      evaluated_at: isoDateTime.nullable(),
      blocking_reason: z
        .string()
        .nullable()
        .describe('Why the invoice is blocked: invoice_not_found, national_platform_required:<platform> or a Peppol rule id'),
    }),
  })
  .meta({ id: 'ComplianceRecord', description: 'Invoice compliance record' });
export type ComplianceRecord = z.infer<typeof complianceRecordSchema>;

/**
 * Body of POST /sales/invoices/compliance/evaluate: the ids (int64) of the invoices to
 * evaluate, 1 to 1000 of them. An id unknown in the organisation yields a blocked record with
 * `blocking_reason: invoice_not_found`, not a failed batch.
 */
export const complianceEvaluateBodySchema = z
  .array(id)
  .min(1)
  .max(1000)
  .meta({ id: 'ComplianceEvaluateRequest', description: 'Invoice ids (integers, int64) to evaluate: 1 to 1000 entries' });
export type ComplianceEvaluateBody = z.infer<typeof complianceEvaluateBodySchema>;
export const complianceEvaluateResultSchema = z.array(complianceRecordSchema);

