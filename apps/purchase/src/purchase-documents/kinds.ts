import { BILLS } from '../bills/bill-kind.js';
import { VENDOR_CREDITS } from '../vendor-credits/vendor-credit-kind.js';

/** Every purchase document kind by its stored `kind`. */
export const PURCHASE_KINDS = { bill: BILLS, vendor_credit: VENDOR_CREDITS } as const;

/** The stored kind of a document type (`purchase_bill` → `bill`), or undefined for another service's type. */
export function kindOfDocumentType(type: string): keyof typeof PURCHASE_KINDS | undefined {
  return (Object.keys(PURCHASE_KINDS) as Array<keyof typeof PURCHASE_KINDS>).find((k) => PURCHASE_KINDS[k].documentType === type);
}
