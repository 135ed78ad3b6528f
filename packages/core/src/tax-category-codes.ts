/*
 * The codes of `tax-category.ts` alone, without the decimal arithmetic it needs: the contracts
 * (and so the gateway's bundle) take these lists and nothing more.
 */

/** The UNCL5305 codes a document line may carry (EN 16931 / Peppol BIS 3.0, plus AA, the lower rate). */
export const TAX_CATEGORY_CODES = ['S', 'AA', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M'] as const;
export type TaxCategory = (typeof TAX_CATEGORY_CODES)[number];

/** What a line is: goods or services (ECSL code 0 or 3, VAT return row 20 or 21, revenue 604 or 602). */
export const SUPPLY_KINDS = ['goods', 'services'] as const;
export type SupplyKind = (typeof SUPPLY_KINDS)[number];
