import { describe, expect, it } from 'vitest';
import { ConflictError } from '../errors.js';
import { lockDateOf, postingDate, refuseClosedPeriod } from './closed-period.js';

describe('posting dates (one rule for the services and the ledger)', () => {
  it('posts a document on its taxable date, else its issue date', () => {
    expect(postingDate.document({ date_issued: '2026-11-03', date_taxable: '2026-10-30' })).toEqual({ field: 'date_taxable', date: '2026-10-30' });
    expect(postingDate.document({ date_issued: '2026-10-30', date_taxable: '2026-11-01' })).toEqual({ field: 'date_taxable', date: '2026-11-01' });
    expect(postingDate.document({ date_issued: '2026-10-30', date_taxable: null })).toEqual({ field: 'date_issued', date: '2026-10-30' });
    expect(postingDate.document({ date_issued: '2026-10-30' })).toEqual({ field: 'date_issued', date: '2026-10-30' });
  });

  it('posts a bank transaction on its accounting date, else its transaction date', () => {
    expect(postingDate.bankTransaction({ date_transaction: '2026-10-30', date_accounting: '2026-11-02' })).toEqual({ field: 'date_accounting', date: '2026-11-02' });
    expect(postingDate.bankTransaction({ date_transaction: '2026-10-30', date_accounting: null })).toEqual({ field: 'date_transaction', date: '2026-10-30' });
  });

  it('posts a payout on its issue date, else its lines latest date, else the day it is recorded', () => {
    const lines = [{ date_transaction: '2026-10-02' }, { date_transaction: '2026-10-01', date_accounting: '2026-10-09' }, { date_transaction: null }, { date_transaction: '2026-10-05' }];
    expect(postingDate.payout({ date_issued: '2026-10-20', lines }, '2026-11-27')).toEqual({ field: 'date_issued', date: '2026-10-20' });
    expect(postingDate.payout({ lines }, '2026-11-27')).toEqual({ field: 'lines[1].date_accounting', date: '2026-10-09' });
    expect(postingDate.payout({ date_issued: null, lines: [{}] }, '2026-11-27')).toEqual({ field: 'date_issued', date: '2026-11-27' });
    expect(postingDate.payout({ lines: null }, undefined)).toBeNull();
  });
});

/** The error `fn` throws (the test fails when it throws none). */
function refusal(fn: () => void): ConflictError {
  try {
    fn();
  } catch (e) {
    return e as ConflictError;
  }
  throw new Error('expected a refusal');
}

describe('the lock date', () => {
  it('is read from the replicated profile only when it is a calendar day', () => {
    expect(lockDateOf({ lock_date: '2026-10-31' })).toBe('2026-10-31');
    for (const v of [null, undefined, '', '2026-10', 20261031, '2026-10-31T00:00:00Z']) expect(lockDateOf({ lock_date: v })).toBeNull();
    expect(lockDateOf(null)).toBeNull();
  });

  it('refuses a day on or before it with 409 period_locked naming each such field, and lets later days and open books through', () => {
    const days = [
      { field: 'date_issued', date: '2026-10-31' },
      { field: 'lines[0].date_transaction', date: '2025-01-01' },
      { field: 'date_due', date: '2026-11-01' },
    ];
    const refused = refusal(() => refuseClosedPeriod('2026-10-31', 'the invoice', days));
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused).toMatchObject({
      status: 409,
      code: 'period_locked',
      message: expect.stringContaining('closed through 2026-10-31: the invoice would post on 2026-10-31'),
      errors: [
        { path: 'date_issued', code: 'period_locked', message: '2026-10-31 is on or before the lock date 2026-10-31' },
        { path: 'lines[0].date_transaction', code: 'period_locked', message: '2025-01-01 is on or before the lock date 2026-10-31' },
      ],
    });
    expect(() => refuseClosedPeriod('2026-10-31', 'the invoice', [{ field: 'date_issued', date: '2026-11-01' }])).not.toThrow();
    expect(() => refuseClosedPeriod(null, 'the invoice', days)).not.toThrow();
  });

  it('names at most a hundred entries of a long statement', () => {
    const entries = Array.from({ length: 250 }, (_, i) => ({ field: `statement 1 entry ${i + 1}`, date: '2026-10-01' }));
    const refused = refusal(() => refuseClosedPeriod('2026-10-31', 'statement 1', entries));
    expect(refused.errors).toHaveLength(100);
    expect(refused.errors?.[99].path).toBe('statement 1 entry 100');
  });
});
