import { describe, expect, it } from 'vitest';
import { FilledTextTooLongError, fillPlaceholders, longestFilled } from '../placeholders.js';
import { REMINDER_LIMITS, invoiceList } from './reminders.js';

describe('what a reminder text may grow to (issue 71)', () => {
  it('names every invoice that fits, then how many more', () => {
    expect(invoiceList(['A1', 'A2'])).toBe('A1, A2');
    const many = Array.from({ length: 2_400 }, (_, i) => `INV2026${String(i).padStart(5, '0')}`);
    const text = invoiceList(many);
    expect(text.length).toBeLessThanOrEqual(REMINDER_LIMITS.values.invoices);
    expect(text).toMatch(/^INV202600000, INV202600001, .* and \d+ more$/);
    const shown = text.split(' and ')[0].split(', ').length;
    expect(Number(/and (\d+) more$/.exec(text)![1]) + shown).toBe(2_400);
    // one number longer than the bound still says how many there are
    expect(invoiceList(['x'.repeat(600), 'y'], 50)).toBe(' and 2 more');
  });

  it('counts a filled text before it builds it, and refuses past its bound', () => {
    const values = { invoices: 'x'.repeat(500) };
    expect(fillPlaceholders('{{ invoices }}!', values, 501)).toBe(`${'x'.repeat(500)}!`);
    expect(() => fillPlaceholders('{{ invoices }}{{invoices}}', values, 999)).toThrow(FilledTextTooLongError);
    // 80 000 copies are refused before a byte of them is built
    expect(() => fillPlaceholders('{{ invoices }}'.repeat(80_000), values)).toThrow(/longer than 200000/);
    expect(fillPlaceholders(null, values)).toBeNull();
  });

  it('bounds a template by the longest each placeholder is filled with', () => {
    expect(longestFilled('Dear {{ customer }}', REMINDER_LIMITS.values)).toBe('Dear '.length + 300);
    expect(longestFilled('{{ invoices }} {{ unknown }}', REMINDER_LIMITS.values)).toBe(500 + ' {{ unknown }}'.length);
  });
});
