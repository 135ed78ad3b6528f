/*
 * The tables of the Czech Income Tax Act (zákon č. 586/1992 Sb., o daních z příjmů) that tax
 * depreciation of tangible assets is computed from, as the law states them (the wording in force
 * since 2009; depreciation periods of §30: 3, 5, 10, 20, 30 and 50 years). Read by
 * tax-depreciation.ts; nothing else holds a rate.
 */

export type TaxGroup = 1 | 2 | 3 | 4 | 5 | 6;
export type FirstYearIncrease = 0 | 10 | 15 | 20;

/** §31(1): maximum annual rates in % of the input price — first year, further years, further years of an increased input price. */
export interface StraightLineRates {
  first: string;
  further: string;
  increased: string;
}

/** §31(1)(a): the rates of an asset not depreciated under (b) to (d). */
const SECTION_31_1_A: Record<TaxGroup, StraightLineRates> = {
  1: { first: '20', further: '40', increased: '33.3' },
  2: { first: '11', further: '22.25', increased: '20' },
  3: { first: '5.5', further: '10.5', increased: '10' },
  4: { first: '2.15', further: '5.15', increased: '5.0' },
  5: { first: '1.4', further: '3.4', increased: '3.4' },
  6: { first: '1.02', further: '2.02', increased: '2.0' },
};

/**
 * §31(1)(b) to (d): the rates when the first year's depreciation is increased by 20, 15 or 10 % of
 * the input price (groups 1 to 3 only; who may use which increase: §31(2) to (4)).
 */
const SECTION_31_1_B_TO_D: Record<Exclude<FirstYearIncrease, 0>, Partial<Record<TaxGroup, StraightLineRates>>> = {
  20: {
    1: { first: '40', further: '30', increased: '33.3' },
    2: { first: '31', further: '17.25', increased: '20' },
    3: { first: '24.4', further: '8.4', increased: '10' },
  },
  15: {
    1: { first: '35', further: '32.5', increased: '33.3' },
    2: { first: '26', further: '18.5', increased: '20' },
    3: { first: '19', further: '9', increased: '10' },
  },
  10: {
    1: { first: '30', further: '35', increased: '33.3' },
    2: { first: '21', further: '19.75', increased: '20' },
    3: { first: '15.4', further: '9.4', increased: '10' },
  },
};

/** The straight-line rates of a group and first-year increase; null when the law gives none (an increase for groups 4 to 6). */
export function straightLineRates(group: TaxGroup, increase: FirstYearIncrease): StraightLineRates | null {
  return increase === 0 ? SECTION_31_1_A[group] : (SECTION_31_1_B_TO_D[increase][group] ?? null);
}

/** §32(1): coefficients of accelerated depreciation — first year, further years, an increased residual price. */
export interface AcceleratedCoefficients {
  first: number;
  further: number;
  increased: number;
}

export const SECTION_32_1: Record<TaxGroup, AcceleratedCoefficients> = {
  1: { first: 3, further: 4, increased: 3 },
  2: { first: 5, further: 6, increased: 5 },
  3: { first: 10, further: 11, increased: 10 },
  4: { first: 20, further: 21, increased: 20 },
  5: { first: 30, further: 31, increased: 30 },
  6: { first: 50, further: 51, increased: 50 },
};

/** §30(1): the minimum depreciation period of each group, in years. */
export const SECTION_30_1_YEARS: Record<TaxGroup, number> = { 1: 3, 2: 5, 3: 10, 4: 20, 5: 30, 6: 50 };
