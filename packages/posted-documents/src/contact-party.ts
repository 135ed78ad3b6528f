import { RPC_SUBJECTS, contactResolveAnswerSchema, type Contact, type ContactRecord } from '@ledgerline/contracts';
import { BusinessRuleError, ValidationError, type FieldError, type TenantContext } from '@ledgerline/service-kit';

/*
 * A new document naming a contact of the directory (`contact_id`, decision 234): settings answers
 * the contact (and marks it used), the document copies it into its customer or vendor — fields the
 * request states itself win — and takes the contact's currency, payment terms and (a bill) account
 * where it states none. The copy is the document's: a contact changed later leaves it as issued.
 */

export type PartyField = 'customer' | 'vendor';

/** A document request as the API takes it: its party and currency may come from the contact it names. */
export interface ContactNaming {
  contact_id?: number | null;
  currency?: string | null;
  date_issued: string;
  date_due?: string | null;
  customer?: Contact | null;
  vendor?: Contact | null;
  bank_account_number?: string | null;
}

/** The document's copy of the contact: the fields a document's party carries. */
export function partySnapshot(c: ContactRecord): Contact {
  return {
    id: c.id,
    business_name: c.business_name,
    display_name: c.display_name ?? null,
    reg_no: c.reg_no ?? null,
    vat_no: c.vat_no ?? null,
    tax_no: c.tax_no ?? null,
    address: c.address ?? null,
    email: c.email ?? null,
    preferred_locale: c.preferred_locale ?? null,
    phone: c.phone ?? null,
    peppol_id: c.peppol_id ?? null,
  };
}

/** The day `days` after an ISO day. */
function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const stated = (party: Contact | null | undefined): Partial<Contact> =>
  Object.fromEntries(Object.entries(party ?? {}).filter(([, v]) => v !== null && v !== undefined && v !== '')) as Partial<Contact>;

/**
 * The request with its party and currency resolved: from the contact it names, else as it states
 * them (400 naming each that is missing). A contact the organisation does not have is 422
 * `contact_not_found`, an archived one 422 `contact_archived`, both naming contact_id.
 */
export async function withContactParty<T extends ContactNaming, P extends PartyField>(ctx: Pick<TenantContext, 'ask'>, input: T, party: P): Promise<T & Record<P, Contact> & { currency: string }> {
  let resolved: T = input;
  if (input.contact_id != null) {
    const answer = contactResolveAnswerSchema.parse(await ctx.ask(RPC_SUBJECTS.settingsContactResolve, { id: input.contact_id }));
    if (!answer.found || !answer.contact) {
      throw new BusinessRuleError(`No contact ${input.contact_id} in this organisation`, 'contact_not_found', [{ path: 'contact_id', message: 'no such contact', code: 'contact_not_found' }]);
    }
    const contact = answer.contact as unknown as ContactRecord;
    if (contact.archived) {
      throw new BusinessRuleError(`Contact ${contact.id} is archived: bring it back (PUT /v1/contacts/${contact.id} with archived false) to name it on a new document`, 'contact_archived', [
        { path: 'contact_id', message: 'archived', code: 'contact_archived' },
      ]);
    }
    const account = contact.bank_accounts?.[0];
    resolved = {
      ...input,
      [party]: { ...partySnapshot(contact), ...stated(input[party]), id: contact.id },
      currency: input.currency ?? contact.currency ?? null,
      date_due: input.date_due ?? (contact.payment_terms_days != null ? addDays(input.date_issued, contact.payment_terms_days) : input.date_due),
    };
    if (party === 'vendor' && !input.bank_account_number && account) resolved = { ...resolved, bank_account_number: account.account_number ?? account.iban };
  }
  const missing: FieldError[] = [];
  if (!resolved[party]) missing.push({ path: party, message: `required: the ${party}, or contact_id naming one of the directory`, code: 'required' });
  if (!resolved.currency) missing.push({ path: 'currency', message: input.contact_id != null ? 'required: the contact has no default currency' : 'required', code: 'required' });
  if (missing.length) throw new ValidationError(`Request body is not valid: ${missing.map((m) => `${m.path}: ${m.message}`).join('; ')}`, missing);
  return resolved as T & Record<P, Contact> & { currency: string };
}
