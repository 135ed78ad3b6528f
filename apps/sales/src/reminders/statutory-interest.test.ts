import { describe, expect, it } from 'vitest';
import { fixingDayFor, lateInterest, parseRepoFixings, repoRateOn, statutoryRate } from './statutory-interest.js';

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
    expect(statutoryRate('2026-02-01')).toBeNull();
    expect(statutoryRate('2026-02-01', parseRepoFixings('2025-12-31=3.50'))).toBe('11.5');
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
    expect(lateInterest('1000', '2025-12-31', '2026-01-31', 0)).toEqual({ days: 31, rate: null, interest: null });
    expect(lateInterest('99999999999.99', '2025-01-31', '2025-03-02', 2).interest).toBe('986301369.86');
  });
});
