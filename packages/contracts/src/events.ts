import { z } from 'zod';

/**
 * JetStream streams, one per owning service. Every process may create any of them at boot
 * (idempotently, with this one configuration), so start order never matters.
 */
export const STREAMS = {
  SALES: { area: 'sales' },
  PURCHASE: { area: 'purchase' },
  FINANCE: { area: 'finance' },
  ACCOUNTING: { area: 'accounting' },
  SETTINGS: { area: 'settings' },
  DLQ: { area: 'dlq' },
} as const;
export type StreamName = keyof typeof STREAMS;

/** Subjects of the event catalogue, without the deployment prefix. */
export const SUBJECTS = {
  salesInvoicePosted: 'sales.invoice.posted',
  salesCreditNotePosted: 'sales.credit_note.posted',
  salesInvoiceComplianceEvaluated: 'sales.invoice.compliance_evaluated',
  purchaseBillPosted: 'purchase.bill.posted',
  purchaseVendorCreditPosted: 'purchase.vendor_credit.posted',
  financeBankTransactionRecorded: 'finance.bank_transaction.recorded',
  financePayoutPosted: 'finance.payout.posted',
  financePaymentMatched: 'finance.payment.matched',
  accountingTransactionPosted: 'accounting.transaction.posted',
  settingsApiKeyRevoked: 'settings.api_key.revoked',
  settingsTemplateSaved: 'settings.template.saved',
  settingsOrganisationUpdated: 'settings.organisation.updated',
} as const;
export type Subject = (typeof SUBJECTS)[keyof typeof SUBJECTS];

export function streamForSubject(subject: string): StreamName {
  const area = subject.split('.')[0];
  const found = (Object.keys(STREAMS) as StreamName[]).find((s) => STREAMS[s].area === area);
  if (!found) throw new Error(`No stream owns subject ${subject}`);
  return found;
}

/** CloudEvents 1.0 JSON envelope (structured mode) carried by every message on the bus. */
export const cloudEventSchema = z.object({
  specversion: z.literal('1.0'),
  id: z.string().min(1),
  source: z.string().min(1),
  type: z.string().min(1),
  subject: z.string().optional(),
  time: z.string(),
  datacontenttype: z.literal('application/json'),
  orgid: z.string().optional(),
  traceparent: z.string().optional(),
  data: z.unknown(),
});
export type CloudEvent<T = unknown> = Omit<z.infer<typeof cloudEventSchema>, 'data'> & { data: T };

/** The CloudEvents `type` of a subject: reverse-DNS style, versioned. */
export function eventType(subject: string): string {
  return `com.ledgerline.${subject}.v1`;
}

// --- event data schemas -----------------------------------------------------------------------

export const apiKeyRevokedEventSchema = z.object({
  api_key_id: z.number().int(),
  key_hash: z.string(),
  reason: z.enum(['revoked', 'deleted', 'expired']),
});
export type ApiKeyRevokedEvent = z.infer<typeof apiKeyRevokedEventSchema>;
