import { Dec } from '@ledgerline/core/money';
import { SECTION_32_1, straightLineRates, type FirstYearIncrease, type TaxGroup } from './tax-depreciation-tables.js';

/*
 * An asset's tax depreciation plan under the Income Tax Act, year by year (tax years are calendar
 * years), from the tables of tax-depreciation-tables.ts:
 * - §31 straight-line: the first year's rate of the input price, then the further years' rate;
 *   after a technical improvement (§33) the rate for an increased input price of the input price
 *   raised by it, until the residual price is spent.
 * - §32 accelerated: the input price over the first year's coefficient, then twice the residual
 *   price over (the further years' coefficient − years already depreciated); after a technical
 *   improvement twice the increased residual price over the coefficient for it, then over it less
 *   the years depreciated since.
 * - Every year's depreciation is rounded up to whole crowns (§31(1), §32(1) "zaokrouhlují na celé
 *   koruny nahoru") and never exceeds the residual price.
 * - An improvement in the first year raises the input price itself.
 * - A year the taxpayer interrupts (§26(8)) claims nothing and counts as no year of depreciation:
 *   the plan goes on the year after where it stopped.
 * - In the year of disposal only half of the year's depreciation may be claimed (§26(8)); what is
 *   left is the tax residual price, an expense at the sale or scrapping (§24(2)(b)).
 */

export type TaxMethod = 'straight_line' | 'accelerated';

export interface TaxPlanInput {
  cost: string;
  /** The year the asset was put into use: its first tax year. */
  firstYear: number;
  group: TaxGroup;
  method: TaxMethod;
  firstYearIncrease: FirstYearIncrease;
  improvements: Array<{ year: number; amount: string }>;
  interruptedYears: number[];
  disposalYear: number | null;
}

export interface TaxPlanRow {
  year: number;
  depreciation: string;
  residual: string;
  /** What the year is: depreciated, interrupted by the taxpayer, the year of disposal (half). */
  kind: 'depreciation' | 'interrupted' | 'disposal';
}

export class TaxPlanRefusal extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/** Longer than any group's period with every interruption the request may name: a bound, not a rule. */
const MAX_YEARS = 200;

const crownsUp = (d: Dec) => d.toDecimalPlaces(0, Dec.ROUND_CEIL);

export function taxPlan(input: TaxPlanInput): TaxPlanRow[] {
  const rates = straightLineRates(input.group, input.firstYearIncrease);
  if (input.method === 'straight_line' && !rates) {
    throw new TaxPlanRefusal(`§31(1) gives increased first-year rates to groups 1 to 3 only, not to group ${input.group}`, 'tax_depreciation.first_year_increase');
  }
  if (input.method === 'accelerated' && input.firstYearIncrease !== 0) {
    throw new TaxPlanRefusal('the increased first-year rates of §31(1)(b) to (d) are rates of straight-line depreciation', 'tax_depreciation.first_year_increase');
  }
  const improvementsIn = (year: number) => input.improvements.filter((i) => i.year === year).reduce((s, i) => s.plus(i.amount), new Dec(0));
  let inputPrice = new Dec(input.cost).plus(improvementsIn(input.firstYear));
  let residual = inputPrice;
  let years = 0;
  let increased = false;
  let yearsSinceIncrease = 0;
  const interrupted = new Set(input.interruptedYears);
  const rows: TaxPlanRow[] = [];
  for (let year = input.firstYear; residual.gt(0) && year < input.firstYear + MAX_YEARS; year++) {
    if (input.disposalYear !== null && year > input.disposalYear) break;
    const improvement = year > input.firstYear ? improvementsIn(year) : new Dec(0);
    if (improvement.gt(0)) {
      inputPrice = inputPrice.plus(improvement);
      residual = residual.plus(improvement);
      increased = true;
      yearsSinceIncrease = 0;
    }
    if (interrupted.has(year)) {
      rows.push({ year, depreciation: '0.00', residual: residual.toFixed(2), kind: 'interrupted' });
      continue;
    }
    let full: Dec;
    if (input.method === 'straight_line') {
      const rate = increased ? rates!.increased : years === 0 ? rates!.first : rates!.further;
      full = inputPrice.times(rate).div(100);
    } else {
      const k = SECTION_32_1[input.group];
      const divisor = increased ? (yearsSinceIncrease === 0 ? k.increased : k.increased - yearsSinceIncrease) : years === 0 ? k.first : k.further - years;
      full = divisor <= 0 ? residual : (increased || years > 0 ? residual.times(2) : inputPrice).div(divisor);
    }
    let depreciation = Dec.min(crownsUp(full), residual);
    const disposal = input.disposalYear === year;
    if (disposal) depreciation = Dec.min(crownsUp(depreciation.div(2)), residual);
    residual = residual.minus(depreciation);
    years++;
    if (increased) yearsSinceIncrease++;
    rows.push({ year, depreciation: depreciation.toFixed(2), residual: residual.toFixed(2), kind: disposal ? 'disposal' : 'depreciation' });
    if (disposal) break;
  }
  return rows;
}
