import { describe, expect, it } from 'vitest';
import { copyEscape, copyLine, copyValue } from './copy-text.js';

/** What COPY's text format reads a field as (PostgreSQL docs, "COPY … Text Format"): the inverse the tests hold `copyValue` to. */
function unescape(field: string): string | null {
  if (field === '\\N') return null;
  return field.replace(/\\(.)/gsu, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', b: '\b', f: '\f', v: '\v' })[c] ?? c);
}

describe('COPY text (decision 256)', () => {
  it('escapes exactly the backslash, tab, newline and carriage return', () => {
    expect(copyEscape('plain 298.00 2031-01-17')).toBe('plain 298.00 2031-01-17');
    expect(copyEscape('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    // text that reads as null or the end of the data when unescaped stays text
    expect(copyEscape('\\N')).toBe('\\\\N');
    expect(copyEscape('\\.')).toBe('\\\\.');
    expect(copyEscape('')).toBe('');
    // nothing else is touched: quotes, commas, Unicode, other control characters
    for (const s of ['"quoted", \'single\'', 'Žluťoučký kůň 🐴', '\u0001\u001f\u007f', '\u2028\u2029']) expect(copyEscape(s)).toBe(s);
  });

  it('reads back as the value written, whatever the text', () => {
    const samples = ['', ' ', '\\', '\\\\', '\\N', '\\.', '\t', '\n', '\r\n', 'a\\tb', 'tab\tnew\nline\rback\\slash\\', 'Účet 311 🐴'];
    for (const s of samples) {
      const field = copyValue(s);
      expect(field).not.toMatch(/[\t\n\r]/); // a field never breaks its line
      expect(unescape(field)).toBe(s);
    }
  });

  it('writes each kind of value as its column reads it', () => {
    expect(copyValue(null)).toBe('\\N');
    expect(copyValue(undefined)).toBe('\\N');
    expect(copyValue(true)).toBe('t');
    expect(copyValue(false)).toBe('f');
    expect(copyValue(0)).toBe('0');
    expect(copyValue(-17)).toBe('-17');
    expect(copyValue(9_007_199_254_740_991)).toBe('9007199254740991');
    expect(copyValue(12n ** 20n)).toBe('3833759992447475122176');
    // decimals and days travel as their text already
    expect(copyValue('-0.01')).toBe('-0.01');
    expect(copyValue(new Date('2031-01-17T10:00:00.123Z'))).toBe('2031-01-17T10:00:00.123Z');
    // json and jsonb columns: the value's JSON text, escaped like any text
    expect(copyValue([])).toBe('[]');
    expect(copyValue({ name: 'A\tB', note: 'x\\y' })).toBe('{"name":"A\\\\tB","note":"x\\\\\\\\y"}');
    expect(JSON.parse(unescape(copyValue({ name: 'A\tB\n', note: 'x\\y' }))!)).toEqual({ name: 'A\tB\n', note: 'x\\y' });
  });

  it('refuses what no column can hold rather than writing something else', () => {
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) expect(() => copyValue(v)).toThrow(/no COPY text/);
    expect(() => copyValue(Symbol('x'))).toThrow(/no COPY text/);
    expect(() => copyValue(() => 1)).toThrow(/no COPY text/);
  });

  it('lays a row out in the columns’ order, null where the row has nothing, then the shared tail', () => {
    const row = { b: 'two', a: 1, c: null, extra: 'not a column' };
    expect(copyLine(['a', 'b', 'c', 'd'], row)).toBe('1\ttwo\t\\N\t\\N\n');
    expect(copyLine(['b'], row, '\t7\tuid')).toBe('two\t7\tuid\n');
    const line = copyLine(['x', 'y'], { x: 'a\tb', y: 'c\nd' });
    expect(line.slice(0, -1).split('\t').map(unescape)).toEqual(['a\tb', 'c\nd']);
  });
});
