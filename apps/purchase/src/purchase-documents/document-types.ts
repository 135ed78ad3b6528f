import type { PurchaseKind } from '../db/entities.js';

/**
 * The document type of each stored kind, as events, lookups, payments and the ledger name it
 * (data, so that the layers below the kinds read it without importing them).
 */
export const DOCUMENT_TYPE_OF = {
  bill: 'purchase_bill',
  vendor_credit: 'purchase_vendor_credit',
  advance: 'purchase_advance',
  advance_tax_document: 'purchase_advance_tax_document',
} as const satisfies Record<PurchaseKind, string>;

export type PurchaseDocumentType = (typeof DOCUMENT_TYPE_OF)[PurchaseKind];

/** The stored kind of a document type (`purchase_bill` → `bill`), or undefined for another service's type. */
export function kindOfDocumentType(type: string): PurchaseKind | undefined {
  return (Object.keys(DOCUMENT_TYPE_OF) as PurchaseKind[]).find((k) => DOCUMENT_TYPE_OF[k] === type);
}
