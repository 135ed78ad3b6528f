import type { z } from 'zod';
import type { CreditRule } from '@ledgerline/posted-documents';
import type { vendorBillRequestSchema, vendorCreditRequestSchema } from '@ledgerline/contracts/purchase';
import type { PurchaseDocument, PurchaseKind } from '../db/entities.js';

export type PurchaseRequestSchema = typeof vendorBillRequestSchema | typeof vendorCreditRequestSchema;

/**
 * What differs between the two purchase documents, as data: bills and vendor credits are posted
 * by the same steps (`postPurchaseDocument`).
 */
export interface PurchaseDocumentKind<K extends PurchaseKind, S extends PurchaseRequestSchema> {
  kind: K;
  /** The document type of events, lookups and the ledger. */
  documentType: 'purchase_bill' | 'purchase_vendor_credit';
  /** The `*.posted` subject. */
  subject: string;
  /** e.g. `vendor credit`, in messages. */
  label: string;
  requestSchema: S;
  /** The document as the API answers it: its fields a request cannot set pass unread (decision 146). */
  responseSchema: z.ZodType;
  /** The mask of the kind's one numbering series (architecture §4): own number per kind, restarting yearly. */
  mask: string;
  /** The document a request credits (vendor credits), checked with the shared credit rule. */
  credits?: { rule: CreditRule; creditedId: (req: z.output<S>) => number | null | undefined };
}
