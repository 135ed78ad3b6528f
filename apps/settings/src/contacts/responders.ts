import { RPC_SUBJECTS, vendorCheckRequestSchema } from '@ledgerline/contracts';
import { serviceContext, type ResponderDefinition, type TenantContext } from '@ledgerline/service-kit';
import type { SettingsDeps } from '../resources.js';
import { vendorCheck } from '../registers/registers.js';
import { matchContact, resolveContact } from './directory-responders.js';
import { vatNumberCheckAnswer } from '../registers/vat-number-responder.js';

/** The directory's and the registers' answers to sales and purchase. */
export function directoryResponders(deps: SettingsDeps): ResponderDefinition[] {
  return [
    { subject: RPC_SUBJECTS.settingsContactResolve, handle: (em, data, orgId) => resolveContact(em, data, orgId) },
    {
      subject: RPC_SUBJECTS.settingsContactMatch,
      // a contact made here is a write with its event: in a transaction of its own, with the outbox
      handle: (em, data, orgId) => em.transactional((tem) => matchContact(serviceContext(deps, tem, 'purchase:e-invoice import', orgId) as TenantContext, data)),
    },
    { subject: RPC_SUBJECTS.settingsVatNumberCheck, handle: (em, data) => vatNumberCheckAnswer(em, deps.resources.registers, data) },
    { subject: RPC_SUBJECTS.settingsVendorCheck, handle: (em, data) => vendorCheck({ em }, deps.resources.registers, vendorCheckRequestSchema.parse(data)) },
  ];
}
