import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** What a contact holds beyond the columns it is found by (address, bank accounts, terms…), as the API names it. */
export interface ContactDetails {
  display_name?: string | null;
  tax_no?: string | null;
  address?: Record<string, unknown> | null;
  phone?: string | null;
  preferred_locale?: string | null;
  bank_accounts?: Array<{ account_number: string | null; iban: string | null; bic: string | null }>;
  payment_terms_days?: number | null;
  currency?: string | null;
  notes?: string | null;
}

export const ContactSchema = defineEntity({
  name: 'Contact',
  tableName: 'contacts',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    businessName: p.text().fieldName('business_name'),
    /** Normalised as checked: IČO eight digits, DIČ upper case without spaces. */
    regNo: p.text().nullable().fieldName('reg_no'),
    vatNo: p.text().nullable().fieldName('vat_no'),
    peppolId: p.text().nullable().fieldName('peppol_id'),
    email: p.text().nullable(),
    details: p.json<ContactDetails>(),
    archived: p.boolean(),
    /** Set once a document has named it: from then on a delete archives it. */
    used: p.boolean(),
    createdAt: p.datetime().fieldName('created_at').onCreate(() => new Date()),
    updatedAt: p.datetime().fieldName('updated_at').onCreate(() => new Date()),
  },
});
/** A customer or vendor of an organisation's directory (decision 234). */
export type Contact = InferEntity<typeof ContactSchema>;

export const contactEntities = [ContactSchema];
