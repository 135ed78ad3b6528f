import { keysetPage, type EndpointHandlers } from '@ledgerline/service-kit';
import { checkEuVatNumber, lookupCompany, vatPayerStatus, type RegistersSettings } from '../registers/registers.js';
import { contactView, createContact, deleteContact, getContact, listContacts, replaceContact } from './contacts.js';

type ContactOperations = 'listContacts' | 'createContact' | 'getContact' | 'replaceContact' | 'deleteContact' | 'lookupContact' | 'checkVatNumber' | 'getVatPayerStatus';

/** `/v1/contacts…`: the directory, and the public registers it is filled and checked from. */
export function contactRoutes(registers: RegistersSettings): Pick<EndpointHandlers<'settings'>, ContactOperations> {
  return {
    listContacts: async ({ ctx, input: { query: q } }) => {
      const listed = await listContacts(ctx.em, ctx.orgId, q);
      return keysetPage(listed.rows.map(contactView), listed, q);
    },
    createContact: async ({ ctx, input }) => createContact(ctx, input.body),
    getContact: async ({ ctx, input }) => getContact(ctx.em, input.params.id),
    replaceContact: async ({ ctx, input }) => replaceContact(ctx, input.params.id, input.body),
    deleteContact: async ({ ctx, input }) => deleteContact(ctx, input.params.id),
    lookupContact: async ({ ctx, input }) => lookupCompany(ctx, registers, input.query.reg_no),
    checkVatNumber: async ({ ctx, input }) => checkEuVatNumber(ctx, registers, input.query.vat_no),
    getVatPayerStatus: async ({ ctx, input }) => vatPayerStatus(ctx, registers, input.query.vat_no),
  };
}
