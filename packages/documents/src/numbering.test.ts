import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InvalidMaskError, NumberingError } from './errors.js';
import { formatNumber, isValidMask, numberPattern, parseMask, seriesPeriodKey, type NumberPattern } from './numbering.js';

describe('parseMask', () => {
  it('splits literals and tokens', () => {
    expect(parseMask('INV{YYYY}{#####}')).toEqual({
      mask: 'INV{YYYY}{#####}',
      parts: [{ kind: 'literal', text: 'INV' }, { kind: 'year4' }, { kind: 'counter', width: 5 }],
      counterWidth: 5,
      period: 'year',
    });
    expect(parseMask('CN{YY}{MM}-{####}').parts).toEqual([
      { kind: 'literal', text: 'CN' },
      { kind: 'year2' },
      { kind: 'month' },
      { kind: 'literal', text: '-' },
      { kind: 'counter', width: 4 },
    ]);
    expect(parseMask('{YYYY}/{###}').period).toBe('year');
    expect(parseMask('CN{YY}{MM}-{####}').period).toBe('month');
    expect(parseMask('{#}').counterWidth).toBe(1);
    expect(parseMask('{############}').counterWidth).toBe(12);
    expect(parseMask('X{DD}{#}').period).toBe('none');
    expect(parseMask('{MM}-{##}').period).toBe('none');
  });

  it.each([
    ['', 'empty'],
    ['INV', 'needs a counter'],
    ['INV{YYYY}', 'needs a counter'],
    ['{##}{###}', 'only one counter'],
    ['{#############}', '1 to 12'],
    ['INV{yyyy}{###}', 'unknown token {yyyy}'],
    ['INV{Y}{###}', 'unknown token {Y}'],
    ['INV{}{###}', 'unknown token {}'],
    ['INV{#a}', 'unknown token'],
    ['INV{YYYY{###}', 'not closed'],
    ['INV{###', 'not closed'],
    ['INV}{###}', 'unexpected "}"'],
    ['INV\n{###}', 'control characters'],
    [`${'X'.repeat(60)}{###}`, 'at most 64'],
  ])('refuses %j (%s)', (mask, reason) => {
    expect(() => parseMask(mask)).toThrow(InvalidMaskError);
    expect(() => parseMask(mask)).toThrow(reason);
    expect(isValidMask(mask)).toBe(false);
    try {
      parseMask(mask);
    } catch (e) {
      expect(e).toMatchObject({ status: 400, code: 'invalid_numbering_mask', mask, errors: [{ path: 'mask' }] });
    }
  });

  it('accepts exactly 64 characters and unicode literals', () => {
    expect(isValidMask(`${'X'.repeat(59)}{###}`)).toBe(true);
    expect(isValidMask('Faktura-č.{YYYY}/{####}')).toBe(true);
    expect(isValidMask(42)).toBe(false);
  });
});

describe('formatNumber', () => {
  it('fills the date tokens and the zero-padded counter', () => {
    expect(formatNumber('INV{YYYY}{#####}', '2026-03-05', 42)).toBe('INV202600042');
    expect(formatNumber('CN{YY}{MM}-{####}', '2026-11-30', 7)).toBe('CN2611-0007');
    expect(formatNumber('{YYYY}/{###}', '2026-01-01', 1)).toBe('2026/001');
    expect(formatNumber('{YYYY}{MM}{DD}-{##}', '2026-02-09', 3)).toBe('20260209-03');
    expect(formatNumber('A{YY}{#}', '2009-12-31', 0)).toBe('A090');
  });

  it('writes a counter wider than its width in full', () => {
    expect(formatNumber('{YYYY}/{###}', '2026-01-01', 1234)).toBe('2026/1234');
    expect(formatNumber('{#}', '2026-01-01', 10n)).toBe('10');
    expect(formatNumber('{##}', '2026-01-01', '0000123456789012345678')).toBe('123456789012345678');
  });

  it('takes Date values in UTC and date-time strings by their date', () => {
    expect(formatNumber('{YYYY}-{MM}-{DD}/{#}', new Date(Date.UTC(2026, 11, 31, 23, 30)), 1)).toBe('2026-12-31/1');
    expect(formatNumber('{YYYY}-{MM}-{DD}/{#}', '2026-12-31T23:30:00-05:00', 1)).toBe('2026-12-31/1');
  });

  it('accepts a parsed mask', () => {
    const parsed = parseMask('INV{YYYY}{#####}');
    expect(formatNumber(parsed, '2026-03-05', 1)).toBe('INV202600001');
  });

  it('refuses bad counters and dates', () => {
    for (const counter of [-1, 1.5, Number.NaN, '12a', '', -1n]) {
      expect(() => formatNumber('{###}', '2026-01-01', counter)).toThrow(NumberingError);
    }
    for (const date of ['2026-02-30', '2026-13-01', '26-01-01', 'today', new Date('x')]) {
      expect(() => formatNumber('{###}', date, 1)).toThrow(NumberingError);
    }
    try {
      formatNumber('{###}', '2026-02-30', 1);
    } catch (e) {
      expect(e).toMatchObject({ status: 400, code: 'invalid_date' });
    }
  });

  it('refuses an invalid mask', () => {
    expect(() => formatNumber('{YYYY}', '2026-01-01', 1)).toThrow(InvalidMaskError);
  });
});

describe('seriesPeriodKey', () => {
  it('restarts yearly with a year, monthly with year and month, never otherwise', () => {
    expect(seriesPeriodKey('INV{YYYY}{#####}', '2026-11-05')).toBe('2026');
    expect(seriesPeriodKey('INV{YY}{#####}', '2026-11-05')).toBe('2026');
    expect(seriesPeriodKey('CN{YY}{MM}-{####}', '2026-11-05')).toBe('2026-11');
    expect(seriesPeriodKey('CN{MM}{YYYY}-{####}', '2026-01-05')).toBe('2026-01');
    expect(seriesPeriodKey('{YYYY}{MM}{DD}{###}', '2026-01-05')).toBe('2026-01');
    expect(seriesPeriodKey('INV{#####}', '2026-11-05')).toBe('');
    expect(seriesPeriodKey('INV{MM}{#####}', '2026-11-05')).toBe('');
    expect(seriesPeriodKey('INV{DD}{#####}', '2026-11-05')).toBe('');
  });
});

describe('numbering properties', () => {
  const literal = fc.stringMatching(/^[A-Za-z0-9\-/._ ]{0,6}$/);
  const token = fc.constantFrom('{YYYY}', '{YY}', '{MM}', '{DD}');
  const mask = fc
    .tuple(fc.array(fc.oneof(literal, token), { maxLength: 4 }), fc.integer({ min: 1, max: 12 }), fc.array(fc.oneof(literal, token), { maxLength: 3 }))
    .map(([before, width, after]) => [...before, `{${'#'.repeat(width)}}`, ...after].join(''))
    .filter((m) => m.length <= 64);
  const date = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true });

  it('every generated mask parses, and numbers of one period are distinct and ordered by counter', () => {
    fc.assert(
      fc.property(mask, date, fc.integer({ min: 1, max: 10_000 }), (m, d, n) => {
        const parsed = parseMask(m);
        const a = formatNumber(parsed, d, n);
        const b = formatNumber(parsed, d, n + 1);
        expect(a).not.toBe(b);
        expect(a).toContain(String(n).padStart(parsed.counterWidth, '0'));
        expect(seriesPeriodKey(parsed, d)).toMatch(/^(|\d{4}|\d{4}-\d{2})$/);
      }),
    );
  });

  it('counters that restart never repeat a number across periods', () => {
    fc.assert(
      fc.property(mask, date, date, fc.integer({ min: 1, max: 999 }), (m, d1, d2, n) => {
        const parsed = parseMask(m);
        // Different period keys never produce equal numbers for equal counters (no duplicates across restarts).
        if (seriesPeriodKey(parsed, d1) !== seriesPeriodKey(parsed, d2) && parsed.period !== 'none') {
          expect(formatNumber(parsed, d1, n)).not.toBe(formatNumber(parsed, d2, n));
        }
      }),
    );
  });

  it('a counter of any size is written in full, padded to the width', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.bigInt({ min: 0n, max: 10n ** 20n }), (width, n) => {
        const out = formatNumber(`{${'#'.repeat(width)}}`, '2026-01-01', n);
        expect(BigInt(out)).toBe(n);
        expect(out.length).toBe(Math.max(width, n.toString().length));
      }),
    );
  });
});

/** What the insert statement computes in SQL: prefix || lpad(counter, max(width, digits), '0') || suffix. */
const sqlFormat = (p: NumberPattern, counter: number) => p.prefix + String(counter).padStart(Math.max(p.width, String(counter).length), '0') + p.suffix;

describe('numberPattern', () => {
  it('splits a mask around its counter for the document date', () => {
    expect(numberPattern('CN{YYYY}{#####}', '2026-11-23')).toEqual({ period: '2026', prefix: 'CN2026', width: 5, suffix: '' });
    expect(numberPattern('{YY}{MM}-{###}/{DD}', '2027-01-05')).toEqual({ period: '2027-01', prefix: '2701-', width: 3, suffix: '/05' });
    expect(numberPattern('N{#}', '2027-01-05')).toMatchObject({ period: '', prefix: 'N', width: 1, suffix: '' });
  });

  it('formats exactly as formatNumber, also when the counter is wider than the mask', () => {
    for (const mask of ['INV{YYYY}{#####}', '{YY}{MM}-{###}/{DD}', 'N{#}', 'A{##}B{YYYY}', 'BILL{YYYY}{#####}', 'VC{YYYY}{#####}']) {
      for (const counter of [1, 9, 42, 99, 100, 12345, 1234567]) {
        expect(sqlFormat(numberPattern(mask, '2026-02-28'), counter)).toBe(formatNumber(mask, '2026-02-28', counter));
      }
    }
  });
});
