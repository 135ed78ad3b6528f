import { z } from 'zod';
import { CONTENT_TEXT, type Contact, addressSchema, bankAccountSchema, codedReferenceSchema, contactSchema, culture, currencyCode, decimal, id, int32, int64, isoDate, isoDateTime, longText, money, nullish, paymentStatusSchema, percentRate, positiveRate, precision, shortText, taxNexusSchema, transactionTypeSchema, uuid, glAccountSchema, ignoredInput, derivedDocumentInputFields, roundingIncrement, documentFxRateOrigin } from './common.js';
import { rangeQuery, repeatedParam, searchQuery, sortQuery, keysetPagedEnvelope, keysetPagingQuery } from './paging.js';
import { supplyKind, taxCategory } from './tax-category.js';
import { customerVatCheckSchema } from './contacts.js';


/*
 * Sales documents (architecture §1, §4 arithmetic): invoices and credit notes, their lines,
 * discounts, shipping and issuer. Items and numbering series are in catalogue.ts, e-mail records
 * in emails.ts, compliance records in compliance.ts.
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
    tax_category: nullish(taxCategory).describe('The VAT category (UNCL5305) decided when the document was issued, from the line\'s tax_category, tax_details.reverse_charge, tax_code, rate_type, rate and parties; every report and e-invoice reads it'),
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
    tax_category: nullish(taxCategory).describe('The VAT category (UNCL5305: S, AA, Z, E, AE reverse charge, K intra-EU, G export, O, L, M); absent: decided from tax_details.reverse_charge, a category code or alias as tax_code or rate_type (RC, reverse_charge, intra_eu, exempt, export…), the rate and the parties'),
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
  gl_account: nullish(glAccountSchema).describe('Revenue account of this line (number) overriding 604/602 when posting; when absent, the account of the catalogue item named by item.id'),
  supply: nullish(supplyKind).describe('goods (revenue 604, EC Sales List code 0) or services (602, code 3); absent: the catalogue item\'s, else the organisation\'s default_supply, else goods'),
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
  contact_id: nullish(id).describe("The directory's contact (GET /v1/contacts) the customer is copied from; fields of customer the request states win, and the contact's currency and payment terms apply where the request states none"),
  bank_account: nullish(bankAccountSchema),
  billing_address: nullish(addressSchema),
  shipping_address: nullish(addressSchema),
  counter_id: nullish(int64).describe('Numbering series; the default series of the document type when absent'),
  currency_coef: nullish(positiveRate).describe('Units of currency the fx_rate is quoted for (default 1)'),
  fx_rate: nullish(positiveRate).describe(
    "Legal currency per currency_coef units; 1 when currency is the legal currency. When absent in a foreign currency, the exchange-rate table's rate in force on date_taxable (else date_issued) and its currency_coef; 422 fx_rate_required when the table has none",
  ),
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
  ...documentFxRateOrigin,
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
  customer_vat_check: nullish(customerVatCheckSchema).describe("An intra-EU supply's (tax category K) check of the customer's VAT number in VIES on the day it was issued; absent for other documents"),
  items: z.array(salesItemSchema),
  taxes: z.array(salesTaxLineSchema).describe('Tax recap: one row per tax code and rate'),
  shipping_charges: z.array(shippingChargeSchema),
  discounts: z.array(discountSchema),
  urls: nullish(z.array(documentUrlSchema)),
};

const ignored = ignoredInput;

const salesDocumentRequestFields = {
  ...salesDocumentInputFields,
  customer: nullish(contactSchema).describe('The customer (required unless contact_id names one)'),
  currency: nullish(currencyCode).describe("ISO 4217 currency of the document (required unless the contact named by contact_id has one)"),
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
    credited_doc_no: nullish(shortText(64)).describe(
      'Number of the credited invoice; taken from it when credited_doc_id is given. Given alone, the invoice of this organisation with that number is the one credited (credited_doc_id set, checked as credited_doc_id is); a number no invoice here has is kept as a reference',
    ),
    ...buyerReferenceFields,
  })
  .meta({ id: 'CreditNoteRequest', description: 'Sales credit note to create: customer (or contact_id), currency, date_issued and items required' });
/** A credit note's request as the API takes it (its customer may come from contact_id). */
export type CreditNoteRequestBody = z.infer<typeof creditNoteRequestSchema>;
/** A credit note's request with its customer and currency resolved (what is posted). */
export type CreditNoteRequest = CreditNoteRequestBody & { customer: Contact; currency: string };


/** What a final invoice deducts of one proforma's payments, rate by rate as its tax documents taxed them. */
export const advanceDeductionTaxSchema = z
  .object({
    tax_rate: percentRate,
    tax_code: nullish(shortText(64)),
    tax_base: money.describe('Base taxed by the advance tax documents at this rate'),
    tax_amount: money.describe('VAT the advance tax documents declared at this rate'),
    tax_base_leg: money,
    tax_amount_leg: money,
  })
  .meta({ id: 'AdvanceDeductionTax', description: 'One rate of an advance deducted by a final invoice' });

export const advanceDeductionSchema = z
  .object({
    proforma_id: id,
    proforma_no: shortText(64),
    amount: money.describe('Deducted from the total: what was paid on the proforma (its VAT included)'),
    amount_leg: money.describe('amount in the legal currency, as the tax documents stated it (untaxed overpayment at the invoice rate)'),
    untaxed_amount: money.describe('Part of amount no tax document taxed (an overpayment, or any payment of a non-VAT payer)'),
    taxes: z.array(advanceDeductionTaxSchema).describe('The deduction per rate; empty when no tax document was issued'),
    tax_documents: z.array(z.object({ id: id, no: shortText(64) })).describe('The advance tax documents whose VAT this deduction takes back'),
  })
  .meta({ id: 'AdvanceDeduction', description: 'A proforma whose payments a final invoice deducts' });
export type AdvanceDeduction = z.infer<typeof advanceDeductionSchema>;

/** Sales invoice (architecture §1): the credit note less credited_doc_*. */
export const invoiceSchema = z
  .object({
    ...salesDocumentInputFields,
    ...salesDocumentStoredFields,
    ...buyerReferenceFields,
    recurring_invoice_id: nullish(int64).describe('The recurring invoice that issued it'),
    advances: nullish(z.array(advanceDeductionSchema)).describe('Proformas whose payments this final invoice deducts (vyúčtování); absent on other invoices'),
    advance_amount: nullish(money).describe('Σ advances[].amount: counted in amount_paid, so amount_due is what is left of total_amount'),
  })
  .meta({ id: 'Invoice', description: 'Sales invoice' });
export type Invoice = z.infer<typeof invoiceSchema>;

/** The fields a proforma's body shares with an invoice's (its request is an invoice's without `advances`). */
const invoiceBodyFields = { ...salesDocumentRequestFields, ...buyerReferenceFields, recurring_invoice_id: ignored(int64) };

export const invoiceRequestSchema = z
  .object({
    ...invoiceBodyFields,
    advances: nullish(
      z
        .array(z.object({ proforma_id: id.describe('A paid or partly paid proforma of the same customer and currency') }))
        .max(50)
        .refine((a) => new Set(a.map((x) => x.proforma_id)).size === a.length, { message: 'a proforma is named once' }),
    ).describe('Proformas whose payments this final invoice deducts with their VAT; one already deducted is 409 advance_already_deducted'),
  })
  .meta({ id: 'InvoiceRequest', description: 'Sales invoice to create: customer (or contact_id), currency, date_issued and items required' });
/** An invoice's request as the API takes it (its customer may come from contact_id). */
export type InvoiceRequestBody = z.infer<typeof invoiceRequestSchema>;
/** An invoice's request with its customer and currency resolved (what is posted). */
export type InvoiceRequest = InvoiceRequestBody & { customer: Contact; currency: string };

/** Query of the sales document lists (GET /sales/invoices, GET /sales/credit-notes). */
export const salesDocumentListQuerySchema = z.object({
  ...keysetPagingQuery(100),
  search: searchQuery.optional(),
  sort: sortQuery.optional(),
  customer_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe("Only this customer's documents (the contact id the document names)"),
  payment_status: repeatedParam(paymentStatusSchema).optional().describe('Payment statuses to include; repeatable'),
  date_issued: rangeQuery('date').optional(),
  date_due: rangeQuery('date').optional().describe('Due-date range: with payment_status=unpaid and partially_paid, `[;<yesterday>]` lists what is overdue'),
  updated_since: isoDateTime.optional().describe('Only documents created or edited at or after this instant'),
});
export type SalesDocumentListQuery = z.output<typeof salesDocumentListQuerySchema>;
export const invoiceListQuerySchema = salesDocumentListQuerySchema.extend({
  recurring_invoice_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('Only the invoices this recurring invoice issued'),
});
export type InvoiceListQuery = z.output<typeof invoiceListQuerySchema>;
export const creditNoteListQuerySchema = salesDocumentListQuerySchema;

export const invoicePageSchema = keysetPagedEnvelope(invoiceSchema);
export const creditNotePageSchema = keysetPagedEnvelope(creditNoteSchema);

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

// --- advance invoices (proformas) and the tax documents of their payments ---------------------

export const PROFORMA_STATUSES = ['unpaid', 'partially_paid', 'paid', 'settled', 'cancelled'] as const;
export const proformaStatusSchema = z
  .enum(PROFORMA_STATUSES)
  .describe('unpaid, partially_paid, paid (by its payments); settled: a final invoice deducted it; cancelled');

export const proformaTaxDocumentRefSchema = z.object({
  id: id,
  no: shortText(64),
  date_issued: isoDate,
  total_amount: money,
  tax_amount: money,
});

/** Body of POST and PUT /sales/proforma-invoices: an invoice's. */
export const proformaInvoiceRequestSchema = z
  .object(invoiceBodyFields)
  .meta({ id: 'ProformaInvoiceRequest', description: 'Proforma (advance) invoice: the body of an invoice; customer (or contact_id), currency, date_issued and items required' });
export type ProformaInvoiceRequestBody = z.infer<typeof proformaInvoiceRequestSchema>;

/** A proforma invoice (zálohová faktura): a request for payment in advance, not a tax document and not posted. */
export const proformaInvoiceSchema = z
  .object({
    ...salesDocumentInputFields,
    ...salesDocumentStoredFields,
    ...buyerReferenceFields,
    status: proformaStatusSchema,
    variable_symbol: z.string().describe('What a payment states to be found as paying this proforma'),
    tax_documents: z.array(proformaTaxDocumentRefSchema).describe("The tax documents issued on its payments (a refund's is negative)"),
    settled_by: nullish(z.object({ invoice_id: id, invoice_no: shortText(64) })).describe('The final invoice that deducted it'),
    cancelled_at: nullish(isoDateTime),
  })
  .meta({ id: 'ProformaInvoice', description: 'Proforma invoice: asks for payment in advance; its payments are held on 324 until a final invoice deducts them' });
export type ProformaInvoice = z.infer<typeof proformaInvoiceSchema>;

export const proformaListQuerySchema = salesDocumentListQuerySchema.omit({ payment_status: true }).extend({
  status: repeatedParam(proformaStatusSchema).optional().describe('Statuses to include; repeatable'),
});
export type ProformaListQuery = z.output<typeof proformaListQuerySchema>;
export const proformaInvoicePageSchema = keysetPagedEnvelope(proformaInvoiceSchema);

/** The tax document a VAT payer issues on a payment received for a proforma (daňový doklad k přijaté platbě, §28 ZDPH). */
export const advanceTaxDocumentSchema = z
  .object({
    ...salesDocumentInputFields,
    ...salesDocumentStoredFields,
    proforma_id: id,
    proforma_no: shortText(64),
    payment: z
      .object({
        payment_id: int64,
        source: z.enum(['bank_transaction', 'payout_line']),
        date: isoDate,
        amount: money.describe('The payment applied to the proforma; negative: a refund'),
        accounted_amount: money.describe('What of the payments this document declares, VAT included: the part up to the proforma total (an overpayment is held untaxed)'),
      })
      .describe('The payment (or refund) whose VAT it declares'),
  })
  .meta({ id: 'AdvanceTaxDocument', description: 'Tax document on a received advance: its VAT falls due on the day of payment' });
export type AdvanceTaxDocument = z.infer<typeof advanceTaxDocumentSchema>;
export const advanceTaxDocumentListQuerySchema = salesDocumentListQuerySchema.omit({ payment_status: true, date_due: true }).extend({
  proforma_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('Only those of this proforma'),
});
export type AdvanceTaxDocumentListQuery = z.output<typeof advanceTaxDocumentListQuerySchema>;
export const advanceTaxDocumentPageSchema = keysetPagedEnvelope(advanceTaxDocumentSchema);

// --- hosting orders (issue 75, part 5) ----------------------------------------------------------

/** Body of POST /sales/hosting-orders: an invoice's body for the order, the integration and the provider's order id. */
export const hostingOrderRequestSchema = z
  .object({
    ...invoiceBodyFields,
    integration_id: z.string().trim().min(1).max(100).describe('The hosting integration (PUT /v1/settings/integrations/cz/hosting/{id}) the order comes through'),
    order_id: z.string().trim().min(1).max(64).describe("The provider's order id: an order is recorded once (a repeat answers the order recorded)"),
  })
  .meta({ id: 'HostingOrderRequest', description: "An order from a hosting provider: an invoice's body, the integration and the order id" });
export type HostingOrderRequestBody = z.infer<typeof hostingOrderRequestSchema>;

export const hostingOrderSchema = z
  .object({
    id: id,
    integration_id: z.string(),
    order_id: z.string(),
    create_invoice_after: z.enum(['order', 'payment']).describe("The integration's setting when the order came: payment asks with a proforma and invoices once it is paid"),
    status: z.enum(['awaiting_payment', 'invoiced']),
    proforma: z
      .object({ id: id, no: shortText(64), variable_symbol: nullish(shortText(64)), status: z.string(), total_amount: money, amount_due: money })
      .nullable()
      .describe('The proforma asking for payment (create_invoice_after payment)'),
    invoice: z.object({ id: id, no: shortText(64) }).nullable().describe('The invoice: at once, or once the proforma is paid in full (deducting it)'),
    created_at: isoDateTime,
  })
  .meta({ id: 'HostingOrder', description: 'An order from a hosting provider and the documents it brought about' });
export type HostingOrder = z.infer<typeof hostingOrderSchema>;
