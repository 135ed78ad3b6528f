/**
 * Largest magnitude of an amount, unit price or quantity a request may carry, and of every figure
 * computed from them (line amounts, totals, legal-currency values). Derived from the narrowest
 * column that stores such a figure, `numeric(18,4)` (< 10¹⁴), with a tenfold margin, and small
 * enough that two decimals stay exact in a JSON number (10¹³ × 100 < 2⁵³). Decision 55.
 *
 * Here, below the contracts, so that the arithmetic and the schemas share one bound without the
 * arithmetic depending on the interface's schemas.
 */
export const AMOUNT_LIMIT = 1e13;
