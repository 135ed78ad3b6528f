import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BusinessRuleError } from '@ledgerline/core/errors';
import { computeDocument } from './document-math.js';
import { assertDerivedFigures, derivedFigureMismatches } from './strict-figures.js';
import type { TaxInput } from './types.js';

const VAT21: TaxInput = { tax_code: 'S21', tax_rate: 21 };
const VAT12: TaxInput = { tax_code: 'S12', tax_rate: 12 };
// 2 × 100 at 21 % and 1 × 50 at 12 %: subtotal 250.00, recap 200/42 and 50/6, total 298.00
const computed = computeDocument({
  currency: 'CZK',
  legal_currency: 'CZK',
  items: [
    { qty: 2, rate: 100, taxes: [VAT21] },
    { qty: 1, rate: 50, taxes: [VAT12] },
  ],
});

describe('derivedFigureMismatches (strict)', () => {
  it('nothing sent, nothing to compare', () => {
    expect(derivedFigureMismatches({}, computed)).toEqual([]);
  });

  it('agreeing figures pass, whatever their scale (298 = 298.00)', () => {
    expect(
      derivedFigureMismatches(
        {
          subtotal_amount: 250,
          total_amount: '298.00',
          amount_paid: 0,
          amount_due: 298,
          items: [{ amount: 200, taxes: [{ tax_base: 200, tax_amount: 42 }] }, { amount: '50.0' }],
          taxes: [
            { tax_code: 'S12', tax_rate: 12, tax_base: 50, tax_amount: 6 },
            { tax_code: 'S21', tax_rate: '21.00', tax_base: 200, tax_amount: 42 },
          ],
        },
        computed,
      ),
    ).toEqual([]);
  });

  it.each([
    [{ subtotal_amount: 250.01 }, 'subtotal_amount', 'sent 250.01, computed 250.00'],
    [{ total_amount: 297.99 }, 'total_amount', 'sent 297.99, computed 298.00'],
    [{ total_amount: '298.001' }, 'total_amount', 'sent 298.001, computed 298.00'],
    [{ amount_paid: 10 }, 'amount_paid', 'sent 10, computed 0.00'],
    [{ amount_due: 0 }, 'amount_due', 'sent 0, computed 298.00'],
    [{ items: [null, { amount: 49 }] }, 'items[1].amount', 'sent 49, computed 50.00'],
    [{ items: [{ taxes: [{ tax_amount: 42.01 }] }] }, 'items[0].taxes[0].tax_amount', 'sent 42.01, computed 42.00'],
    [{ items: [{ taxes: [{ tax_base: 199 }] }] }, 'items[0].taxes[0].tax_base', 'sent 199, computed 200.00'],
    [{ taxes: [{ tax_code: 'S21', tax_rate: 21, tax_amount: 41.99 }] }, 'taxes[0].tax_amount', 'sent 41.99, computed 42.00'],
    [{ taxes: [{ tax_code: 'S12', tax_rate: 12, tax_base: 51 }] }, 'taxes[0].tax_base', 'sent 51, computed 50.00'],
    [{ taxes: [{ tax_code: 'S15', tax_rate: 15, tax_amount: 1 }] }, 'taxes[0]', 'no tax S15 at 15 % in the computed recap'],
    [{ taxes: [{ tax_code: 'S21', tax_rate: 12, tax_amount: 6 }] }, 'taxes[0]', 'no tax S21 at 12 % in the computed recap'],
  ])('%j → %s', (sent, path, message) => {
    expect(derivedFigureMismatches(sent, computed)).toEqual([{ path, message, code: 'figure_mismatch' }]);
  });

  it('lists every mismatch; items and taxes beyond the document are not compared', () => {
    const errors = derivedFigureMismatches({ subtotal_amount: 1, total_amount: 2, items: [null, null, { amount: 5 }] }, computed);
    expect(errors.map((e) => e.path)).toEqual(['subtotal_amount', 'total_amount']);
  });

  it('the computed figures themselves always pass', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ qty: fc.integer({ min: 1, max: 1000 }), cents: fc.integer({ min: -100_000, max: 10_000_000 }), vat: fc.constantFrom(VAT21, VAT12) }), {
          minLength: 1,
          maxLength: 8,
        }),
        (lines) => {
          const c = computeDocument({ currency: 'EUR', legal_currency: 'EUR', items: lines.map((l) => ({ qty: l.qty, rate: l.cents / 100, taxes: [l.vat] })) });
          const sent = {
            subtotal_amount: c.subtotal_amount,
            total_amount: c.total_amount,
            amount_due: c.amount_due,
            items: c.items.map((i) => ({ amount: i.amount, taxes: i.taxes.map((t) => ({ tax_base: t.tax_base, tax_amount: t.tax_amount })) })),
            taxes: c.taxes.map((t) => ({ tax_code: t.tax_code, tax_rate: t.tax_rate, tax_base: t.tax_base, tax_amount: t.tax_amount })),
          };
          expect(derivedFigureMismatches(sent, c)).toEqual([]);
        },
      ),
    );
  });

  it('assertDerivedFigures throws 422 derived_figures_mismatch with the field errors', () => {
    expect(() => assertDerivedFigures({ total_amount: 298 }, computed)).not.toThrow();
    try {
      assertDerivedFigures({ total_amount: 300, subtotal_amount: 250 }, computed);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(BusinessRuleError);
      expect(e).toMatchObject({ code: 'derived_figures_mismatch', errors: [{ path: 'total_amount', message: 'sent 300, computed 298.00' }] });
    }
  });
});
