import { z } from 'zod';
import { type Contact, contactSchema, currencyCode, glAccountSchema, decimal, id, ignoredInput, derivedDocumentInputFields, int32, int64, isoDate, isoDateTime, longText, money, nullish, PAYMENT_STATUSES, percentRate, positiveRate, precision, ratio, shortText, taxNexusSchema, transactionTypeSchema, uuid, documentFxRateOrigin } from './common.js';
import { pagedEnvelope, pagingQuery, rangeQuery, repeatedParam, searchQuery, sortQuery, keysetPagedEnvelope, keysetPagingQuery } from './paging.js';
import { supplyKind, taxCategory } from './tax-category.js';
import { vendorCheckSchema } from './contacts.js';

/*
 * Purchase documents: vendor credits, vendor bills (architecture §1: the vendor-credit
 * shape less credited_doc_*) and the inventory-in export.
 *
 * Required inputs of a purchase document: `type` (spec: required in the request), `vendor`,
 * `currency`, `date_issued` and at least one item with `qty` and `rate`. Derived figures are
 * accepted and ignored.
 */

// --- tax lines -------------------------------------------------------------------------------

/** Document tax line (vendor credit / bill), as stored; the same shape per item and in the recap. */
export const purchaseTaxLineSchema = z
  .object({
    id: nullish(int64),
    tax_index: nullish(int32),
    tax_rate: percentRate,
    tax_amount: money,
    tax_amount_leg: nullish(money),
    tax_base: money,
    tax_base_leg: nullish(money),
    tax_code: nullish(shortText(64)),
    tax_name: nullish(shortText()),
    rate_type: nullish(shortText(64)),
    tax_category: nullish(taxCategory).describe('The VAT category (UNCL5305) decided when the document was recorded; AE: the organisation self-assesses the tax (reverse charge)'),
  })
  .meta({ id: 'PurchaseTaxLine', description: 'Document tax line (vendor credit, vendor bill); tax_rate in percent' });
export type PurchaseTaxLine = z.infer<typeof purchaseTaxLineSchema>;
/** Alias: the spec's "document tax line (vendor credit)". */
export const vendorCreditTaxLineSchema = purchaseTaxLineSchema;

export const purchaseTaxLineRequestSchema = z
  .object({
    id: nullish(int64),
    tax_index: nullish(int32),
    tax_rate: percentRate,
    tax_code: nullish(shortText(64)),
    tax_name: nullish(shortText()),
    rate_type: nullish(shortText(64)),
    tax_category: nullish(taxCategory).describe('The VAT category (UNCL5305); AE: reverse charge, the organisation self-assesses the tax at tax_rate. Absent: decided from a category code or alias as tax_code or rate_type (AE, RC, reverse_charge…) and the rate'),
    tax_amount: ignoredInput(money),
    tax_amount_leg: ignoredInput(money),
    tax_base: ignoredInput(money),
    tax_base_leg: ignoredInput(money),
  })
  .meta({ id: 'PurchaseTaxLineRequest', description: 'Tax of a line: tax_rate in percent; figures are computed' });
export type PurchaseTaxLineRequest = z.infer<typeof purchaseTaxLineRequestSchema>;

// --- items -----------------------------------------------------------------------------------

export const purchaseItemRefSchema = z.object({
  id: nullish(int64),
  code: nullish(shortText(64)),
  name_org: nullish(shortText()),
  name_leg: nullish(shortText()),
  name: nullish(shortText()),
  desc_org: nullish(longText()),
  desc_leg: nullish(longText()),
  desc: nullish(longText()),
});
export const purchaseUnitSchema = z.object({
  id: nullish(int64),
  unece_code: nullish(shortText(8)),
  name_org: nullish(shortText()),
  name_leg: nullish(shortText()),
  name: nullish(shortText()),
});

const purchaseItemCommon = {
  id: nullish(int64),
  description: nullish(longText()),
  tax_deduction_ratio: nullish(ratio).describe('Share of input tax that may be deducted, 0–1 (default 1)'),
  net_deduction_ratio: nullish(ratio).describe('Share of the net amount that is a deductible cost, 0–1 (default 1)'),
  item: nullish(purchaseItemRefSchema),
  unit: nullish(purchaseUnitSchema),
  gl_account: nullish(glAccountSchema).describe('Cost account of this line (number) overriding 504/518 when posting'),
  supply: nullish(supplyKind).describe('goods (cost 504) or services (518); absent: the organisation\'s default_supply, else goods'),
};

export const purchaseItemSchema = z
  .object({
    ...purchaseItemCommon,
    qty: decimal,
    rate: decimal,
    amount: money,
    taxes: z.array(purchaseTaxLineSchema),
  })
  .meta({ id: 'PurchaseItem', description: 'Item of a vendor credit or vendor bill' });
export type PurchaseItem = z.infer<typeof purchaseItemSchema>;
export const vendorCreditItemSchema = purchaseItemSchema;

export const purchaseItemRequestSchema = z
  .object({
    ...purchaseItemCommon,
    qty: decimal.refine((q) => q !== 0, { message: 'qty must not be zero' }).describe('Quantity; not zero'),
    rate: decimal.describe('Unit price; net or gross per taxes_included'),
    amount: ignoredInput(money),
    taxes: nullish(z.array(purchaseTaxLineRequestSchema).max(10)),
  })
  .meta({ id: 'PurchaseItemRequest', description: 'Item of a purchase document request: qty and rate required' });
export type PurchaseItemRequest = z.infer<typeof purchaseItemRequestSchema>;
export const vendorCreditItemRequestSchema = purchaseItemRequestSchema;

// --- documents -------------------------------------------------------------------------------

const purchaseInputFields = {
  contact_id: nullish(id).describe("The directory's contact (GET /v1/contacts) the vendor is copied from; fields of vendor the request states win, and the contact's currency, payment terms and first bank account apply where the request states none"),
  date_taxable: nullish(isoDate),
  date_due: nullish(isoDate),
  no: nullish(shortText(64)).describe('Internal number; allocated from the numbering series when absent'),
  description: nullish(longText()),
  rate_format: nullish(shortText(32)),
  tax_fx_rate: nullish(positiveRate).describe(
    "Legal currency per unit used for tax figures; 1 in the legal currency. When absent in a foreign currency, the exchange-rate table's rate in force on date_taxable (else date_issued); 422 fx_rate_required when the table has none",
  ),
  tax_nexus: nullish(taxNexusSchema),
  vendor_doc_no: nullish(shortText(64)).describe("The vendor's own document number"),
  payment_reference: nullish(shortText(140)),
  bank_account_number: nullish(shortText(64)),
  copy_from_id: nullish(int64),
  rsn: nullish(shortText()).describe('Reason'),
  rounding_amount: nullish(money.min(-5).max(5)).describe(
    "The rounding the vendor's document adds to its total with VAT (EN 16931 BT-114, e.g. to whole crowns), at most 5 either way: total_amount includes it, the ledger posts it to 548 or 648",
  ),
  prepaid_amount: nullish(money.min(0)).describe(
    "What the vendor's document says was paid before it (BT-113, e.g. an advance): kept as the document states it; amount_due is not reduced until a payment or credit is applied",
  ),
};

/**
 * A purchase document's payment status: the shared ones, and `ordered` while a bill waits in an open
 * payment order (issue 76) with something left to pay.
 */
export const BILL_PAYMENT_STATUSES = [...PAYMENT_STATUSES, 'ordered'] as const;
export const billPaymentStatusSchema = z.enum(BILL_PAYMENT_STATUSES).describe('unpaid, partially_paid, paid, overpaid; ordered: in an open payment order (payment_order_id) and not yet paid');
export type BillPaymentStatus = z.infer<typeof billPaymentStatusSchema>;

const purchaseStoredFields = {
  id: id,
  uid: uuid,
  created_at: isoDateTime,
  edited_at: nullish(isoDateTime),
  is_locked: z.boolean(),
  total_amount: money,
  subtotal_amount: money,
  amount_paid: money,
  amount_due: money,
  currency: currencyCode,
  vendor: contactSchema,
  date_issued: isoDate,
  no: shortText(64),
  precision: precision,
  taxes_included: z.boolean(),
  ...documentFxRateOrigin,
  type: transactionTypeSchema,
  payment_status: billPaymentStatusSchema,
  overdue_days: nullish(int32),
  items: z.array(purchaseItemSchema),
  taxes: z.array(purchaseTaxLineSchema).describe('Tax recap: one row per tax code and rate'),
};

const purchaseRequestFields = {
  ...purchaseInputFields,
  type: transactionTypeSchema.describe('Transaction type (required)'),
  vendor: nullish(contactSchema).describe('The vendor (required unless contact_id names one)'),
  currency: nullish(currencyCode).describe('ISO 4217 currency (required unless the contact named by contact_id has one)'),
  date_issued: isoDate.describe('Issue date (required)'),
  precision: nullish(precision),
  taxes_included: nullish(z.boolean()).describe('true: rates are gross; false (default): net'),
  items: z.array(purchaseItemRequestSchema).min(1),
  // accepted and ignored
  ...derivedDocumentInputFields,
  taxes: ignoredInput(z.array(purchaseTaxLineSchema.partial())),
};

/** Vendor credit as stored and returned. */
export const vendorCreditSchema = z
  .object({
    ...purchaseInputFields,
    ...purchaseStoredFields,
    credited_doc_id: nullish(int64),
    credited_doc_no: nullish(shortText(64)),
  })
  .meta({ id: 'VendorCredit', description: 'Vendor credit' });
export type VendorCredit = z.infer<typeof vendorCreditSchema>;

/** Body of POST /purchase/vendor-credits: `type` is required. */
export const vendorCreditRequestSchema = z
  .object({
    ...purchaseRequestFields,
    credited_doc_id: nullish(id).describe('The credited vendor bill: same vendor and currency; all credits of a bill together may not exceed its total (422 credit_exceeds_document)'),
    credited_doc_no: nullish(shortText(64)).describe(
      "The vendor's number of the credited invoice. Given alone, the bill of the same vendor that recorded it as vendor_doc_no is the one credited (credited_doc_id set, checked as credited_doc_id is); a number no bill, or several, of the vendor carry is kept as a reference",
    ),
  })
  .meta({ id: 'VendorCreditRequest', description: 'Vendor credit to create: type, vendor, currency, date_issued and items required' });
export type VendorCreditRequestBody = z.infer<typeof vendorCreditRequestSchema>;
/** With its vendor and currency resolved (what is posted). */
export type VendorCreditRequest = VendorCreditRequestBody & { vendor: Contact; currency: string };

/**
 * What a bill is (issue 75, decision 237): `standard` a vendor's invoice (posted: Dr 501/504 / Cr
 * 321); `advance` a vendor's proforma (zálohová faktura: not a tax document, never posted, paid to
 * 314); `advance_tax_document` the vendor's tax document on a payment of an advance (its input
 * VAT claimed: Dr 343 / Cr 314).
 */
export const BILL_KINDS = ['standard', 'advance', 'advance_tax_document'] as const;
export const billKindSchema = z.enum(BILL_KINDS);
export type BillKind = z.infer<typeof billKindSchema>;

/** What a final bill deducts of one advance bill's payments, rate by rate as the vendor's tax documents taxed them. */
export const billAdvanceDeductionSchema = z
  .object({
    bill_id: id,
    bill_no: shortText(64),
    vendor_doc_no: nullish(shortText(64)),
    amount: money.describe('Deducted from the total: what was paid on the advance bill (its VAT included)'),
    amount_leg: money.describe('amount in the legal currency, as the tax documents stated it (an untaxed rest at the bill rate)'),
    untaxed_amount: money.describe('Part of amount no tax document taxed'),
    taxes: z
      .array(
        z.object({
          tax_rate: percentRate,
          tax_code: nullish(shortText(64)),
          tax_base: money.describe('Base taxed by the tax documents at this rate'),
          tax_amount: money.describe('Input VAT the tax documents claimed at this rate'),
          tax_base_leg: money,
          tax_amount_leg: money,
        }),
      )
      .describe('The deduction per rate; empty when the vendor issued no tax document'),
    tax_documents: z.array(z.object({ id: id, no: shortText(64) })).describe('The tax documents whose VAT this deduction takes back'),
  })
  .meta({ id: 'BillAdvanceDeduction', description: 'An advance bill whose payments a final bill deducts' });
export type BillAdvanceDeduction = z.infer<typeof billAdvanceDeductionSchema>;

const billOwnFields = {
  advance_bill_id: nullish(id).describe('kind advance_tax_document: the advance bill whose payment the vendor taxed (required then)'),
};

/** Vendor bill (architecture §1): the vendor-credit shape less credited_doc_*. */
export const vendorBillSchema = z
  .object({
    ...purchaseInputFields,
    ...purchaseStoredFields,
    vendor_check: nullish(vendorCheckSchema),
    // optional on the wire's contract: events recorded before bill kinds existed carry none (a standard bill)
    kind: nullish(billKindSchema).describe('standard: a vendor invoice; advance: a vendor proforma (not posted, its payments to 314); advance_tax_document: the vendor tax document on a paid advance (input VAT claimed). Always answered; absent on events recorded before bill kinds (standard)'),
    ...billOwnFields,
    advance_bill_no: nullish(shortText(64)).describe('kind advance_tax_document: the advance bill number'),
    tax_documents: nullish(z.array(z.object({ id: id, no: shortText(64), vendor_doc_no: nullish(shortText(64)), total_amount: money })))
      .describe('kind advance: the tax documents recorded on its payments'),
    settled_by: nullish(z.object({ id: id, no: shortText(64) })).describe('kind advance: the final bill that deducted it'),
    advances: nullish(z.array(billAdvanceDeductionSchema)).describe('A final bill: the advance bills it deducts'),
    advance_amount: nullish(money).describe('Σ advances[].amount: counted in amount_paid, so amount_due is what is left of total_amount'),
    payment_order_id: nullish(id).describe('The payment order the bill was last put in (kept once it paid the bill; null when none, or it was cancelled)'),
  })
  .meta({ id: 'VendorBill', description: 'Vendor bill' });
export type VendorBill = z.infer<typeof vendorBillSchema>;

export const vendorBillRequestSchema = z
  .object({
    ...purchaseRequestFields,
    kind: nullish(billKindSchema).describe('standard (default), advance (a vendor proforma) or advance_tax_document (the vendor tax document on a paid advance; names advance_bill_id)'),
    ...billOwnFields,
    advances: nullish(
      z
        .array(z.object({ bill_id: id.describe('A paid or partly paid advance bill of the same vendor and currency') }))
        .max(50)
        .refine((a) => new Set(a.map((x) => x.bill_id)).size === a.length, { message: 'an advance bill is named once' }),
    ).describe('A standard bill: the advance bills whose payments it deducts with their VAT; one already deducted is 409 advance_already_deducted'),
  })
  .meta({ id: 'VendorBillRequest', description: 'Vendor bill to create: type, vendor, currency, date_issued and items required' });
export type VendorBillRequestBody = z.infer<typeof vendorBillRequestSchema>;
/** With its vendor and currency resolved (what is posted). */
export type VendorBillRequest = VendorBillRequestBody & { vendor: Contact; currency: string };

/** Query of GET /purchase/bills and GET /purchase/vendor-credits. */
export const purchaseDocumentListQuerySchema = z.object({
  ...keysetPagingQuery(100),
  search: searchQuery.optional(),
  sort: sortQuery.optional(),
  payment_status: repeatedParam(billPaymentStatusSchema).optional().describe('Payment statuses to include; repeatable'),
});
export type PurchaseDocumentListQuery = z.output<typeof purchaseDocumentListQuerySchema>;
/** The bill and vendor-credit lists: the export's query, and what changed since a sync. */
const purchaseListQuerySchema = purchaseDocumentListQuerySchema.extend({
  date_due: rangeQuery('date').optional().describe('Due-date range: with payment_status=unpaid and partially_paid, `[;<date>]` lists what must be paid by then'),
  updated_since: isoDateTime.optional().describe('Only documents created or changed (paid, a credit applied) at or after this instant'),
});
export const vendorBillListQuerySchema = purchaseListQuerySchema.extend({
  kind: repeatedParam(billKindSchema).optional().describe('Bill kinds to include (standard, advance, advance_tax_document); repeatable; all when absent'),
});
export const vendorCreditListQuerySchema = purchaseListQuerySchema;
export const vendorBillPageSchema = keysetPagedEnvelope(vendorBillSchema);
export const vendorCreditPageSchema = keysetPagedEnvelope(vendorCreditSchema);

// --- inventory-in export ---------------------------------------------------------------

export const EXPORT_FORMATS = ['json', 'csv'] as const;
export const exportFormatSchema = z.enum(EXPORT_FORMATS);

export const inventoryInExportPathSchema = z.object({
  format: exportFormatSchema.default('json').describe('json (default) or csv (UTF-8 with a header row)'),
});

export const inventoryInExportQuerySchema = z.object({
  ...pagingQuery(100),
  search: searchQuery.optional(),
  sort: sortQuery.optional(),
  payment_status: repeatedParam(billPaymentStatusSchema).optional().describe('Payment statuses to include; repeatable'),
});
export type InventoryInExportQuery = z.output<typeof inventoryInExportQuerySchema>;

/** One received purchase document in the export (also the CSV columns, in this order). */
export const inventoryInRowSchema = z
  .object({
    document_type: z.enum(['purchase_bill', 'purchase_vendor_credit']),
    id: int64,
    no: z.string(),
    vendor_doc_no: z.string().nullable(),
    vendor_name: z.string().nullable(),
    vendor_vat_no: z.string().nullable(),
    date_issued: isoDate,
    date_taxable: isoDate.nullable(),
    date_due: isoDate.nullable(),
    currency: currencyCode,
    subtotal_amount: money,
    tax_amount: money,
    total_amount: money,
    amount_paid: money,
    amount_due: money,
    payment_status: billPaymentStatusSchema,
  })
  .meta({ id: 'InventoryInRow', description: 'A received purchase document (bill or vendor credit) in the inventory-in export' });
export type InventoryInRow = z.infer<typeof inventoryInRowSchema>;
export const inventoryInExportSchema = pagedEnvelope(inventoryInRowSchema);

/** Query of POST /purchase/bills/import. */
export const einvoiceImportQuerySchema = z.object({
  type_id: z.coerce.number().int().min(1).max(2_147_483_647).optional().describe('Transaction type of the document (int32); 1 (purchase) when absent'),
  tax_fx_rate: z.coerce
    .number()
    .positive()
    .max(1_000_000)
    .optional()
    .describe('Legal currency per unit of the document currency, for a document in another currency than the books: required then, unless the document states the rate to the legal currency itself (an ISDOC CurrRate)'),
  accept_other_buyer: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1')
    .describe('true: import a document whose buyer VAT id (or Peppol address) is not the organisation\'s; otherwise that is 422 einvoice_buyer_mismatch'),
});

/** What an import created: a vendor bill from an Invoice, a vendor credit from a CreditNote. */
export const importedDocumentSchema = z
  .object({
    kind: z.enum(['bill', 'vendor_credit']),
    bill: vendorBillSchema.nullable().describe('The vendor bill (kind bill)'),
    vendor_credit: vendorCreditSchema.nullable().describe('The vendor credit (kind vendor_credit)'),
  })
  .meta({ id: 'ImportedDocument', description: 'The document an e-invoice import created' });
export type ImportedDocument = z.infer<typeof importedDocumentSchema>;
