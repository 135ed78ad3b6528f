import { z } from 'zod';
import { isoDateTime, shortText } from './common.js';
import { pagedEnvelope } from './paging.js';

// --- the audit trail (GET /v1/audit-events, /verify) ----------------------------------------------

export const AUDITED_SERVICES = ['sales', 'purchase', 'finance', 'accounting', 'settings'] as const;

/** A JSON answer as recorded: an object, or a list (an operation answering several records). */
const jsonState = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).nullable();

export const auditEventSchema = z
  .object({
    id: z.string().describe('<service>:<number>, unique across the services'),
    service: z.enum(AUDITED_SERVICES).describe('The service that made the change and keeps its record'),
    recorded_at: isoDateTime,
    credential: z.object({ type: z.string(), id: z.string() }).describe('The API key or client that made the change (its id, never its secret)'),
    request_id: z.string(),
    operation: z.string().describe('The operationId of the API operation'),
    method: z.string(),
    path: z.string(),
    resource: z.object({ type: z.string().describe('e.g. /sales/invoices'), id: z.string().nullable() }),
    status: z.int(),
    changed_fields: z.array(z.string()).describe('Top-level fields whose values differ between before and after'),
    before: jsonState.describe('The resource as the API showed it before the change (null for a creation), secrets and personal data masked'),
    after: jsonState.describe('The answer of the change (null for a removal), secrets and personal data masked'),
    seq: z.int().nullable().describe("The record's place in its organisation's chain in its service (null for a moment after the change)"),
    hash: z.string().nullable().describe('SHA-256 over the previous record’s hash and this record'),
  })
  .meta({ id: 'AuditEvent', description: 'One write made through the API' });
export type AuditEvent = z.infer<typeof auditEventSchema>;

export const AUDIT_MAX_WINDOW = 10_000;

export const auditEventListQuerySchema = z
  .object({
    from: z.coerce.number().int().min(0).max(AUDIT_MAX_WINDOW).default(0).describe('Offset of the first record'),
    take: z.coerce.number().int().min(0).max(1000).default(100).describe('Page size, at most 1000 (default 100)'),
    resource_type: shortText().optional().describe('e.g. /sales/invoices'),
    resource_id: shortText().optional(),
    credential_id: shortText().optional().describe('The API key id or client id'),
    operation: shortText(100).optional(),
    service: z.enum(AUDITED_SERVICES).optional(),
    since: isoDateTime.optional().describe('Recorded at or after this instant'),
    until: isoDateTime.optional().describe('Recorded before this instant'),
  })
  .refine((q) => q.from + q.take <= AUDIT_MAX_WINDOW, { message: `from + take at most ${AUDIT_MAX_WINDOW}; narrow the filter (since, until) to go further back`, path: ['from'] });
export type AuditEventListQuery = z.output<typeof auditEventListQuerySchema>;
export const auditEventPageSchema = pagedEnvelope(auditEventSchema);

const auditProblemSchema = z.object({
  seq: z.int().nullable(),
  id: z.int().nullable(),
  problem: z.enum(['hash_mismatch', 'prev_hash_mismatch', 'missing_record', 'chain_cut_off', 'not_chained']),
});

export const auditServiceVerificationSchema = z.object({
  records: z.int().min(0),
  chained_through: z.int().min(0).describe('The last sequence number checked'),
  unchained: z.int().min(0).describe('Records not yet chained (the chainer takes them within a second)'),
  ok: z.boolean(),
  problems: z.array(auditProblemSchema),
});
export type AuditServiceVerification = z.infer<typeof auditServiceVerificationSchema>;

export const auditVerificationSchema = z
  .object({
    ok: z.boolean().describe('Every chain of the organisation is whole'),
    services: z.array(auditServiceVerificationSchema.extend({ service: z.enum(AUDITED_SERVICES) })),
  })
  .meta({ id: 'AuditVerification', description: "The organisation's audit chains, walked and recomputed in every service" });
export type AuditVerification = z.infer<typeof auditVerificationSchema>;
