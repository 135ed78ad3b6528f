import Decimal from 'decimal.js';
import { Dec } from '@ledgerline/core/money';
import type { FieldError } from '@ledgerline/core/errors';
import { DocumentValidationError } from './errors.js';
import { incrementProblem, MAX_ROUNDING_AMOUNT } from './rounding.js';
import type {
  DiscountAllocationMethod,
  DiscountTargetType,
  DiscountValueType,
  DocumentInput,
  TaxInput,
} from './types.js';

/** Every number of a document input as a decimal, validated; what the arithmetic works on. */
export interface NormalizedTax {
  tax_code: string | null;
  tax_name: string | null;
  rate_type: string | null;
  tax_index: number | null;
  tax_rate: Dec;
}

export interface NormalizedItem {
  qty: Dec;
  rate: Dec;
  discount_explicit: Dec;
  gl_account: string | null;
  taxes: NormalizedTax[];
  tax_deduction_ratio: Dec | null;
  net_deduction_ratio: Dec | null;
}

export interface NormalizedShippingCharge {
  amount: Dec;
  taxes: NormalizedTax[];
}

export interface NormalizedDiscount {
  title: string | null;
  value: Dec;
  value_type: DiscountValueType;
  allocation_method: DiscountAllocationMethod;
  target_type: DiscountTargetType;
}

export interface NormalizedDocument {
  precision: number;
  taxes_included: boolean;
  currency: string;
  legal_currency: string;
  fx_rate: Dec;
  currency_coef: Dec;
  tax_fx_rate: Dec;
  items: NormalizedItem[];
  shipping_charges: NormalizedShippingCharge[];
  discounts: NormalizedDiscount[];
  amount_paid: Dec;
  /** How the total is rounded: to a multiple of an increment, by a stated amount, or not. */
  rounding: { increment: Dec } | { amount: Dec } | null;
}

const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const CURRENCY = /^[A-Z]{3}$/;
const ONE = new Dec(1);
const ZERO = new Dec(0);

/**
 * Validates a document input and converts every number to a decimal at once. Collects every problem
 * and throws one `DocumentValidationError` naming each field path.
 */
export function normalizeDocumentInput(input: DocumentInput): NormalizedDocument {
  const errors: FieldError[] = [];
  const r = new Reader(errors);

  let precision = 2;
  if (input.precision !== undefined && input.precision !== null) {
    if (!Number.isInteger(input.precision) || input.precision < 0 || input.precision > 4) {
      r.fail('precision', 'must be an integer from 0 to 4', 'invalid_precision');
    } else precision = input.precision;
  }

  const currency = r.currency(input.currency, 'currency');
  const legal_currency = r.currency(input.legal_currency, 'legal_currency');

  let fx_rate = ONE;
  let currency_coef = ONE;
  let tax_fx_rate = ONE;
  const currenciesValid = CURRENCY.test(currency) && CURRENCY.test(legal_currency);
  if (currenciesValid && currency !== legal_currency) {
    fx_rate = r.decimal(input.fx_rate, 'fx_rate', { required: true, positive: true }) ?? ONE;
    currency_coef = r.decimal(input.currency_coef, 'currency_coef', { positive: true }) ?? ONE;
    tax_fx_rate = r.decimal(input.tax_fx_rate, 'tax_fx_rate', { positive: true }) ?? fx_rate;
  }

  const items = r.array(input.items, 'items').map((item, i): NormalizedItem => {
    const p = `items[${i}]`;
    return {
      qty: r.decimal(item?.qty, `${p}.qty`, { required: true }) ?? ZERO,
      rate: r.decimal(item?.rate, `${p}.rate`, { required: true }) ?? ZERO,
      discount_explicit: r.decimal(item?.discount_explicit, `${p}.discount_explicit`) ?? ZERO,
      gl_account: r.text(item?.gl_account),
      taxes: r.taxes(item?.taxes, `${p}.taxes`),
      tax_deduction_ratio: r.decimal(item?.tax_deduction_ratio, `${p}.tax_deduction_ratio`, { min: 0, max: 1 }),
      net_deduction_ratio: r.decimal(item?.net_deduction_ratio, `${p}.net_deduction_ratio`, { min: 0, max: 1 }),
    };
  });

  const shipping_charges = r.array(input.shipping_charges, 'shipping_charges').map((charge, i) => ({
    amount: r.decimal(charge?.amount, `shipping_charges[${i}].amount`, { required: true }) ?? ZERO,
    taxes: r.taxes(charge?.taxes, `shipping_charges[${i}].taxes`),
  }));

  const discounts = r.array(input.discounts, 'discounts').map((discount, i): NormalizedDiscount => {
    const p = `discounts[${i}]`;
    const value_type = r.oneOf(discount?.value_type, `${p}.value_type`, ['percentage', 'fixed_amount'] as const);
    const percentage = value_type === 'percentage';
    return {
      title: r.text(discount?.title),
      value: r.decimal(discount?.value, `${p}.value`, { required: true, min: 0, max: percentage ? 100 : undefined }) ?? ZERO,
      value_type,
      allocation_method: r.oneOf(discount?.allocation_method, `${p}.allocation_method`, ['across', 'each'] as const),
      target_type: r.oneOf(discount?.target_type, `${p}.target_type`, ['line_item', 'shipping_line'] as const),
    };
  });

  const amount_paid = r.decimal(input.amount_paid, 'amount_paid') ?? ZERO;
  const rounding = readRounding(r, input, precision);

  if (errors.length) throw new DocumentValidationError(errors);
  return {
    precision,
    taxes_included: input.taxes_included === true,
    currency,
    legal_currency,
    fx_rate,
    currency_coef,
    tax_fx_rate,
    items,
    shipping_charges,
    discounts,
    amount_paid,
    rounding,
  };
}

function readRounding(r: Reader, input: DocumentInput, precision: number): NormalizedDocument['rounding'] {
  const increment = r.decimal(input.rounding_increment, 'rounding_increment');
  const amount = r.decimal(input.rounding_amount, 'rounding_amount', { min: -MAX_ROUNDING_AMOUNT, max: MAX_ROUNDING_AMOUNT });
  if (increment && amount) {
    r.fail('rounding_amount', 'a document states its rounding or the increment it is rounded to, not both', 'conflicting_fields');
    return null;
  }
  if (increment) {
    const problem = incrementProblem(increment, precision);
    if (problem) r.fail('rounding_increment', problem, 'out_of_range');
    return problem ? null : { increment };
  }
  if (amount) {
    if (amount.decimalPlaces() > precision) r.fail('rounding_amount', `has more than ${precision} decimal places`, 'out_of_range');
    return amount.isZero() ? null : { amount };
  }
  return null;
}

interface DecimalRules {
  required?: boolean;
  positive?: boolean;
  min?: number;
  max?: number;
}

class Reader {
  constructor(private readonly errors: FieldError[]) {}

  fail(path: string, message: string, code = 'invalid_value'): void {
    this.errors.push({ path, message, code });
  }

  decimal(value: unknown, path: string, rules: DecimalRules = {}): Dec | null {
    if (value === undefined || value === null || value === '') {
      if (rules.required) this.fail(path, 'is required', 'required');
      return null;
    }
    let d: Dec | null = null;
    if (typeof value === 'number') {
      if (Number.isFinite(value)) d = new Dec(value);
    } else if (typeof value === 'string') {
      const text = value.trim();
      if (DECIMAL_TEXT.test(text)) d = new Dec(text);
    } else if (Decimal.isDecimal(value)) {
      d = new Dec(value as Decimal);
    }
    if (!d || !d.isFinite()) {
      this.fail(path, 'must be a finite decimal number', 'invalid_number');
      return null;
    }
    if (rules.positive && !d.gt(0)) {
      this.fail(path, 'must be greater than 0', 'out_of_range');
      return null;
    }
    if (d.isZero()) d = new Dec(0); // no negative zero
    if (rules.min !== undefined && d.lt(rules.min)) {
      this.fail(path, `must be at least ${rules.min}`, 'out_of_range');
      return null;
    }
    if (rules.max !== undefined && d.gt(rules.max)) {
      this.fail(path, `must be at most ${rules.max}`, 'out_of_range');
      return null;
    }
    return d;
  }

  currency(value: unknown, path: string): string {
    const code = typeof value === 'string' ? value.trim().toUpperCase() : '';
    if (!CURRENCY.test(code)) this.fail(path, 'must be an ISO 4217 currency code', 'invalid_currency');
    return code;
  }

  text(value: unknown): string | null {
    return value === undefined || value === null ? null : String(value);
  }

  array<T>(value: readonly T[] | null | undefined, path: string): T[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.fail(path, 'must be an array', 'invalid_type');
      return [];
    }
    return [...value];
  }

  oneOf<const T extends readonly string[]>(value: unknown, path: string, allowed: T): T[number] {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T[number];
    this.fail(path, `must be one of ${allowed.join(', ')}`, 'invalid_enum');
    return allowed[0];
  }

  taxes(value: readonly TaxInput[] | null | undefined, path: string): NormalizedTax[] {
    const seen = new Set<string>();
    return this.array(value, path).map((tax, i) => {
      const p = `${path}[${i}]`;
      let tax_index: number | null = null;
      if (tax?.tax_index !== undefined && tax?.tax_index !== null) {
        if (Number.isInteger(tax.tax_index)) tax_index = tax.tax_index;
        else this.fail(`${p}.tax_index`, 'must be an integer', 'invalid_number');
      }
      const normalized: NormalizedTax = {
        tax_code: this.text(tax?.tax_code),
        tax_name: this.text(tax?.tax_name),
        rate_type: this.text(tax?.rate_type),
        tax_index,
        tax_rate: this.decimal(tax?.tax_rate, `${p}.tax_rate`, { required: true, min: 0 }) ?? ZERO,
      };
      const key = JSON.stringify([normalized.tax_code, normalized.tax_rate.toFixed()]);
      if (seen.has(key)) this.fail(p, 'the same tax code and rate appear twice on one line', 'duplicate_tax');
      seen.add(key);
      return normalized;
    });
  }
}
