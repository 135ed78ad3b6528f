import { auditEventsSubject, auditVerifySubject, type AuditEvent, type AuditEventListQuery } from '@ledgerline/contracts';
import type { ResponderDefinition } from '../events/rpc.js';
import { listAuditEvents } from './audit-query.js';
import { verifyAuditChain } from './audit-chain.js';

/** Every service answers for its own audit trail: a page of records, and the walk of its chain. */
export function auditResponders(service: string, retained: boolean): ResponderDefinition[] {
  return [
    {
      subject: auditEventsSubject(service),
      handle: (em, data, orgId) => listAuditEvents(em, service as AuditEvent['service'], orgId, data as Omit<AuditEventListQuery, 'from' | 'take' | 'service'> & { limit: number }),
    },
    { subject: auditVerifySubject(service), handle: (em, _data, orgId) => verifyAuditChain(em, orgId, retained) },
  ];
}
