import { describe, expect, it } from 'vitest';
import { AppError } from '@ledgerline/service-kit';
import { refuseLockDateInClosedYear } from './closed-years.js';

const refusal = (requested: string | null, latest: number | null) => {
  try {
    refuseLockDateInClosedYear(requested, latest);
    return null;
  } catch (e) {
    return e as AppError;
  }
};

describe('the lock date and the closed years (decision 173)', () => {
  it('lets any lock date through while no year is closed', () => {
    for (const d of [null, '1999-01-01', '2025-12-30', '2026-11-27']) expect(refusal(d, null)).toBeNull();
  });

  it('keeps the lock date on or after the last day of the latest closed year', () => {
    expect(refusal('2025-12-31', 2025)).toBeNull();
    expect(refusal('2026-01-01', 2025)).toBeNull();
    for (const d of ['2025-12-30', '2025-01-01', '2024-12-31', '0001-01-01']) {
      const e = refusal(d, 2025);
      expect(e).toBeInstanceOf(AppError);
      expect({ status: e!.status, code: e!.code, paths: e!.errors?.map((f) => f.path) }).toEqual({ status: 409, code: 'year_closed', paths: ['lock_date'] });
      expect(e!.message).toContain('/v1/accounting/year-end-closings/2025/reopen');
    }
  });

  it('refuses clearing the lock date while a year is closed', () => {
    expect(refusal(null, 2024)?.code).toBe('year_closed');
  });
});
