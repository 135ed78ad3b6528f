import { BusinessRuleError, type FieldError } from '@ledgerline/core/errors';
import { dec, type DecimalInput } from '@ledgerline/core/money';
import type { ComputedDocument } from './types.js';

type Sent = DecimalInput | null | undefined;

/** The derived figures a client may send with a document; each is compared only when sent. */
export interface SentFigures {
  subtotal_amount?: Sent;
  total_amount?: Sent;
  rounding_amount?: Sent;
  amount_paid?: Sent;
  amount_due?: Sent;
  items?: ReadonlyArray<{ amount?: Sent; taxes?: ReadonlyArray<{ tax_base?: Sent; tax_amount?: Sent } | null> | null } | null> | null;
  /** The recap: matched to the computed one by tax_code and tax_rate. */
  taxes?: ReadonlyArray<{ tax_code?: string | null; tax_rate?: Sent; tax_base?: Sent; tax_amount?: Sent } | null> | null;
}

const given = (v: Sent): v is DecimalInput => v !== null && v !== undefined;

/**
 * `strict` (architecture §4): every derived figure the client sent that differs from the computed one,
 * as a field error naming its path and both values. Figures compare as exact decimals, so 298 and
 * 298.00 agree and 297.999 does not.
 */
export function derivedFigureMismatches(sent: SentFigures, computed: ComputedDocument): FieldError[] {
  const errors: FieldError[] = [];
  const check = (path: string, value: Sent, expected: string) => {
    if (given(value) && !dec(value).eq(dec(expected))) {
      errors.push({ path, message: `sent ${dec(value).toString()}, computed ${expected}`, code: 'figure_mismatch' });
    }
  };
  check('subtotal_amount', sent.subtotal_amount, computed.subtotal_amount);
  check('total_amount', sent.total_amount, computed.total_amount);
  check('rounding_amount', sent.rounding_amount, computed.rounding_amount);
  check('amount_paid', sent.amount_paid, computed.amount_paid);
  check('amount_due', sent.amount_due, computed.amount_due);
  (sent.items ?? []).forEach((it, i) => {
    const ci = computed.items[i];
    if (!it || !ci) return;
    check(`items[${i}].amount`, it.amount, ci.amount);
    (it.taxes ?? []).forEach((t, k) => {
      const ct = ci.taxes[k];
      if (!t || !ct) return;
      check(`items[${i}].taxes[${k}].tax_base`, t.tax_base, ct.tax_base);
      check(`items[${i}].taxes[${k}].tax_amount`, t.tax_amount, ct.tax_amount);
    });
  });
  (sent.taxes ?? []).forEach((t, k) => {
    if (!t || !given(t.tax_rate)) return;
    const rate = dec(t.tax_rate);
    const ct = computed.taxes.find((c) => (c.tax_code ?? null) === (t.tax_code ?? null) && dec(c.tax_rate).eq(rate));
    if (!ct) {
      errors.push({ path: `taxes[${k}]`, message: `no tax ${t.tax_code ?? ''} at ${rate.toString()} % in the computed recap`.replace('  ', ' '), code: 'figure_mismatch' });
      return;
    }
    check(`taxes[${k}].tax_base`, t.tax_base, ct.tax_base);
    check(`taxes[${k}].tax_amount`, t.tax_amount, ct.tax_amount);
  });
  return errors;
}

/** Throws 422 `derived_figures_mismatch` listing every disagreeing figure; nothing is stored. */
export function assertDerivedFigures(sent: SentFigures, computed: ComputedDocument): void {
  const errors = derivedFigureMismatches(sent, computed);
  if (errors.length) {
    throw new BusinessRuleError(
      `strict: ${errors.length} sent figure${errors.length > 1 ? 's differ' : ' differs'} from the computed document: ${errors.map((e) => `${e.path} (${e.message})`).join('; ')}`.slice(0, 2000),
      'derived_figures_mismatch',
      errors,
    );
  }
}
