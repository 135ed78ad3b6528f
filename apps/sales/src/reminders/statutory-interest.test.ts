import { describe, expect, it } from 'vitest';
import { SHIPPED_REPO_RATES, fixingDayFor, lateInterest, parseRepoFixings, repoRateOn, statutoryRate } from './statutory-interest.js';

describe('Czech statutory late-payment interest (NV 351/2013: repo rate on the last day of the preceding half-year + 8 pp)', () => {
  it('gives the published rates of each half-year', () => {
    // the rates the Czech government and the CNB publish for delays beginning in each half-year
    const published: Array<[string, string]> = [
      ['2021-01-15', '8.25'],
      ['2021-07-01', '8.5'],
      ['2022-01-01', '11.75'],
      ['2022-07-01', '15'],
      ['2023-01-01', '15'],
      ['2023-07-01', '15'],
      ['2024-01-01', '14.75'],
      ['2024-07-01', '12.75'],
      ['2025-01-01', '12'],
      ['2025-07-01', '11.5'],
      ['2025-12-31', '11.5'],
      // 3.50 % on 31 December 2025 (unchanged since 9 May 2025; the board held it on 18 December 2025)
      ['2026-01-01', '11.5'],
      ['2026-03-02', '11.5'],
      ['2026-06-30', '11.5'],
    ];
    for (const [day, rate] of published) expect(statutoryRate(day), day).toBe(rate);
  });

  it('fixes the rate on the last day before the half-year, and does not guess past what it knows', () => {
    expect(fixingDayFor('2025-01-01')).toBe('2024-12-31');
    expect(fixingDayFor('2025-06-30')).toBe('2024-12-31');
    expect(fixingDayFor('2025-07-01')).toBe('2025-06-30');
    // a change effective on 28 June 2024 counts for the second half of 2024
    expect(repoRateOn('2024-06-27')).toBe('5.25');
    expect(repoRateOn('2024-06-30')).toBe('4.75');
    // the second half of 2026 needs the rate of 30 June 2026, which the shipped history does not reach
    expect(statutoryRate('2026-07-01')).toBeNull();
    expect(statutoryRate('2026-07-01', parseRepoFixings('2026-06-30=3.25'))).toBe('11.25');
    // an organisation's history (settings) that reaches it: the last change before the day
    const imported = { changes: [...SHIPPED_REPO_RATES.changes, { valid_from: '2026-05-07', rate: '3.25' }], known_through: '2026-12-02' };
    expect(statutoryRate('2026-07-01', undefined, imported)).toBe('11.25');
    // 31 December 2026 is past what it knows (2 December 2026)
    expect(statutoryRate('2027-01-01', undefined, imported)).toBeNull();
    // the operator's word for a fixing day wins
    expect(statutoryRate('2026-07-01', parseRepoFixings('2026-06-30=4'), imported)).toBe('12');
    expect(repoRateOn('2010-01-01')).toBeNull();
  });

  it('reads operator fixings only for the last day of June or December', () => {
    expect([...parseRepoFixings(' 2025-12-31=3.5 , 2026-06-30=3.25')]).toEqual([
      ['2025-12-31', '3.5'],
      ['2026-06-30', '3.25'],
    ]);
    expect(() => parseRepoFixings('2025-12-30=3.5')).toThrow(/YYYY-12-31/);
    expect(() => parseRepoFixings('2025-12-31=abc')).toThrow();
    expect(parseRepoFixings(undefined).size).toBe(0);
  });

  it('counts each day from the day after the due date to the day of the run, on a 365-day year, half up', () => {
    // 10 000 CZK due 31 January 2025, reminded 2 March 2025: 30 days at 12 %
    expect(lateInterest('10000', '2025-01-31', '2025-03-02', 2)).toEqual({ days: 30, rate: '12', interest: '98.63' });
    // a delay begun in June 2024 keeps the first half-year's 14.75 % (6.75 on 31 December 2023 + 8) into July
    expect(lateInterest('1000.00', '2024-06-20', '2024-07-20', 2)).toEqual({ days: 30, rate: '14.75', interest: '12.12' });
    expect(lateInterest('1000', '2025-03-02', '2025-03-02', 2)).toEqual({ days: 0, rate: null, interest: '0' });
    // the invoice due 1 March 2026: 11.5 % (was null when the table ended in June 2025)
    expect(lateInterest('10000', '2026-03-01', '2026-03-31', 2)).toEqual({ days: 30, rate: '11.5', interest: '94.52' });
    expect(lateInterest('1000', '2026-06-30', '2026-07-31', 0)).toEqual({ days: 31, rate: null, interest: null });
    expect(lateInterest('99999999999.99', '2025-01-31', '2025-03-02', 2).interest).toBe('986301369.86');
  });
});
