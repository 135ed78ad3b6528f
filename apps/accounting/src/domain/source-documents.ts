import { z } from 'zod';

/*
 * The fields the posting rules read of a document. A live event is first parsed with its
 * producer's contract schema (`EVENT_DATA_SCHEMAS`, in `events/ledger-events.ts`), so what reaches
 * these schemas is contract data; they only narrow it to what posting needs, typed for the pure
 * posting rules and their tests.
 */

const num = z.number().finite();
const optNum = num.nullish();
const optStr = z.string().nullish();
const looseRecord = z.record(z.string(), z.unknown());

export const glAccountRefSchema = z.looseObject({ id: z.number().nullish(), number: z.union([z.string(), z.number()]).transform(String).nullish(), name: optStr });
export const contactRefSchema = z.looseObject({
  id: z.number().nullish(),
  business_name: optStr,
  display_name: optStr,
  vat_no: optStr,
  reg_no: optStr,
  tax_no: optStr,
  address: z.looseObject({ country: optStr }).nullish(),
});
export const paidRecordRefSchema = z.looseObject({
  id: z.number().nullish(),
  no: optStr,
  type: optStr,
  contact: z.looseObject({ id: z.number().nullish(), business_name: optStr }).nullish(),
});

export const taxLineSchema = z.looseObject({
  tax_rate: num,
  tax_amount: num,
  tax_amount_leg: optNum,
  tax_base: num,
  tax_base_leg: optNum,
  currency_leg: optStr,
  tax_index: z.number().int().nullish(),
  tax_code: optStr,
  tax_name: optStr,
  rate_type: optStr,
  tax_details: looseRecord.nullish(),
  is_reverse_charge: z.boolean().nullish(),
});
export type TaxLine = z.infer<typeof taxLineSchema>;

export const documentItemSchema = z.looseObject({
  description: optStr,
  amount: num,
  tax_deduction_ratio: optNum,
  net_deduction_ratio: optNum,
  gl_account: glAccountRefSchema.nullish(),
  item: z.looseObject({ gl_account: glAccountRefSchema.nullish() }).nullish(),
  taxes: z.array(taxLineSchema).nullish(),
});
export type DocumentItem = z.infer<typeof documentItemSchema>;

const documentCommon = {
  id: z.number().int(),
  no: optStr,
  version: z.number().int().nullish(),
  currency: z.string(),
  legal_currency: optStr,
  currency_coef: optNum,
  fx_rate: optNum,
  tax_fx_rate: optNum,
  date_issued: z.string(),
  date_taxable: optStr,
  date_due: optStr,
  total_amount: num,
  subtotal_amount: num,
  total_amount_leg: optNum,
  subtotal_amount_leg: optNum,
  amount_paid: optNum,
  amount_due: optNum,
  precision: z.number().int().nullish(),
  taxes_included: z.boolean().nullish(),
  payment_reference: optStr,
  bank_account: looseRecord.nullish(),
  tax_nexus: looseRecord.nullish(),
  type: looseRecord.nullish(),
  items: z.array(documentItemSchema).default([]),
  taxes: z.array(taxLineSchema).default([]),
  credited_doc_id: z.number().nullish(),
  credited_doc_no: optStr,
  org: z.looseObject({ address: z.looseObject({ country: optStr }).nullish(), country: optStr }).nullish(),
  org_country: optStr,
};

export const salesDocumentSchema = z.looseObject({
  ...documentCommon,
  customer: contactRefSchema.nullish(),
  billing_address: z.looseObject({ country: optStr }).nullish(),
  notes: optStr,
  shipping_charges: z.array(z.looseObject({ amount: num, taxes: z.array(taxLineSchema).nullish() })).nullish(),
});
export type SalesDocument = z.infer<typeof salesDocumentSchema>;

export const purchaseDocumentSchema = z.looseObject({
  ...documentCommon,
  vendor: contactRefSchema.nullish(),
  vendor_doc_no: optStr,
  description: optStr,
});
export type PurchaseDocument = z.infer<typeof purchaseDocumentSchema>;

export const bankTransactionDocumentSchema = z.looseObject({
  id: z.number().int(),
  version: z.number().int().nullish(),
  amount: num,
  amount_leg: optNum,
  settlement_amount_leg: optNum,
  currency: z.string(),
  legal_currency: optStr,
  fx_rate: optNum,
  currency_coef: optNum,
  fx_rate_source: optStr,
  date_transaction: z.string(),
  date_accounting: optStr,
  description: optStr,
  payment_reference: optStr,
  payment_amount: optNum,
  account_number: optStr,
  contact: contactRefSchema.nullish(),
  paid_record: paidRecordRefSchema.nullish(),
  gl_account: glAccountRefSchema.nullish(),
});
export type BankTransactionDocument = z.infer<typeof bankTransactionDocumentSchema>;

export const payoutLineDocumentSchema = z.looseObject({
  amount: num,
  amount_leg: optNum,
  settlement_amount_leg: optNum,
  fx_rate: optNum,
  currency_coef: optNum,
  fx_rate_source: optStr,
  description: optStr,
  payment_amount: optNum,
  currency: optStr,
  date_transaction: optStr,
  date_accounting: optStr,
  paid_record: paidRecordRefSchema.nullish(),
  gl_account: glAccountRefSchema.nullish(),
});
export const payoutDocumentSchema = z.looseObject({
  id: z.number().int(),
  version: z.number().int().nullish(),
  no: optStr,
  currency: z.string(),
  legal_currency: optStr,
  fx_rate: optNum,
  currency_coef: optNum,
  date_issued: optStr,
  description: optStr,
  total_amount: optNum,
  total_amount_leg: optNum,
  psp_object_id: optStr,
  transaction_type: looseRecord.nullish(),
  lines: z.array(payoutLineDocumentSchema).nullish(),
});
export type PayoutDocument = z.infer<typeof payoutDocumentSchema>;
