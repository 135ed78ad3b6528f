import { describe, expect, it } from 'vitest';
import { Dec } from '@ledgerline/core/money';
import { accountingPlan, addMonths, AccountingPlanRefusal } from './accounting-depreciation.js';
import { taxPlan, TaxPlanRefusal, type TaxPlanInput } from './tax-depreciation.js';
import { straightLineRates, SECTION_30_1_YEARS, type TaxGroup } from './tax-depreciation-tables.js';

/*
 * The plans against the law's tables and the worked examples the Czech textbooks and the Financial
 * Administration's guidance give (a car of 500 000 in group 2 each way, a technical improvement,
 * an interrupted year, a disposal): figures to the crown.
 */

const plan = (over: Partial<TaxPlanInput>) =>
  taxPlan({ cost: '500000', firstYear: 2024, group: 2, method: 'straight_line', firstYearIncrease: 0, improvements: [], interruptedYears: [], disposalYear: null, ...over });
const figures = (rows: Array<{ year: number; depreciation: string; residual: string }>) => rows.map((r) => [r.year, Number(r.depreciation), Number(r.residual)]);

describe('tax depreciation (§31, §32 of the Income Tax Act)', () => {
  it('§31 straight-line, group 2, 500 000: 11 % then 22.25 % four times', () => {
    expect(figures(plan({}))).toEqual([
      [2024, 55000, 445000],
      [2025, 111250, 333750],
      [2026, 111250, 222500],
      [2027, 111250, 111250],
      [2028, 111250, 0],
    ]);
  });

  it('§32 accelerated, group 2, 500 000: 500 000/5, then 2 × residual / (6 − years)', () => {
    expect(figures(plan({ method: 'accelerated' }))).toEqual([
      [2024, 100000, 400000],
      [2025, 160000, 240000],
      [2026, 120000, 120000],
      [2027, 80000, 40000],
      [2028, 40000, 0],
    ]);
  });

  it('rounds every year up to whole crowns, the last year takes what is left', () => {
    expect(figures(plan({ group: 1, cost: '123457' }))).toEqual([
      [2024, 24692, 98765],
      [2025, 49383, 49382],
      [2026, 49382, 0],
    ]);
    expect(figures(plan({ group: 1, cost: '100000', method: 'accelerated' }))).toEqual([
      [2024, 33334, 66666],
      [2025, 44444, 22222],
      [2026, 22222, 0],
    ]);
  });

  it('every group is spent in its §30 period at the law rates, to the crown', () => {
    for (const group of [1, 2, 3, 4, 5, 6] as TaxGroup[]) {
      for (const method of ['straight_line', 'accelerated'] as const) {
        const rows = plan({ group, method, cost: '987654.32' });
        expect(rows.length, `${group} ${method}`).toBe(SECTION_30_1_YEARS[group]);
        expect(rows.reduce((s, r) => s.plus(r.depreciation), new Dec(0)).toFixed(2)).toBe('987654.32');
        expect(rows.at(-1)!.residual).toBe('0.00');
      }
    }
  });

  it('§31(1)(d): the first year increased by 10 % — group 2 at 21 % then 19.75 %', () => {
    expect(figures(plan({ cost: '200000', firstYearIncrease: 10 }))).toEqual([
      [2024, 42000, 158000],
      [2025, 39500, 118500],
      [2026, 39500, 79000],
      [2027, 39500, 39500],
      [2028, 39500, 0],
    ]);
    expect(straightLineRates(1, 20)).toEqual({ first: '40', further: '30', increased: '33.3' });
    expect(straightLineRates(3, 15)).toEqual({ first: '19', further: '9', increased: '10' });
    expect(() => plan({ group: 4, firstYearIncrease: 10 })).toThrow(TaxPlanRefusal);
    expect(() => plan({ method: 'accelerated', firstYearIncrease: 20 })).toThrow(TaxPlanRefusal);
  });

  it('a technical improvement: straight-line from the increased input price at its own rate', () => {
    // 100 000 in group 2; an improvement of 40 000 in the third year: 140 000 × 20 % until spent
    expect(figures(plan({ cost: '100000', improvements: [{ year: 2026, amount: '40000' }] }))).toEqual([
      [2024, 11000, 89000],
      [2025, 22250, 66750],
      [2026, 28000, 78750],
      [2027, 28000, 50750],
      [2028, 28000, 22750],
      [2029, 22750, 0],
    ]);
  });

  it('a technical improvement: accelerated from twice the increased residual price over its coefficient', () => {
    // 90 000 in group 1; 30 000 improvement in the second year: 2 × 90 000 / 3, then 2 × 30 000 / (3 − 1)
    expect(figures(plan({ group: 1, cost: '90000', method: 'accelerated', improvements: [{ year: 2025, amount: '30000' }] }))).toEqual([
      [2024, 30000, 60000],
      [2025, 60000, 30000],
      [2026, 30000, 0],
    ]);
  });

  it('an improvement in the first year raises the input price itself', () => {
    expect(plan({ cost: '450000', improvements: [{ year: 2024, amount: '50000' }] })).toEqual(plan({}));
  });

  it('an interrupted year claims nothing and the plan goes on after it', () => {
    expect(plan({ group: 1, cost: '90000', interruptedYears: [2025] }).map((r) => [r.year, Number(r.depreciation), r.kind])).toEqual([
      [2024, 18000, 'depreciation'],
      [2025, 0, 'interrupted'],
      [2026, 36000, 'depreciation'],
      [2027, 36000, 'depreciation'],
    ]);
    // interrupted from the start: the first year of depreciation is the first year claimed
    expect(figures(plan({ group: 1, cost: '90000', interruptedYears: [2024] })).slice(0, 2)).toEqual([
      [2024, 0, 90000],
      [2025, 18000, 72000],
    ]);
  });

  it('the year of disposal claims half of its depreciation (§26(8)); the rest is the tax residual price', () => {
    const rows = plan({ disposalYear: 2026 });
    expect(figures(rows)).toEqual([
      [2024, 55000, 445000],
      [2025, 111250, 333750],
      [2026, 55625, 278125],
    ]);
    expect(rows.at(-1)!.kind).toBe('disposal');
    // disposed after the plan ended: nothing more
    expect(plan({ disposalYear: 2030 })).toEqual(plan({}));
  });
});

describe('accounting depreciation (monthly, straight-line)', () => {
  it('from the month after use, to the cent, the last month absorbing the rounding', () => {
    const rows = accountingPlan({ cost: '100000', dateInUse: '2026-01-15', months: 36, improvements: [], disposalDate: null });
    expect(rows).toHaveLength(36);
    expect(rows[0]).toEqual({ period: '2026-02', depreciation: '2777.78', accumulated: '2777.78', residual: '97222.22' });
    expect(rows.at(-1)).toEqual({ period: '2029-01', depreciation: '2777.70', accumulated: '100000.00', residual: '0.00' });
    expect(rows.reduce((s, r) => s.plus(r.depreciation), new Dec(0)).toFixed(2)).toBe('100000.00');
  });

  it('an improvement is spread over the months left; a disposal ends the plan before its month', () => {
    const rows = accountingPlan({ cost: '12000', dateInUse: '2026-01-10', months: 12, improvements: [{ date: '2026-06-20', amount: '3500' }], disposalDate: null });
    expect(rows.map((r) => Number(r.depreciation))).toEqual([1000, 1000, 1000, 1000, 1000, 1500, 1500, 1500, 1500, 1500, 1500, 1500]);
    expect(rows.at(-1)!.accumulated).toBe('15500.00');
    const disposed = accountingPlan({ cost: '12000', dateInUse: '2026-01-10', months: 12, improvements: [], disposalDate: '2026-09-05' });
    expect(disposed.map((r) => r.period)).toEqual(['2026-02', '2026-03', '2026-04', '2026-05', '2026-06', '2026-07', '2026-08']);
    expect(disposed.at(-1)!.residual).toBe('5000.00');
  });

  it('refuses an improvement before use or after the plan ends', () => {
    expect(() => accountingPlan({ cost: '12000', dateInUse: '2026-01-10', months: 12, improvements: [{ date: '2025-12-31', amount: '1' }], disposalDate: null })).toThrow(AccountingPlanRefusal);
    expect(() => accountingPlan({ cost: '12000', dateInUse: '2026-01-10', months: 12, improvements: [{ date: '2027-01-01', amount: '1' }], disposalDate: null })).toThrow(/plan ends/);
  });

  it('counts months across years', () => {
    expect(addMonths('2026-11', 1)).toBe('2026-12');
    expect(addMonths('2026-12', 1)).toBe('2027-01');
    expect(addMonths('2026-01', 600)).toBe('2076-01');
  });
});
