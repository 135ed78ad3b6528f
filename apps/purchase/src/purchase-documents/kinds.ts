import { BILLS } from '../bills/bill-kind.js';
import { VENDOR_CREDITS } from '../vendor-credits/vendor-credit-kind.js';

/** Every purchase document kind by its stored `kind`. */
export const PURCHASE_KINDS = { bill: BILLS, vendor_credit: VENDOR_CREDITS } as const;
