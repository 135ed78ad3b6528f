import type { EntityManager } from '@mikro-orm/postgresql';
import { SUBJECTS, type ContactListQuery, type ContactRecord, type ContactRequest } from '@ledgerline/contracts';
import { checkCompanyNumber, checkCzechAccount, checkIban, checkVatNumber } from '@ledgerline/documents/party-identifiers';
import { ConflictError, NotFoundError, ValidationError, listEntityPage, sortedPage, sqlRows, where, type FieldError, type ListedPage, type TenantContext } from '@ledgerline/service-kit';
import { ContactSchema, type Contact, type ContactDetails } from '../db/contacts.entities.js';

/*
 * The directory of customers and vendors (decision 234). A contact is checked as the registers
 * that issue its identifiers define them (IČO mod 11, DIČ by its country's format, accounts by
 * their check digits) and kept normalised; a document names it by `contact_id` and copies it, so a
 * contact changed later leaves issued documents as they were issued. One a document has named is
 * archived rather than deleted.
 */

export function contactView(c: Contact): ContactRecord {
  const d = c.details ?? {};
  return {
    id: Number(c.id),
    business_name: c.businessName,
    display_name: d.display_name ?? null,
    reg_no: c.regNo ?? null,
    vat_no: c.vatNo ?? null,
    tax_no: d.tax_no ?? null,
    address: (d.address as ContactRecord['address']) ?? null,
    email: c.email ?? null,
    phone: d.phone ?? null,
    peppol_id: c.peppolId ?? null,
    preferred_locale: d.preferred_locale ?? null,
    bank_accounts: d.bank_accounts ?? [],
    payment_terms_days: d.payment_terms_days ?? null,
    currency: d.currency ?? null,
    notes: d.notes ?? null,
    archived: c.archived,
    used: c.used,
    created_at: new Date(c.createdAt).toISOString(),
    updated_at: new Date(c.updatedAt).toISOString(),
  };
}

const blankToNull = (v: string | null | undefined): string | null => (v == null || v.trim() === '' ? null : v.trim());

/**
 * A request's fields checked and normalised, every problem named at once (400). An IČO is checked
 * when the contact is Czech (its address in CZ, or no country and a CZ or no VAT number); a foreign
 * company number is kept as written.
 */
export function checkedContact(input: ContactRequest): { businessName: string; regNo: string | null; vatNo: string | null; peppolId: string | null; email: string | null; details: ContactDetails } {
  const errors: FieldError[] = [];
  const businessName = input.business_name.trim();
  if (!businessName) errors.push({ path: 'business_name', message: 'required: the name documents print', code: 'required' });
  let vatNo = blankToNull(input.vat_no);
  if (vatNo) {
    const v = checkVatNumber(vatNo);
    if ('problem' in v) errors.push({ path: 'vat_no', message: v.problem, code: 'invalid_vat_no' });
    else vatNo = v.value;
  }
  let regNo = blankToNull(input.reg_no);
  const country = blankToNull(input.address?.country)?.toUpperCase() ?? null;
  const czech = country ? country === 'CZ' : !vatNo || vatNo.startsWith('CZ');
  if (regNo && czech) {
    const r = checkCompanyNumber(regNo);
    if ('problem' in r) errors.push({ path: 'reg_no', message: r.problem, code: 'invalid_reg_no' });
    else regNo = r.value;
  }
  const accounts = (input.bank_accounts ?? []).map((a, i) => {
    const at = `bank_accounts[${i}]`;
    let accountNumber = blankToNull(a.account_number);
    let iban = blankToNull(a.iban);
    if (!accountNumber && !iban) errors.push({ path: at, message: 'give account_number (a Czech account) or iban', code: 'required' });
    if (iban) {
      const checked = checkIban(iban);
      if ('problem' in checked) errors.push({ path: `${at}.iban`, message: checked.problem, code: 'invalid_iban' });
      else iban = checked.value;
    }
    if (accountNumber) {
      const checked = checkCzechAccount(accountNumber);
      if ('problem' in checked) errors.push({ path: `${at}.account_number`, message: `${checked.problem}; give a foreign account as iban`, code: 'invalid_account_number' });
      else {
        if (iban && iban !== checked.iban) errors.push({ path: `${at}.iban`, message: `not the IBAN of account ${checked.value} (${checked.iban})`, code: 'iban_mismatch' });
        accountNumber = checked.value;
        iban = iban ?? checked.iban;
      }
    }
    return { account_number: accountNumber, iban, bic: blankToNull(a.bic)?.toUpperCase() ?? null };
  });
  if (errors.length) throw new ValidationError(`The contact is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  return {
    businessName,
    regNo,
    vatNo,
    peppolId: blankToNull(input.peppol_id),
    email: blankToNull(input.email)?.toLowerCase() ?? null,
    details: {
      display_name: blankToNull(input.display_name),
      tax_no: blankToNull(input.tax_no),
      address: input.address ? { ...input.address, country } : null,
      phone: blankToNull(input.phone),
      preferred_locale: blankToNull(input.preferred_locale),
      bank_accounts: accounts,
      payment_terms_days: input.payment_terms_days ?? null,
      currency: input.currency?.toUpperCase() ?? null,
      notes: input.notes ?? null,
    },
  };
}

async function emitContact(ctx: TenantContext, subject: string, c: Contact): Promise<ContactRecord> {
  const view = contactView(c);
  await ctx.emit({ subject, orgId: ctx.orgId, resource: String(c.id), data: view });
  return view;
}

export async function createContact(ctx: TenantContext, input: ContactRequest, opts: { used?: boolean } = {}): Promise<ContactRecord> {
  const fields = checkedContact(input);
  const now = new Date();
  const contact = ctx.em.create(ContactSchema, { orgId: ctx.orgId, ...fields, archived: input.archived ?? false, used: opts.used ?? false, createdAt: now, updatedAt: now });
  await ctx.em.flush();
  return emitContact(ctx, SUBJECTS.settingsContactCreated, contact);
}

/** The contact, locked for a change; 404 for an id the organisation has none under. */
async function lockedContact(ctx: TenantContext, id: number): Promise<Contact> {
  const [row] = await sqlRows<{ id: number }>(ctx.em, 'select id from contacts where id = ? and org_id = ? for update', [id, ctx.orgId]);
  const contact = row ? await ctx.em.findOne(ContactSchema, { id }, { refresh: true }) : null;
  if (!contact) throw new NotFoundError(`Contact ${id} not found`, 'contact_not_found');
  return contact;
}

export async function getContact(em: EntityManager, id: number): Promise<ContactRecord> {
  const contact = await em.findOne(ContactSchema, { id });
  if (!contact) throw new NotFoundError(`Contact ${id} not found`, 'contact_not_found');
  return contactView(contact);
}

/** PUT: the contact replaced whole; issued documents keep the copy they took. */
export async function replaceContact(ctx: TenantContext, id: number, input: ContactRequest): Promise<ContactRecord> {
  const fields = checkedContact(input);
  const contact = await lockedContact(ctx, id);
  Object.assign(contact, fields, { archived: input.archived ?? contact.archived, updatedAt: new Date() });
  await ctx.em.flush();
  return emitContact(ctx, SUBJECTS.settingsContactUpdated, contact);
}

/**
 * DELETE: a contact no document has named is removed; one that is named is archived (it stays on
 * its documents, in the aged balances and statements, and leaves the list). The row lock orders a
 * delete against a document naming the contact at the same moment (`useContact`).
 */
export async function deleteContact(ctx: TenantContext, id: number) {
  const contact = await lockedContact(ctx, id);
  if (contact.used) {
    if (!contact.archived) {
      contact.archived = true;
      contact.updatedAt = new Date();
      await ctx.em.flush();
      await emitContact(ctx, SUBJECTS.settingsContactUpdated, contact);
    }
    return { id, deleted: false, archived: true };
  }
  await sqlRows(ctx.em, 'delete from contacts where id = ? and org_id = ?', [id, ctx.orgId]);
  const answer = { id, deleted: true, archived: false };
  await ctx.emit({ subject: SUBJECTS.settingsContactDeleted, orgId: ctx.orgId, resource: String(id), data: answer });
  return answer;
}

const SORTABLE: Record<string, string> = { id: 'id', business_name: 'business_name', created_at: 'created_at', updated_at: 'updated_at' };

export async function listContacts(em: EntityManager, orgId: number, q: ContactListQuery): Promise<ListedPage<Contact>> {
  const conditions = q.archived === 'all' ? [] : [where.eq('archived', q.archived === 'true')];
  if (q.search) {
    const byText = where.containsAny(['business_name', 'reg_no', 'vat_no', 'email', "details->>'display_name'"], q.search);
    // an IČO or DIČ is kept without spaces and in upper case: "cz 270 82 440" finds CZ27082440
    const byNumber = where.containsAny(['reg_no', 'vat_no'], q.search.replace(/\s/g, '').toUpperCase());
    conditions.push({ sql: `(${byText.sql} or ${byNumber.sql})`, params: [...byText.params, ...byNumber.params] });
  }
  return listEntityPage(em, ContactSchema, { orgId, conditions, ...sortedPage(q, SORTABLE) });
}

/** A contact a new document names: it is marked used (from then on deleting it archives it); an archived one is refused by the caller. */
export async function useContact(em: EntityManager, orgId: number, id: number): Promise<ContactRecord | null> {
  const rows = await sqlRows<{ id: number }>(em, 'update contacts set used = true where id = ? and org_id = ? and not archived returning id', [id, orgId]);
  const contact = await em.findOne(ContactSchema, { id }, { refresh: true });
  if (!contact) return null;
  if (!rows.length && !contact.archived) throw new ConflictError(`Contact ${id} changed while it was read`, 'contact_busy');
  return contactView(contact);
}
