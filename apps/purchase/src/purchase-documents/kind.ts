import type { z } from 'zod';
import type { ComputedDocument } from '@ledgerline/documents';
import type { CreditRule } from '@ledgerline/posted-documents';
import type { TenantContext } from '@ledgerline/service-kit';
import type { vendorBillRequestSchema, vendorCreditRequestSchema } from '@ledgerline/contracts/purchase';
import type { PurchaseDocument, PurchaseKind, StoredTaxLine } from '../db/entities.js';
import type { DOCUMENT_TYPE_OF } from './document-types.js';

export type PurchaseRequestSchema = typeof vendorBillRequestSchema | typeof vendorCreditRequestSchema;

/** What a document counts as paid before any payment, and what it writes beside itself (see `PurchaseDocumentKind.deducts`). */
export interface PurchaseDeduction {
  /** Counted in amount_paid (decimal string). */
  paid: string;
  /** Columns of the document's own row. */
  own: Partial<Pick<PurchaseDocument, 'advanceBillId' | 'advanceBillNo' | 'advances'>>;
  /** The tax recap after the deduction, when it restates one (a final bill in a foreign currency: what the advances claimed kept at its legal values). */
  taxes?: ComputedDocument['taxes'];
  /** Called once the document is written (its number known), in its transaction. */
  written: (doc: { id: number; no: string; vendorDocNo: string | null; totalAmount: string }) => Promise<void>;
}

/**
 * What differs between the purchase documents, as data: bills, advance bills, their tax documents
 * and vendor credits are posted by the same steps (`postPurchaseDocument`).
 */
export interface PurchaseDocumentKind<K extends PurchaseKind, S extends PurchaseRequestSchema> {
  kind: K;
  /** The document type of events, lookups, payments and the ledger. */
  documentType: (typeof DOCUMENT_TYPE_OF)[K];
  /** The `*.posted` subject; null for a kind that is never posted (an advance bill). */
  subject: string | null;
  /** e.g. `vendor credit`, in messages. */
  label: string;
  requestSchema: S;
  /** The document as the API answers it: its fields a request cannot set pass unread (decision 146). */
  responseSchema: z.ZodType;
  /** The mask of the kind's one numbering series (architecture §4): own number per kind, restarting yearly. */
  mask: string;
  /** The document a request credits (vendor credits), checked with the shared credit rule. */
  credits?: { rule: CreditRule; creditedId: (req: z.output<S>) => number | null | undefined; creditedNo: (req: z.output<S>) => string | null | undefined };
  /**
   * What the document counts as paid when it is written (a final bill's advances; a tax document
   * documents money already paid), checked in the transaction the document is written in, with the
   * rows it reads locked.
   */
  deducts?: (ctx: TenantContext, req: z.output<S>, computed: ComputedDocument, taxes: StoredTaxLine[]) => Promise<PurchaseDeduction | null>;
}
