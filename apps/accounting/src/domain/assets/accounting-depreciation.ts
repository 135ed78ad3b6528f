import { Dec } from '@ledgerline/core/money';

/*
 * An asset's accounting depreciation plan (the books' own, decree 500/2002 §56 and ČÚS 013: the
 * entity's depreciation plan, here straight-line over a number of months): one row per month from
 * the month after the asset was put into use, each the cost still to depreciate over the months
 * still to come, to the cent (half up) and the same every month, the last month absorbing the rounding so that the months
 * together are the cost. A technical improvement raises what is left to depreciate from the month
 * after it over the months still to come. A disposal ends the plan: its month and the months after
 * it are not depreciated (the residual goes to 541 with the disposal).
 */

export interface AccountingPlanInput {
  cost: string;
  /** YYYY-MM-DD: depreciation starts the month after. */
  dateInUse: string;
  months: number;
  improvements: Array<{ date: string; amount: string }>;
  disposalDate: string | null;
}

export interface AccountingPlanRow {
  period: string;
  depreciation: string;
  accumulated: string;
  residual: string;
}

export class AccountingPlanRefusal extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/** `YYYY-MM` of a day, and the period `n` months after a period. */
export const periodOf = (day: string) => day.slice(0, 7);
export function addMonths(period: string, n: number): string {
  const months = Number(period.slice(0, 4)) * 12 + Number(period.slice(5, 7)) - 1 + n;
  return `${String(Math.floor(months / 12)).padStart(4, '0')}-${String((months % 12) + 1).padStart(2, '0')}`;
}

export function accountingPlan(input: AccountingPlanInput): AccountingPlanRow[] {
  const first = addMonths(periodOf(input.dateInUse), 1);
  const last = addMonths(first, input.months - 1);
  input.improvements.forEach((imp, i) => {
    if (imp.date < input.dateInUse) throw new AccountingPlanRefusal(`an improvement of ${imp.date} comes before the asset was put into use (${input.dateInUse})`, `improvements[${i}].date`);
    if (periodOf(imp.date) >= last) {
      throw new AccountingPlanRefusal(`an improvement of ${imp.date} comes when the asset's plan ends (${last}): nothing is left to spread it over; record it as an asset of its own`, `improvements[${i}].date`);
    }
  });
  const disposal = input.disposalDate ? periodOf(input.disposalDate) : null;
  let total = new Dec(input.cost);
  let accumulated = new Dec(0);
  const rows: AccountingPlanRow[] = [];
  // the same amount every month, set again when an improvement raises what is left
  let monthly: Dec | null = null;
  for (let i = 0; i < input.months; i++) {
    const period = addMonths(first, i);
    if (disposal !== null && period >= disposal) break;
    const monthsLeft = input.months - i;
    // an improvement depreciates from the month after it
    for (const imp of input.improvements) {
      if (addMonths(periodOf(imp.date), 1) !== period) continue;
      total = total.plus(imp.amount);
      monthly = null;
    }
    monthly ??= total.minus(accumulated).div(monthsLeft).toDecimalPlaces(2, Dec.ROUND_HALF_UP);
    const depreciation = monthsLeft === 1 ? total.minus(accumulated) : monthly;
    accumulated = accumulated.plus(depreciation);
    rows.push({ period, depreciation: depreciation.toFixed(2), accumulated: accumulated.toFixed(2), residual: total.minus(accumulated).toFixed(2) });
  }
  return rows;
}
