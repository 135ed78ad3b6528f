import { describe, expect, it } from 'vitest';
import { dec } from '@ledgerline/service-kit';
import { advanceDeductionFigures, legalFiguresAfterAdvances, type LegalFigures } from './advance-deduction.js';

/*
 * A final document's legal figures after advances taxed at another day's rate. The worked case is
 * the one put to the Czech tax advisers' Q&A (dauc.cz, question 42093): 121 EUR received on
 * 31 May at 25 CZK/EUR (tax document: base 2 500, VAT 525), the goods delivered on 4 June at
 * 24.50. Restating the whole supply at 24.50 would lower the base by 50 and the VAT by 10.50 with
 * no change of the price; the part paid in advance keeps the advance's figures.
 */

const eur = (over: Partial<LegalFigures> = {}): LegalFigures => ({
  currency: 'EUR',
  currency_leg: 'CZK',
  precision: 2,
  tax_fx_rate: '24.5',
  currency_coef: '1',
  taxes: [{ tax_rate: '21', tax_base: '100.00', tax_amount: '21.00', tax_base_leg: '2450.00', tax_amount_leg: '514.50' }],
  subtotal_amount_leg: '2450.00',
  tax_amount_leg: '514.50',
  rounding_amount_leg: '0.00',
  total_amount_leg: '2964.50',
  ...over,
});
const taxDocument = (total: string, base: string, tax: string, baseLeg: string, taxLeg: string) => ({
  total_amount: total,
  total_leg: (Number(baseLeg) + Number(taxLeg)).toFixed(2),
  taxes: [{ tax_rate: 21, tax_base: base, tax_amount: tax, tax_base_leg: baseLeg, tax_amount_leg: taxLeg }],
});

describe('legalFiguresAfterAdvances', () => {
  it('keeps a fully paid advance at its tax document: base 2 500, VAT 525, nothing left owed in CZK', () => {
    const deduction = advanceDeductionFigures(dec(121), [taxDocument('121', '100', '21', '2500', '525')], dec('24.5'), 2);
    const after = legalFiguresAfterAdvances(eur(), [deduction]);
    expect(after.taxes).toEqual([{ tax_rate: '21', tax_base: '100.00', tax_amount: '21.00', tax_base_leg: '2500.00', tax_amount_leg: '525.00' }]);
    expect([after.subtotal_amount_leg, after.tax_amount_leg, after.total_amount_leg]).toEqual(['2500.00', '525.00', '3025.00']);
    // what the receivable is credited with by the deduction is the whole legal total
    expect(deduction.amount_leg).toBe(3025);
  });

  it('converts only the rest of a partly paid supply at the final rate', () => {
    // 60.50 EUR paid at 25: base 1 250, VAT 262.50; the other 50 + 10.50 at 24.50: 1 225 + 257.25
    const deduction = advanceDeductionFigures(dec('60.5'), [taxDocument('60.5', '50', '10.5', '1250', '262.5')], dec('24.5'), 2);
    const after = legalFiguresAfterAdvances(eur(), [deduction]);
    expect(after.taxes[0]).toMatchObject({ tax_base_leg: '2475.00', tax_amount_leg: '519.75' });
    expect(after.total_amount_leg).toBe('2994.75');
    // the receivable left in CZK is the 60.50 EUR still owed, at the final rate
    expect(dec(after.total_amount_leg).minus(deduction.amount_leg).toFixed(2)).toBe((60.5 * 24.5).toFixed(2));
  });

  it('sums the tax documents of several advances at one rate, leaves other rates and the rounding as they were', () => {
    const figures = eur({
      taxes: [
        { tax_rate: '21', tax_base: '100.00', tax_amount: '21.00', tax_base_leg: '2450.00', tax_amount_leg: '514.50' },
        { tax_rate: '12', tax_base: '10.00', tax_amount: '1.20', tax_base_leg: '245.00', tax_amount_leg: '29.40' },
      ],
      subtotal_amount_leg: '2695.00',
      tax_amount_leg: '543.90',
      rounding_amount_leg: '-2.45',
      total_amount_leg: '3236.45',
    });
    const first = advanceDeductionFigures(dec('12.1'), [taxDocument('12.1', '10', '2.1', '250', '52.5')], dec('24.5'), 2);
    const second = advanceDeductionFigures(dec('24.2'), [taxDocument('24.2', '20', '4.2', '520', '109.2')], dec('24.5'), 2);
    const after = legalFiguresAfterAdvances(figures, [first, second]);
    // 21 %: 250 + 520 taxed before, the other 70 EUR at 24.50 = 1 715; VAT 52.50 + 109.20 + 14.70 × 24.50 = 360.15
    expect(after.taxes[0]).toMatchObject({ tax_base_leg: '2485.00', tax_amount_leg: '521.85' });
    expect(after.taxes[1]).toEqual(figures.taxes[1]);
    expect(after.subtotal_amount_leg).toBe('2730.00');
    expect(after.tax_amount_leg).toBe('551.25');
    expect(after.total_amount_leg).toBe('3278.80');
  });

  it('answers a document in the legal currency, or one deducting only untaxed advances, unchanged', () => {
    const czk = eur({ currency: 'CZK', tax_fx_rate: '1' });
    const taxed = advanceDeductionFigures(dec(121), [taxDocument('121', '100', '21', '2500', '525')], dec(1), 2);
    expect(legalFiguresAfterAdvances(czk, [taxed])).toBe(czk);
    const untaxed = advanceDeductionFigures(dec(121), [], dec('24.5'), 2);
    expect(legalFiguresAfterAdvances(eur(), [untaxed])).toEqual(eur());
  });

  it('converts with the currency coefficient as the document does (100 HUF a rate)', () => {
    const huf = eur({
      currency: 'HUF',
      tax_fx_rate: '6.2',
      currency_coef: '100',
      taxes: [{ tax_rate: '21', tax_base: '10000.00', tax_amount: '2100.00', tax_base_leg: '620.00', tax_amount_leg: '130.20' }],
      subtotal_amount_leg: '620.00',
      tax_amount_leg: '130.20',
      total_amount_leg: '750.20',
    });
    // 6 050 HUF paid at 6.40 / 100: base 5 000 → 320, VAT 1 050 → 67.20; the rest at 6.20 / 100
    const d = advanceDeductionFigures(dec(6050), [taxDocument('6050', '5000', '1050', '320', '67.2')], dec('0.062'), 2);
    const after = legalFiguresAfterAdvances(huf, [d]);
    expect(after.taxes[0]).toMatchObject({ tax_base_leg: '630.00', tax_amount_leg: '132.30' });
    expect(after.total_amount_leg).toBe('762.30');
  });
});
