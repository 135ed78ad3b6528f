import { z } from 'zod';
import { isoDateTime, nullish } from './common.js';

// --- the filer's data for tax filings (GET/PUT /v1/settings/tax-filing) ---------------------------

/**
 * What the Czech tax office's forms (EPO XML: the VAT return, the control statement, the EC Sales
 * List) need of the filer that the ledger does not know: the tax office, whether the filer is a
 * company or a person, who signs and who to call, and whether it files monthly or quarterly.
 */
const personName = (first: number, last: number) => ({
  first_name: z.string().trim().min(1).max(first),
  last_name: z.string().trim().min(1).max(last),
});

export const taxFilingSettingsRequestSchema = z
  .object({
    tax_office: z.string().regex(/^\d{1,3}$/, 'one to three digits').describe('c_ufo: the code of the tax office (finanční úřad) the filer belongs to, e.g. 451 for Prague'),
    tax_office_workplace: nullish(z.string().regex(/^\d{1,4}$/, 'one to four digits')).describe("c_pracufo: the office's territorial workplace, e.g. 2001"),
    filer_type: z.enum(['legal_person', 'natural_person']).describe('typ_ds: P (a company) or F (a natural person)'),
    natural_person: nullish(z.object({ ...personName(30, 36), title: nullish(z.string().trim().max(10)) }))
      .describe('The natural person filing (filer_type natural_person): jmeno, prijmeni, titul'),
    signatory: nullish(z.object({ ...personName(20, 36), position: z.string().trim().min(1).max(40) })).describe(
      "Who signs for a company (opr_jmeno, opr_prijmeni, opr_postaveni, e.g. 'jednatel')",
    ),
    prepared_by: nullish(z.object({ ...personName(20, 36), phone: nullish(z.string().regex(/^\+?[0-9 ]{1,14}$/).max(14)) })).describe(
      'Who prepared the filing (sest_jmeno, sest_prijmeni, sest_telef)',
    ),
    phone: nullish(z.string().regex(/^\+?[0-9 ]{1,14}$/, 'digits, spaces and a leading +').max(14)).describe("c_telef: the filer's phone"),
    email: nullish(z.email().max(255)).describe("The filer's e-mail"),
    data_box: nullish(z.string().regex(/^[a-z0-9]{7}$/, 'seven lower-case letters and digits')).describe("The filer's data box id (datová schránka)"),
    period: z.enum(['monthly', 'quarterly']).describe('Whether the VAT return is filed for months or quarters (the control statement of a legal person is monthly either way)'),
    reverse_charge_code: nullish(z.string().regex(/^\d{1,2}$/, 'one or two digits'))
      .describe(
        "kod_pred_pl: the subject code of the organisation's domestic reverse-charge supplies for the control statement's A.1 and B.1 (e.g. 4 construction works); documents do not carry their own yet",
      ),
  })
  .superRefine((v, ctx) => {
    if (v.filer_type === 'natural_person' && !v.natural_person) ctx.addIssue({ code: 'custom', path: ['natural_person'], message: 'required for a natural person' });
    if (v.filer_type === 'legal_person' && !v.signatory) ctx.addIssue({ code: 'custom', path: ['signatory'], message: 'required for a legal person: who signs the filings' });
  })
  .meta({ id: 'TaxFilingSettingsRequest', description: "The filer's data the tax office's forms need and the ledger does not know" });
export type TaxFilingSettingsRequest = z.infer<typeof taxFilingSettingsRequestSchema>;

export const taxFilingSettingsSchema = z
  .object({
    tax_office: z.string(),
    tax_office_workplace: z.string().nullable(),
    filer_type: z.enum(['legal_person', 'natural_person']),
    natural_person: z.object({ first_name: z.string(), last_name: z.string(), title: z.string().nullish() }).nullable(),
    signatory: z.object({ first_name: z.string(), last_name: z.string(), position: z.string() }).nullable(),
    prepared_by: z.object({ first_name: z.string(), last_name: z.string(), phone: z.string().nullish() }).nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    data_box: z.string().nullable(),
    period: z.enum(['monthly', 'quarterly']),
    reverse_charge_code: z.string().nullish(),
    updated_at: isoDateTime,
  })
  .meta({ id: 'TaxFilingSettings', description: "The filer's data for tax filings" });
export type TaxFilingSettings = z.infer<typeof taxFilingSettingsSchema>;

/** Answer of `rpc.settings.tax_filing`: the organisation as a filing names it, and the filer's settings (null when not set). */
export const taxFilerAnswerSchema = z.object({
  organisation: z.object({
    name: z.string(),
    vat_no: z.string().nullable(),
    country: z.string(),
    address: z.record(z.string(), z.unknown()).nullable(),
  }),
  settings: taxFilingSettingsSchema.nullable(),
});
export type TaxFilerAnswer = z.infer<typeof taxFilerAnswerSchema>;
