import { describe, expect, it } from 'vitest';
import { formatNumber } from '@ledgerline/documents';
import { numberPattern } from './numbering.js';

/** What the insert statement computes in SQL: prefix || lpad(counter, max(width, digits), '0') || suffix. */
const sqlFormat = (p: ReturnType<typeof numberPattern>, counter: number) => p.prefix + String(counter).padStart(Math.max(p.width, String(counter).length), '0') + p.suffix;

describe('numberPattern', () => {
  it('splits a mask around its counter for the document date', () => {
    expect(numberPattern({ id: 1, mask: 'CN{YYYY}{#####}' }, '2026-11-23')).toEqual({ seriesId: 1, period: '2026', prefix: 'CN2026', width: 5, suffix: '' });
    expect(numberPattern({ id: 2, mask: '{YY}{MM}-{###}/{DD}' }, '2027-01-05')).toEqual({ seriesId: 2, period: '2027-01', prefix: '2701-', width: 3, suffix: '/05' });
    expect(numberPattern({ id: 3, mask: 'N{#}' }, '2027-01-05')).toMatchObject({ period: '', prefix: 'N', width: 1, suffix: '' });
  });

  it('formats exactly as formatNumber, also when the counter is wider than the mask', () => {
    for (const mask of ['INV{YYYY}{#####}', '{YY}{MM}-{###}/{DD}', 'N{#}', 'A{##}B{YYYY}']) {
      for (const counter of [1, 9, 42, 99, 100, 12345, 1234567]) {
        expect(sqlFormat(numberPattern({ id: 1, mask }, '2026-02-28'), counter)).toBe(formatNumber(mask, '2026-02-28', counter));
      }
    }
  });
});
