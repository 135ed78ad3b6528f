import type { DecimalInput } from '@ledgerline/core/money';

/** A decimal as it may arrive: JSON number, decimal string or a decimal.js value. */
export type DecimalLike = DecimalInput;

export type DiscountValueType = 'percentage' | 'fixed_amount';
export type DiscountAllocationMethod = 'across' | 'each';
export type DiscountTargetType = 'line_item' | 'shipping_line';
export type PaymentStatus = 'unpaid' | 'partially_paid' | 'paid' | 'overpaid';

// ---------------------------------------------------------------- input

export interface TaxInput {
  tax_code?: string | null;
  tax_name?: string | null;
  /** Percent, e.g. 21 for 21 %. */
  tax_rate: DecimalLike;
  rate_type?: string | null;
  tax_index?: number | null;
}

export interface ItemInput {
  qty: DecimalLike;
  rate: DecimalLike;
  discount_explicit?: DecimalLike | null;
  gl_account?: string | null;
  taxes?: readonly TaxInput[] | null;
  /** Vendor documents: share of the tax that may be claimed (0–1); passed through. */
  tax_deduction_ratio?: DecimalLike | null;
  /** Vendor documents: share of the net amount that is deductible (0–1); passed through. */
  net_deduction_ratio?: DecimalLike | null;
}

export interface ShippingChargeInput {
  amount: DecimalLike;
  taxes?: readonly TaxInput[] | null;
}

export interface DiscountInput {
  title?: string | null;
  /** Percent (0–100) for `percentage`, a non-negative amount in the document currency for `fixed_amount`. */
  value: DecimalLike;
  value_type: DiscountValueType;
  allocation_method: DiscountAllocationMethod;
  target_type: DiscountTargetType;
}

export interface DocumentInput {
  /** Decimal places of every amount, 0–4; default 2. */
  precision?: number | null;
  taxes_included?: boolean | null;
  currency: string;
  legal_currency: string;
  /** Legal-currency units per `currency_coef` document-currency units; required when currency ≠ legal_currency. */
  fx_rate?: DecimalLike | null;
  /** Default 1. */
  currency_coef?: DecimalLike | null;
  /** Rate for the tax fields; default `fx_rate`. */
  tax_fx_rate?: DecimalLike | null;
  items?: readonly ItemInput[] | null;
  shipping_charges?: readonly ShippingChargeInput[] | null;
  discounts?: readonly DiscountInput[] | null;
  /** Default 0. */
  amount_paid?: DecimalLike | null;
  /** Round the total with VAT to a multiple of this (1: whole units); null or absent: no rounding. */
  rounding_increment?: DecimalLike | null;
  /** The rounding the document states (an imported e-invoice's BT-114), instead of an increment. */
  rounding_amount?: DecimalLike | null;
}

// ---------------------------------------------------------------- output
// Amounts are decimal strings at the document precision (`298.00`); rates are full-scale strings.

export interface ComputedTaxLine {
  tax_code: string | null;
  tax_name: string | null;
  rate_type: string | null;
  tax_index: number | null;
  tax_rate: string;
  tax_base: string;
  tax_amount: string;
  tax_base_leg: string;
  tax_amount_leg: string;
  currency_leg: string;
}

export interface ComputedItem {
  qty: string;
  rate: string;
  discount_explicit: string;
  /** Share of the document discounts allocated to this line. */
  discount_implicit: string;
  /** round(qty × rate − discount_explicit): the base the document discounts were allocated on. */
  amount_before_discount: string;
  /** round(qty × rate − discount_explicit − discount_implicit); gross when taxes_included. */
  amount: string;
  /** amount / qty, at max(4, precision + 2) decimals; the rate itself when qty is 0. */
  rate_discounted: string;
  /** The line without tax: `amount` (taxes excluded) or amount − Σ line taxes (taxes included). */
  net_amount: string;
  gl_account: string | null;
  tax_deduction_ratio: string | null;
  net_deduction_ratio: string | null;
  taxes: ComputedTaxLine[];
}

export interface ComputedShippingCharge {
  amount_before_discount: string;
  discount_implicit: string;
  amount: string;
  net_amount: string;
  taxes: ComputedTaxLine[];
}

export interface ComputedDiscount {
  title: string | null;
  value: string;
  value_type: DiscountValueType;
  allocation_method: DiscountAllocationMethod;
  target_type: DiscountTargetType;
  /** Σ allocations: the discount actually granted. */
  amount: string;
  /** Allocation per targeted line, index-aligned with `items` or `shipping_charges`. */
  allocations: string[];
}

export interface ComputedDocument {
  precision: number;
  taxes_included: boolean;
  currency: string;
  currency_leg: string;
  fx_rate: string;
  currency_coef: string;
  tax_fx_rate: string;
  items: ComputedItem[];
  shipping_charges: ComputedShippingCharge[];
  discounts: ComputedDiscount[];
  /** Tax recap: one row per (tax_code, tax_rate), ordered by rate descending then code. */
  taxes: ComputedTaxLine[];
  subtotal_amount: string;
  /** Σ recap tax_amount. */
  tax_amount: string;
  /** The increment the total was rounded to, or null. */
  rounding_increment: string | null;
  /** Added to subtotal + tax to make the total (BT-114); 0 without rounding. */
  rounding_amount: string;
  /** subtotal + tax + rounding: what the customer owes. */
  total_amount: string;
  amount_paid: string;
  amount_due: string;
  payment_status: PaymentStatus;
  subtotal_amount_leg: string;
  tax_amount_leg: string;
  rounding_amount_leg: string;
  /** subtotal_leg + tax_leg + rounding_leg. */
  total_amount_leg: string;
}
