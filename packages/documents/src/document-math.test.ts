import { describe, expect, it } from 'vitest';
import { computeDocument } from './document-math.js';
import { DocumentRuleError, DocumentValidationError } from './errors.js';
import type { DocumentInput, ItemInput, TaxInput } from './types.js';

const VAT21: TaxInput = { tax_code: 'S21', tax_name: 'VAT 21 %', tax_rate: 21, rate_type: 'standard', tax_index: 0 };
const VAT12: TaxInput = { tax_code: 'S12', tax_name: 'VAT 12 %', tax_rate: 12, rate_type: 'reduced', tax_index: 1 };

function doc(partial: Partial<DocumentInput>): DocumentInput {
  return { currency: 'EUR', legal_currency: 'EUR', taxes_included: false, ...partial };
}
const item = (qty: ItemInput['qty'], rate: ItemInput['rate'], taxes: TaxInput[] = [VAT21], extra: Partial<ItemInput> = {}): ItemInput => ({
  qty,
  rate,
  taxes,
  ...extra,
});

describe('computeDocument: required examples', () => {
  it('2 × 100 at 21 % and 1 × 50 at 12 %', () => {
    const r = computeDocument(doc({ items: [item(2, 100, [VAT21]), item(1, 50, [VAT12])] }));
    expect(r.subtotal_amount).toBe('250.00');
    expect(r.taxes.map((t) => [t.tax_code, t.tax_rate, t.tax_base, t.tax_amount])).toEqual([
      ['S21', '21', '200.00', '42.00'],
      ['S12', '12', '50.00', '6.00'],
    ]);
    expect(r.tax_amount).toBe('48.00');
    expect(r.total_amount).toBe('298.00');
    expect(r.amount_paid).toBe('0.00');
    expect(r.amount_due).toBe('298.00');
    expect(r.payment_status).toBe('unpaid');
    expect(r.items[0]).toMatchObject({ amount: '200.00', rate_discounted: '100.0000', discount_implicit: '0.00' });
    expect(r.items[0].taxes[0]).toMatchObject({ tax_base: '200.00', tax_amount: '42.00', tax_name: 'VAT 21 %', rate_type: 'standard', tax_index: 0 });
  });

  it('three lines of 0.07 at 21 %: tax on the sum, not a sum of line taxes', () => {
    const r = computeDocument(doc({ items: [item(1, 0.07), item(1, '0.07'), item(1, 0.07)] }));
    expect(r.items.map((i) => i.taxes[0].tax_amount)).toEqual(['0.01', '0.01', '0.01']);
    expect(r.taxes).toHaveLength(1);
    expect(r.taxes[0]).toMatchObject({ tax_base: '0.21', tax_amount: '0.04' });
    expect(r.subtotal_amount).toBe('0.21');
    expect(r.total_amount).toBe('0.25');
  });

  it('one 121.00 gross line with taxes included', () => {
    const r = computeDocument(doc({ taxes_included: true, items: [item(1, 121)] }));
    expect(r.items[0]).toMatchObject({ amount: '121.00', net_amount: '100.00' });
    expect(r.items[0].taxes[0]).toMatchObject({ tax_base: '100.00', tax_amount: '21.00' });
    expect(r.taxes[0]).toMatchObject({ tax_base: '100.00', tax_amount: '21.00' });
    expect(r.subtotal_amount).toBe('100.00');
    expect(r.total_amount).toBe('121.00');
  });

  it('a 100 EUR line at fx 25 (legal CZK) at 21 %', () => {
    const r = computeDocument(doc({ legal_currency: 'CZK', fx_rate: 25, items: [item(1, 100)] }));
    expect(r.taxes[0]).toMatchObject({
      tax_base: '100.00',
      tax_amount: '21.00',
      tax_base_leg: '2500.00',
      tax_amount_leg: '525.00',
      currency_leg: 'CZK',
    });
    expect(r.items[0].taxes[0]).toMatchObject({ tax_base_leg: '2500.00', tax_amount_leg: '525.00', currency_leg: 'CZK' });
    expect(r).toMatchObject({
      currency: 'EUR',
      currency_leg: 'CZK',
      fx_rate: '25',
      tax_fx_rate: '25',
      currency_coef: '1',
      subtotal_amount_leg: '2500.00',
      tax_amount_leg: '525.00',
      total_amount_leg: '3025.00',
    });
  });

  it('1 × 1000 at 21 %', () => {
    const r = computeDocument(doc({ items: [item(1, 1000)] }));
    expect(r.total_amount).toBe('1210.00');
    expect(r.taxes[0].tax_amount).toBe('210.00');
  });
});

describe('computeDocument: line amounts', () => {
  it('amount = round(qty × rate − discount_explicit), rate_discounted = amount / qty', () => {
    const r = computeDocument(doc({ items: [item(3, '10.005', [VAT21], { discount_explicit: 1 })] }));
    // 30.015 − 1 = 29.015 → 29.02 (half away from zero)
    expect(r.items[0]).toMatchObject({
      qty: '3',
      rate: '10.005',
      discount_explicit: '1',
      amount_before_discount: '29.02',
      amount: '29.02',
      rate_discounted: '9.6733',
    });
  });

  it('rounds half away from zero on negative lines too', () => {
    const r = computeDocument(doc({ items: [item(-1, '0.125', [])] }));
    expect(r.items[0].amount).toBe('-0.13');
  });

  it('qty 0 keeps the rate as rate_discounted', () => {
    const r = computeDocument(doc({ items: [item(0, '12.5')] }));
    expect(r.items[0]).toMatchObject({ amount: '0.00', rate_discounted: '12.5' });
    expect(r.total_amount).toBe('0.00');
    expect(r.payment_status).toBe('paid');
  });

  it('fractional quantities and long rates never go through floats', () => {
    // 0.1 × 3 in floats is 0.30000000000000004; 1.005 × 1 rounds to 1.01 only in decimal.
    const r = computeDocument(doc({ items: [item('0.1', 3, []), item(1, 1.005, [])] }));
    expect(r.items.map((i) => i.amount)).toEqual(['0.30', '1.01']);
    expect(r.subtotal_amount).toBe('1.31');
  });

  it('an untaxed line counts in the subtotal but not in the recap', () => {
    const r = computeDocument(doc({ items: [item(1, 10, []), item(1, 100)] }));
    expect(r.taxes).toHaveLength(1);
    expect(r.taxes[0].tax_base).toBe('100.00');
    expect(r.subtotal_amount).toBe('110.00');
    expect(r.total_amount).toBe('131.00');
  });

  it('a 0 % tax gets its own recap row', () => {
    const r = computeDocument(doc({ items: [item(1, 10, [{ tax_code: 'Z', tax_rate: 0 }]), item(1, 100)] }));
    expect(r.taxes.map((t) => [t.tax_code, t.tax_base, t.tax_amount])).toEqual([
      ['S21', '100.00', '21.00'],
      ['Z', '10.00', '0.00'],
    ]);
    expect(r.total_amount).toBe('131.00');
  });

  it('groups the recap by tax code and rate', () => {
    const r = computeDocument(
      doc({
        items: [
          item(1, 10, [{ tax_code: 'A', tax_rate: 21 }]),
          item(1, 20, [{ tax_code: 'B', tax_rate: 21 }]),
          item(1, 30, [{ tax_code: 'A', tax_rate: '21.00' }]),
        ],
      }),
    );
    expect(r.taxes.map((t) => [t.tax_code, t.tax_rate, t.tax_base, t.tax_amount])).toEqual([
      ['A', '21', '40.00', '8.40'],
      ['B', '21', '20.00', '4.20'],
    ]);
  });

  it('passes gl_account and deduction ratios through', () => {
    const r = computeDocument(
      doc({ items: [item(1, 10, [VAT21], { gl_account: '518', tax_deduction_ratio: '0.5', net_deduction_ratio: 1 })] }),
    );
    expect(r.items[0]).toMatchObject({ gl_account: '518', tax_deduction_ratio: '0.5', net_deduction_ratio: '1' });
  });

  it('shipping charges are lines of their own', () => {
    const r = computeDocument(doc({ items: [item(1, 100)], shipping_charges: [{ amount: '9.999', taxes: [VAT21] }] }));
    expect(r.shipping_charges[0]).toMatchObject({ amount_before_discount: '10.00', amount: '10.00', discount_implicit: '0.00' });
    expect(r.shipping_charges[0].taxes[0]).toMatchObject({ tax_base: '10.00', tax_amount: '2.10' });
    expect(r.taxes[0]).toMatchObject({ tax_base: '110.00', tax_amount: '23.10' });
    expect(r.total_amount).toBe('133.10');
  });

  it('a credit-note-like negative document mirrors the positive one', () => {
    const pos = computeDocument(doc({ items: [item(1, '33.33'), item(2, '0.07', [VAT12])] }));
    const neg = computeDocument(doc({ items: [item(-1, '33.33'), item(-2, '0.07', [VAT12])] }));
    const negate = (s: string) => (s.startsWith('-') ? s.slice(1) : `-${s}`);
    expect(neg.total_amount).toBe(negate(pos.total_amount));
    expect(neg.taxes.map((t) => t.tax_amount)).toEqual(pos.taxes.map((t) => negate(t.tax_amount)));
  });
});

describe('computeDocument: taxes included', () => {
  it('recap base is chosen so that base + tax is the gross sum', () => {
    const r = computeDocument(doc({ taxes_included: true, items: [item(1, 10), item(1, 10), item(1, 10)] }));
    // line: tax round(10 × 21 / 121 = 1.7355) = 1.74, base 8.26
    expect(r.items[0].taxes[0]).toMatchObject({ tax_base: '8.26', tax_amount: '1.74' });
    expect(r.items[0].net_amount).toBe('8.26');
    // recap: tax round(30 × 21 / 121 = 5.2066) = 5.21, base 24.79 (not Σ line bases 24.78)
    expect(r.taxes[0]).toMatchObject({ tax_base: '24.79', tax_amount: '5.21' });
    expect(r.subtotal_amount).toBe('24.79');
    expect(r.total_amount).toBe('30.00');
  });

  it('mixed rates and an untaxed line', () => {
    const r = computeDocument(
      doc({ taxes_included: true, items: [item(1, '99.99'), item(2, '5.60', [VAT12]), item(1, 7, [])] }),
    );
    // 99.99 × 21/121 = 17.3536 → 17.35; 11.20 × 12/112 = 1.20
    expect(r.taxes.map((t) => [t.tax_rate, t.tax_base, t.tax_amount])).toEqual([
      ['21', '82.64', '17.35'],
      ['12', '10.00', '1.20'],
    ]);
    expect(r.subtotal_amount).toBe('99.64');
    expect(r.total_amount).toBe('118.19');
  });

  it('several taxes on one line: included and excluded agree', () => {
    const eco: TaxInput = { tax_code: 'ECO', tax_rate: 5 };
    const excl = computeDocument(doc({ items: [item(1, 100, [VAT21, eco])] }));
    expect(excl.items[0].taxes.map((t) => [t.tax_base, t.tax_amount])).toEqual([
      ['100.00', '21.00'],
      ['100.00', '5.00'],
    ]);
    expect(excl.subtotal_amount).toBe('100.00');
    expect(excl.total_amount).toBe('126.00');
    const incl = computeDocument(doc({ taxes_included: true, items: [item(1, 126, [VAT21, eco])] }));
    expect(incl.items[0].net_amount).toBe('100.00');
    expect(incl.taxes.map((t) => [t.tax_code, t.tax_base, t.tax_amount])).toEqual([
      ['S21', '100.00', '21.00'],
      ['ECO', '100.00', '5.00'],
    ]);
    expect(incl.subtotal_amount).toBe('100.00');
    expect(incl.total_amount).toBe('126.00');
  });
});

describe('computeDocument: precision', () => {
  it('precision 0', () => {
    const r = computeDocument(doc({ precision: 0, currency: 'CZK', legal_currency: 'CZK', items: [item(1, '10.5'), item(1, '10.4')] }));
    expect(r.items.map((i) => i.amount)).toEqual(['11', '10']);
    expect(r.taxes[0]).toMatchObject({ tax_base: '21', tax_amount: '4' }); // 4.41 → 4
    expect(r.subtotal_amount).toBe('21');
    expect(r.total_amount).toBe('25');
    expect(r.amount_due).toBe('25');
    expect(r.items[0].rate_discounted).toBe('11.0000');
  });

  it('precision 4', () => {
    const r = computeDocument(doc({ precision: 4, items: [item(3, '0.33335')] }));
    // 1.00005 → 1.0001; tax 0.210021 → 0.2100
    expect(r.items[0]).toMatchObject({ amount: '1.0001', rate_discounted: '0.333367' });
    expect(r.taxes[0]).toMatchObject({ tax_base: '1.0001', tax_amount: '0.2100' });
    expect(r.total_amount).toBe('1.2101');
  });

  it('precision defaults to 2', () => {
    const r = computeDocument(doc({ precision: null, items: [item(1, '1.005', [])] }));
    expect(r.precision).toBe(2);
    expect(r.total_amount).toBe('1.01');
  });
});

describe('computeDocument: legal currency', () => {
  it('currency_coef divides the fx rate (HUF quoted per 100)', () => {
    const r = computeDocument(doc({ currency: 'HUF', legal_currency: 'CZK', fx_rate: '6.123', currency_coef: 100, items: [item(1, 1000)] }));
    // 1000 × 6.123 / 100 = 61.23; 210 × 0.06123 = 12.8583 → 12.86
    expect(r.taxes[0]).toMatchObject({ tax_base_leg: '61.23', tax_amount_leg: '12.86' });
    expect(r).toMatchObject({ subtotal_amount_leg: '61.23', tax_amount_leg: '12.86', total_amount_leg: '74.09', currency_coef: '100' });
  });

  it('tax fields use tax_fx_rate, the rest fx_rate', () => {
    const r = computeDocument(doc({ legal_currency: 'CZK', fx_rate: 25, tax_fx_rate: '24.5', items: [item(1, 100)] }));
    expect(r.taxes[0]).toMatchObject({ tax_base_leg: '2450.00', tax_amount_leg: '514.50' });
    expect(r).toMatchObject({ subtotal_amount_leg: '2500.00', tax_amount_leg: '514.50', total_amount_leg: '3014.50', tax_fx_rate: '24.5' });
  });

  it('all rates are 1 when the currency is the legal currency', () => {
    const r = computeDocument(doc({ currency: 'CZK', legal_currency: 'czk', fx_rate: 25, tax_fx_rate: 3, currency_coef: 100, items: [item(1, 100)] }));
    expect(r).toMatchObject({ fx_rate: '1', tax_fx_rate: '1', currency_coef: '1', currency_leg: 'CZK' });
    expect(r.total_amount_leg).toBe(r.total_amount);
  });

  it('legal figures reconcile: rows rounded each, totals are their sums', () => {
    const r = computeDocument(doc({ legal_currency: 'CZK', fx_rate: '1.5', items: [item(1, '0.33'), item(1, '0.33', [VAT12])] }));
    // bases 0.33 × 1.5 = 0.495 → 0.50 each; taxes 0.07 × 1.5 = 0.105 → 0.11, 0.04 × 1.5 = 0.06
    expect(r.taxes.map((t) => [t.tax_base_leg, t.tax_amount_leg])).toEqual([
      ['0.50', '0.11'],
      ['0.50', '0.06'],
    ]);
    expect(r.subtotal_amount_leg).toBe('1.00'); // not round(0.66 × 1.5) = 0.99
    expect(r.tax_amount_leg).toBe('0.17');
    expect(r.total_amount_leg).toBe('1.17');
  });
});

describe('computeDocument: amount paid', () => {
  it('amount_due = total − amount_paid, with the payment status', () => {
    const base = doc({ items: [item(2, 100, [VAT21]), item(1, 50, [VAT12])] });
    expect(computeDocument({ ...base, amount_paid: 100 })).toMatchObject({ amount_paid: '100.00', amount_due: '198.00', payment_status: 'partially_paid' });
    expect(computeDocument({ ...base, amount_paid: '298' })).toMatchObject({ amount_due: '0.00', payment_status: 'paid' });
    expect(computeDocument({ ...base, amount_paid: 300 })).toMatchObject({ amount_due: '-2.00', payment_status: 'overpaid' });
  });
});

describe('computeDocument: document discounts', () => {
  it('percentage each: value % of every targeted line, rounded per line', () => {
    const r = computeDocument(
      doc({
        items: [item(2, 100), item(1, '50.55')],
        discounts: [{ title: '10 %', value: 10, value_type: 'percentage', allocation_method: 'each', target_type: 'line_item' }],
      }),
    );
    expect(r.items.map((i) => [i.amount_before_discount, i.discount_implicit, i.amount])).toEqual([
      ['200.00', '20.00', '180.00'],
      ['50.55', '5.06', '45.49'],
    ]);
    expect(r.items[1].rate_discounted).toBe('45.4900');
    expect(r.discounts[0]).toMatchObject({ title: '10 %', value: '10', amount: '25.06', allocations: ['20.00', '5.06'] });
    expect(r.subtotal_amount).toBe('225.49');
  });

  it('percentage across: per line, remainder on the largest line so the total is round(total × %)', () => {
    const lines = [item(1, '0.05'), item(1, '0.05'), item(1, '0.06')];
    const each = computeDocument(doc({ items: lines, discounts: [{ value: 10, value_type: 'percentage', allocation_method: 'each', target_type: 'line_item' }] }));
    expect(each.discounts[0].allocations).toEqual(['0.01', '0.01', '0.01']); // 0.005, 0.005, 0.006 each rounded
    const across = computeDocument(doc({ items: lines, discounts: [{ value: 10, value_type: 'percentage', allocation_method: 'across', target_type: 'line_item' }] }));
    // round(0.16 × 10 %) = 0.02; the −0.01 remainder goes to the largest line (0.06)
    expect(across.discounts[0]).toMatchObject({ amount: '0.02', allocations: ['0.01', '0.01', '0.00'] });
    expect(across.items.map((i) => i.amount)).toEqual(['0.04', '0.04', '0.06']);
  });

  it('fixed amount across: proportional, remainder on the largest line, sum exact', () => {
    const r = computeDocument(
      doc({
        items: [item(1, 100), item(1, 200), item(1, 100)],
        discounts: [{ value: '10', value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' }],
      }),
    );
    // 2.50, 5.00, 2.50
    expect(r.discounts[0].allocations).toEqual(['2.50', '5.00', '2.50']);
    const thirds = computeDocument(
      doc({
        items: [item(1, 100), item(1, 100), item(1, 100)],
        discounts: [{ value: 10, value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' }],
      }),
    );
    expect(thirds.discounts[0]).toMatchObject({ value: '10.00', amount: '10.00', allocations: ['3.34', '3.33', '3.33'] });
    expect(thirds.subtotal_amount).toBe('290.00');
    expect(thirds.taxes[0]).toMatchObject({ tax_base: '290.00', tax_amount: '60.90' });
  });

  it('fixed amount across: the remainder goes to the largest line wherever it is', () => {
    const r = computeDocument(
      doc({
        items: [item(1, 10), item(1, 10), item(1, 30)],
        discounts: [{ value: '0.10', value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' }],
      }),
    );
    // 0.02, 0.02, 0.06 = 0.10 exactly; now one that needs a remainder: 0.01 over 3 equal thirds
    expect(r.discounts[0].allocations).toEqual(['0.02', '0.02', '0.06']);
    const r2 = computeDocument(
      doc({
        items: [item(1, 10), item(1, 10), item(1, 11)],
        discounts: [{ value: '0.04', value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' }],
      }),
    );
    // raw 0.0129, 0.0129, 0.0142 → 0.01 each = 0.03; +0.01 on the 11.00 line
    expect(r2.discounts[0].allocations).toEqual(['0.01', '0.01', '0.02']);
  });

  it('fixed amount each: the value on every targeted line, capped at the line amount', () => {
    const r = computeDocument(
      doc({
        items: [item(1, 100), item(1, 3)],
        discounts: [{ value: 5, value_type: 'fixed_amount', allocation_method: 'each', target_type: 'line_item' }],
      }),
    );
    expect(r.discounts[0]).toMatchObject({ amount: '8.00', allocations: ['5.00', '3.00'] });
    expect(r.items.map((i) => i.amount)).toEqual(['95.00', '0.00']);
  });

  it('target_type shipping_line discounts only the shipping charges', () => {
    const r = computeDocument(
      doc({
        items: [item(1, 100)],
        shipping_charges: [{ amount: 10, taxes: [VAT21] }, { amount: 5, taxes: [VAT21] }],
        discounts: [{ title: 'Free shipping', value: 100, value_type: 'percentage', allocation_method: 'each', target_type: 'shipping_line' }],
      }),
    );
    expect(r.items[0].discount_implicit).toBe('0.00');
    expect(r.shipping_charges.map((s) => [s.amount_before_discount, s.discount_implicit, s.amount])).toEqual([
      ['10.00', '10.00', '0.00'],
      ['5.00', '5.00', '0.00'],
    ]);
    expect(r.discounts[0].allocations).toEqual(['10.00', '5.00']);
    expect(r.total_amount).toBe('121.00');
  });

  it('a line_item discount leaves shipping alone', () => {
    const r = computeDocument(
      doc({
        items: [item(1, 100)],
        shipping_charges: [{ amount: 10, taxes: [VAT21] }],
        discounts: [{ value: 20, value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' }],
      }),
    );
    expect(r.items[0].amount).toBe('80.00');
    expect(r.shipping_charges[0].amount).toBe('10.00');
    expect(r.total_amount).toBe('108.90');
  });

  it('several discounts apply in order, each on what the previous ones left', () => {
    const r = computeDocument(
      doc({
        items: [item(1, 100)],
        discounts: [
          { value: 10, value_type: 'percentage', allocation_method: 'across', target_type: 'line_item' },
          { value: 10, value_type: 'percentage', allocation_method: 'across', target_type: 'line_item' },
          { value: 1, value_type: 'fixed_amount', allocation_method: 'each', target_type: 'line_item' },
        ],
      }),
    );
    expect(r.discounts.map((d) => d.amount)).toEqual(['10.00', '9.00', '1.00']);
    expect(r.items[0]).toMatchObject({ discount_implicit: '20.00', amount: '80.00', rate_discounted: '80.0000' });
  });

  it('discounts combine with the explicit line discount', () => {
    const r = computeDocument(
      doc({
        items: [item(2, 50, [VAT21], { discount_explicit: 10 })],
        discounts: [{ value: 50, value_type: 'percentage', allocation_method: 'each', target_type: 'line_item' }],
      }),
    );
    expect(r.items[0]).toMatchObject({ amount_before_discount: '90.00', discount_implicit: '45.00', amount: '45.00', rate_discounted: '22.5000' });
  });

  it('discounts on a taxes-included document reduce the gross', () => {
    const r = computeDocument(
      doc({
        taxes_included: true,
        items: [item(1, 121)],
        discounts: [{ value: '12.10', value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' }],
      }),
    );
    expect(r.taxes[0]).toMatchObject({ tax_base: '90.00', tax_amount: '18.90' });
    expect(r.total_amount).toBe('108.90');
  });

  it('discounts on a negative document reduce its magnitude', () => {
    const r = computeDocument(
      doc({
        items: [item(-1, 100), item(-1, 50)],
        discounts: [{ value: 15, value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' }],
      }),
    );
    expect(r.discounts[0]).toMatchObject({ amount: '-15.00', allocations: ['-10.00', '-5.00'] });
    expect(r.items.map((i) => i.amount)).toEqual(['-90.00', '-45.00']);
  });

  it('ties for the largest line do not depend on line order', () => {
    const discounts = [{ value: '0.01', value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' } as const];
    const a = computeDocument(doc({ items: [item(1, 100, [VAT21]), item(1, 100, [VAT12])], discounts }));
    const b = computeDocument(doc({ items: [item(1, 100, [VAT12]), item(1, 100, [VAT21])], discounts }));
    expect(a.total_amount).toBe(b.total_amount);
    expect(a.taxes).toEqual(b.taxes);
  });

  it('refuses a fixed discount larger than the lines it is spread across (422)', () => {
    const run = () =>
      computeDocument(
        doc({ items: [item(1, 10)], discounts: [{ value: '10.01', value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' }] }),
      );
    expect(run).toThrow(DocumentRuleError);
    try {
      run();
    } catch (e) {
      expect(e).toMatchObject({ status: 422, code: 'discount_exceeds_amount', errors: [{ path: 'discounts[0].value' }] });
    }
  });

  it('refuses a fixed discount across when no line is targeted; a percentage on nothing is nothing', () => {
    expect(() =>
      computeDocument(doc({ items: [item(1, 10)], discounts: [{ value: 1, value_type: 'fixed_amount', allocation_method: 'across', target_type: 'shipping_line' }] })),
    ).toThrow(DocumentRuleError);
    const r = computeDocument(
      doc({ items: [item(1, 10)], discounts: [{ value: 10, value_type: 'percentage', allocation_method: 'across', target_type: 'shipping_line' }] }),
    );
    expect(r.discounts[0]).toMatchObject({ amount: '0.00', allocations: [] });
  });
});

describe('computeDocument: input validation', () => {
  const catchErr = (input: DocumentInput) => {
    try {
      computeDocument(input);
    } catch (e) {
      return e as DocumentValidationError;
    }
    throw new Error('expected a validation error');
  };

  it('precision must be 0–4', () => {
    for (const precision of [5, -1, 1.5]) {
      const e = catchErr(doc({ precision, items: [] }));
      expect(e).toBeInstanceOf(DocumentValidationError);
      expect(e).toMatchObject({ status: 400, code: 'validation_error', errors: [{ path: 'precision', code: 'invalid_precision' }] });
    }
  });

  it('numbers must be finite decimals; every problem is reported with its path', () => {
    const e = catchErr(
      doc({
        currency: 'EURO',
        items: [item(Number.NaN, 'abc'), item(1, 'Infinity', [{ tax_rate: -1 }]), item(1, '0x10')],
        discounts: [{ value: 150, value_type: 'percentage', allocation_method: 'across', target_type: 'line_item' }],
      }),
    );
    expect(e.errors!.map((x) => x.path)).toEqual([
      'currency',
      'items[0].qty',
      'items[0].rate',
      'items[1].rate',
      'items[1].taxes[0].tax_rate',
      'items[2].rate',
      'discounts[0].value',
    ]);
  });

  it('needs fx_rate when the currency is not the legal currency', () => {
    expect(catchErr(doc({ legal_currency: 'CZK', items: [] })).errors).toEqual([{ path: 'fx_rate', message: 'is required', code: 'required' }]);
    expect(catchErr(doc({ legal_currency: 'CZK', fx_rate: 0, items: [] })).errors![0]).toMatchObject({ path: 'fx_rate', code: 'out_of_range' });
  });

  it('refuses bad enums, negative fixed discounts, ratios outside 0–1 and a tax twice on one line', () => {
    const e = catchErr(
      doc({
        items: [item(1, 1, [VAT21, { ...VAT21, tax_name: 'again' }], { tax_deduction_ratio: 2 })],
        discounts: [
          { value: -1, value_type: 'fixed_amount', allocation_method: 'across', target_type: 'line_item' },
          { value: 1, value_type: 'percent' as never, allocation_method: 'all' as never, target_type: 'items' as never },
        ],
      }),
    );
    expect(e.errors!.map((x) => [x.path, x.code])).toEqual([
      ['items[0].taxes[1]', 'duplicate_tax'],
      ['items[0].tax_deduction_ratio', 'out_of_range'],
      ['discounts[0].value', 'out_of_range'],
      ['discounts[1].value_type', 'invalid_enum'],
      ['discounts[1].allocation_method', 'invalid_enum'],
      ['discounts[1].target_type', 'invalid_enum'],
    ]);
  });

  it('accepts numbers, decimal strings (with exponent) and an empty document', () => {
    const r = computeDocument(doc({ items: [item(' 2 ', '1e2', [{ tax_rate: '2.1e1' }])] }));
    expect(r.total_amount).toBe('242.00');
    const empty = computeDocument(doc({}));
    expect(empty).toMatchObject({ subtotal_amount: '0.00', total_amount: '0.00', taxes: [], items: [], payment_status: 'paid' });
  });
});

describe('computeDocument: figures that could not be stored or posted', () => {
  const tax = { tax_code: 'S', tax_rate: 21 };
  it('accepts the largest figures and refuses one cent more, naming the figure', () => {
    const fits = computeDocument({ currency: 'CZK', legal_currency: 'CZK', items: [{ qty: 1, rate: '9999999999999.99', taxes: [] }] });
    expect(fits.total_amount).toBe('9999999999999.99');
    const refuse = (input: Parameters<typeof computeDocument>[0]) => {
      try {
        computeDocument(input);
      } catch (e) {
        expect(e).toBeInstanceOf(DocumentValidationError);
        return (e as DocumentValidationError).errors!.map((x) => x.path);
      }
      throw new Error('accepted');
    };
    expect(refuse({ currency: 'CZK', legal_currency: 'CZK', items: [{ qty: 2, rate: '9999999999999.99', taxes: [] }] })).toContain('items[0].amount');
    expect(refuse({ currency: 'CZK', legal_currency: 'CZK', items: [{ qty: 1, rate: '9000000000000', taxes: [tax] }] })).toEqual(['total_amount', 'amount_due', 'total_amount_leg']);
    // a EUR document whose legal value outgrows the ledger at fx_rate 25
    expect(refuse({ currency: 'EUR', legal_currency: 'CZK', fx_rate: 25, items: [{ qty: 1, rate: '1000000000000', taxes: [] }] })).toEqual(['subtotal_amount_leg', 'total_amount_leg']);
    // only the tax figures' legal values, at a tax rate of exchange far above the document's
    expect(refuse({ currency: 'EUR', legal_currency: 'CZK', fx_rate: 1, tax_fx_rate: 1_000_000, items: [{ qty: 1, rate: '100000000', taxes: [tax] }] })).toEqual([
      'items[0].taxes[0].tax_base_leg',
      'items[0].taxes[0].tax_amount_leg',
      'taxes[0].tax_base_leg',
      'taxes[0].tax_amount_leg',
      'tax_amount_leg',
      'total_amount_leg',
    ]);
    // a shipping charge
    expect(refuse({ currency: 'CZK', legal_currency: 'CZK', items: [], shipping_charges: [{ amount: '20000000000000', taxes: [] }] })).toContain('shipping_charges[0].amount');
  });
});
