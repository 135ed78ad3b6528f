import { z } from 'zod';
import { id, int32, isoDateTime, nullish, shortText } from './common.js';
import { pagedEnvelope, pagingQuery } from './paging.js';
import { SUBJECTS } from './events.js';

/*
 * Webhooks: an organisation's HTTPS endpoints that receive its events as signed CloudEvents
 * (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature), retried with backoff
 * until a 2xx.
 */

/** Subjects a webhook may receive: the business events, not the platform's internal ones. */
export const WEBHOOK_SUBJECTS = [
  SUBJECTS.salesInvoicePosted,
  SUBJECTS.salesCreditNotePosted,
  SUBJECTS.salesProformaIssued,
  SUBJECTS.salesProformaUpdated,
  SUBJECTS.salesAdvanceTaxDocumentPosted,
  SUBJECTS.salesInvoiceComplianceEvaluated,
  SUBJECTS.salesCreditAllocationRecorded,
  SUBJECTS.purchaseBillPosted,
  SUBJECTS.purchaseAdvanceTaxDocumentPosted,
  SUBJECTS.purchaseVendorCreditPosted,
  SUBJECTS.purchaseCreditAllocationRecorded,
  SUBJECTS.financeBankTransactionRecorded,
  SUBJECTS.financePayoutPosted,
  SUBJECTS.financePaymentMatched,
  SUBJECTS.financePaymentOrderUpdated,
  SUBJECTS.accountingTransactionPosted,
  SUBJECTS.accountingJournalEntryPosted,
  SUBJECTS.settingsOrganisationUpdated,
  SUBJECTS.settingsContactCreated,
  SUBJECTS.settingsContactUpdated,
  SUBJECTS.settingsContactDeleted,
] as const;

/**
 * Whether a subject pattern selects a subject: tokens separated by dots, `*` one token, a final
 * `>` one or more (NATS syntax: `sales.invoice.*`, `sales.>`, `*.*.posted`).
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return i === p.length - 1 && s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

const subjectPattern = z
  .string()
  .max(100)
  .regex(/^([a-z_]+|\*)(\.([a-z_]+|\*))*(\.>)?$|^>$/, 'dot-separated words, * for one word, a final > for the rest (e.g. sales.invoice.*)')
  .refine((p) => WEBHOOK_SUBJECTS.some((s) => subjectMatches(p, s)), { message: `selects none of the events webhooks receive (${WEBHOOK_SUBJECTS.join(', ')})` });

const webhookUrl = z.string().max(2048).describe('Where events are POSTed: https (http only outside production), not a private or loopback address');

export const webhookCreateSchema = z
  .object({
    url: webhookUrl,
    events: z
      .array(subjectPattern)
      .min(1)
      .max(50)
      .describe(
        'Subject patterns of the events to receive, e.g. ["sales.invoice.*", "finance.payment.matched"]; the endpoint receives those published after it is saved (or enabled). The credential needs the read scope of every area the patterns select (`sales.invoice.*` needs sales:read, `>` every area), else 403',
      ),
    description: nullish(shortText(500)),
  })
  .meta({ id: 'WebhookCreateRequest', description: 'A webhook endpoint to create' });
export type WebhookCreate = z.infer<typeof webhookCreateSchema>;

export const webhookUpdateSchema = z
  .object({
    url: webhookUrl.optional(),
    events: z.array(subjectPattern).min(1).max(50).optional().describe('Replaces the subject patterns; a subject newly selected is received from this change on'),
    description: nullish(shortText(500)),
    status: z.enum(['enabled', 'disabled']).optional().describe('enabled re-enables an endpoint disabled after failing deliveries'),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'give at least one of url, events, description, status' })
  .meta({ id: 'WebhookUpdateRequest', description: 'Changes to a webhook endpoint' });
export type WebhookUpdate = z.infer<typeof webhookUpdateSchema>;

export const webhookSchema = z
  .object({
    id,
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z.string().nullable().describe('Why it is disabled: by the organisation, deliveries failing for the whole retry schedule, or its owner revoked'),
    owner: z
      .string()
      .nullable()
      .describe(
        'The credential on whose behalf it delivers (`key:<id>` or `client:<client_id>`): the one that created it or last changed its url or events or enabled it. Events are delivered only while the owner holds the read scope of their area; null for an endpoint saved before webhooks had owners',
      ),
    withheld_reason: z.string().nullable().describe('Why some selected events are not delivered now (the owner no longer reads their area, or was revoked); null when nothing is withheld'),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Webhook', description: 'A webhook endpoint (its secret is shown only when created or rotated)' });
export type Webhook = z.infer<typeof webhookSchema>;

export const webhookWithSecretSchema = webhookSchema
  .extend({
    secret: z.string().describe('whsec_ + base64 key for verifying webhook-signature; shown only in this answer'),
  })
  .meta({ id: 'WebhookWithSecret', description: 'A webhook endpoint with its signing secret, shown once' });
export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>;

export const webhookDeletedSchema = z.object({ id, deleted: z.literal(true) }).meta({ id: 'WebhookDeleted', description: 'Result of deleting a webhook endpoint' });

export const webhookListQuerySchema = z.object({ ...pagingQuery(100) });
export const webhookPageSchema = pagedEnvelope(webhookSchema);

export const webhookDeliverySchema = z
  .object({
    id,
    webhook_id: id,
    event_id: z.string().describe('The CloudEvents id, sent as webhook-id'),
    event_type: z.string(),
    status: z.enum(['pending', 'delivering', 'succeeded', 'failed']),
    attempts: int32.describe('Attempts made so far'),
    last_status_code: z.int().nullable().describe('HTTP status of the last attempt; null when no answer came'),
    last_duration_ms: z.int().nullable(),
    last_error: z.string().nullable().describe('Why the last attempt failed'),
    last_response: z.string().nullable().describe('The first 1 KB of the last answer'),
    next_attempt_at: isoDateTime.nullable(),
    created_at: isoDateTime,
    completed_at: isoDateTime.nullable(),
  })
  .meta({ id: 'WebhookDelivery', description: 'One event sent (or to be sent) to one webhook endpoint' });
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryListQuerySchema = z.object({
  ...pagingQuery(100),
  status: z.enum(['pending', 'delivering', 'succeeded', 'failed']).optional(),
});
export const webhookDeliveryPageSchema = pagedEnvelope(webhookDeliverySchema);

export const webhookDeliveryPathSchema = z.object({
  id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('Webhook id'),
  delivery_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('Delivery id'),
});
