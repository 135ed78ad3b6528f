import type { EntityManager } from '@mikro-orm/postgresql';
import { contactMatchRequestSchema, contactResolveRequestSchema, type ContactMatchAnswer, type ContactResolveAnswer } from '@ledgerline/contracts';
import { checkCzechAccount, checkIban, checkVatNumber } from '@ledgerline/documents/party-identifiers';
import { sqlRows, type TenantContext } from '@ledgerline/service-kit';
import { createContact, useContact } from './contacts.js';

/*
 * What sales and purchase ask of the directory (NATS request-reply, decision 234): the contact a
 * new document names, and the vendor an imported e-invoice's seller is — found by VAT number or
 * Peppol id, or made of the document's own data.
 */

/** `rpc.settings.contacts.resolve`: the contact a document names, marked used. */
export async function resolveContact(em: EntityManager, data: unknown, orgId: number): Promise<ContactResolveAnswer> {
  const { id } = contactResolveRequestSchema.parse(data);
  const contact = await useContact(em, orgId, id);
  return contact ? { found: true, contact } : { found: false, contact: null };
}

/**
 * `rpc.settings.contacts.match`: the current contact with the seller's VAT number, else with its
 * Peppol id, else a new one made of what the document says (marked used). Matches of one seller
 * take turns (a transaction lock on its identifiers), so two imports of its bills make one contact.
 */
export async function matchContact(ctx: TenantContext, data: unknown): Promise<ContactMatchAnswer> {
  const { party, bank_account } = contactMatchRequestSchema.parse(data);
  const vat = party.vat_no ? checkVatNumber(party.vat_no) : null;
  const vatNo = vat && 'value' in vat ? vat.value : null;
  const peppolId = party.peppol_id?.trim() || null;
  if (!vatNo && !peppolId) return { contact_id: null, created: false, matched_by: null };
  await sqlRows(ctx.em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [`contact-match:${ctx.orgId}:${vatNo ?? peppolId}`]);
  const find = async (column: 'vat_no' | 'peppol_id', value: string | null) =>
    value ? (await sqlRows<{ id: number }>(ctx.em, `select id from contacts where org_id = ? and ${column} = ? and not archived order by id limit 1`, [ctx.orgId, value]))[0] : undefined;
  const byVat = await find('vat_no', vatNo);
  const found = byVat ?? (await find('peppol_id', peppolId));
  if (found) {
    await sqlRows(ctx.em, 'update contacts set used = true where id = ? and org_id = ?', [found.id, ctx.orgId]);
    return { contact_id: Number(found.id), created: false, matched_by: byVat ? 'vat_no' : 'peppol_id' };
  }
  const account = bank_account ? bankAccountOf(bank_account) : null;
  const address = party.address as Record<string, string | null> | null | undefined;
  const contact = await createContact(
    ctx,
    {
      business_name: party.business_name?.trim() || vatNo || peppolId!,
      vat_no: vatNo,
      // the e-invoice's own identifiers are kept as it states them, checked or not
      reg_no: null,
      peppol_id: peppolId && /^[0-9]{4}:\S+$/.test(peppolId) ? peppolId : null,
      email: party.email && /^[^\s@]+@[^\s@]+$/.test(party.email) ? party.email : null,
      address: address
        ? { address1: address.address1 ?? null, address2: address.address2 ?? null, postal_code: address.postal_code ?? null, city: address.city ?? null, country: address.country?.slice(0, 2) ?? null }
        : null,
      bank_accounts: account ? [account] : [],
    },
    { used: true },
  );
  return { contact_id: contact.id, created: true, matched_by: null };
}

/** The seller's account as a contact's bank account, when it is one. */
function bankAccountOf(raw: string): { account_number: string | null; iban: string | null } | null {
  const czech = checkCzechAccount(raw);
  if ('value' in czech) return { account_number: czech.value, iban: czech.iban };
  const iban = checkIban(raw);
  return 'value' in iban ? { account_number: null, iban: iban.value } : null;
}
