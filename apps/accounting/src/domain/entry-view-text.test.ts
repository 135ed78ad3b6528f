import { describe, expect, it } from 'vitest';
import { accountsMarked, filledView, slot, templateText } from './entry-view-text.js';

const values = { status: 'reversed', editedAt: '2026-12-05T20:00:00.000Z', accountJson: (n: string) => JSON.stringify({ number: n, name: `Account ${n}` }) };

describe('stored entry views (decision 260)', () => {
  it('marks the status, edit time and accounts, and fills them as they are at answer time', () => {
    const view = { id: 1, accounting_status: slot.status(), edited_at: slot.editedAt(), rows: [{ gl_account: slot.account('311') }, { gl_account: slot.account('343/01 "x"') }] };
    const text = templateText(view);
    expect(text).not.toContain(slot.status());
    expect([...accountsMarked(text, new Set())]).toEqual(['311', '343/01 "x"']);
    expect(JSON.parse(filledView(text, values))).toEqual({
      id: 1,
      accounting_status: 'reversed',
      edited_at: '2026-12-05T20:00:00.000Z',
      rows: [{ gl_account: { number: '311', name: 'Account 311' } }, { gl_account: { number: '343/01 "x"', name: 'Account 343/01 "x"' } }],
    });
    expect(JSON.parse(filledView(text, { ...values, status: 'posted', editedAt: null }))).toMatchObject({ accounting_status: 'posted', edited_at: null });
  });

  it('answers a text that looks like a mark or a placeholder as written', () => {
    for (const forged of ['\u0001s\u0001', '\u0001g311\u0001', '\u0001\u0001', '\u0001', '"\\\u0001e\u0001', 's\u0001', `${'\u0001'.repeat(3)}x`]) {
      const text = templateText({ description: forged, status: slot.status() });
      expect([...accountsMarked(text, new Set())]).toEqual([]);
      expect(JSON.parse(filledView(text, values))).toEqual({ description: forged, status: 'reversed' });
    }
  });

  it('refuses to answer a mark it does not know', () => {
    expect(() => filledView('{"a":\u0001zz\u0001}', values)).toThrow(/unknown mark/);
  });

  it('finds the marks a regular expression over the text finds, in any arrangement of U+0001', () => {
    // the reference: what the marks were found with before (one pass for accounts, one to fill)
    const MARKS = /\u0001([^\u0001]*)\u0001/g;
    const reference = (text: string) => ({
      accounts: [...text.matchAll(MARKS)].filter((m) => m[1].startsWith('g')).map((m) => decodeURIComponent(m[1].slice(1))),
      filled: text.replace(MARKS, (_, s: string) => (s === 's' ? '"reversed"' : s === 'e' ? '"2026-12-05T20:00:00.000Z"' : values.accountJson(decodeURIComponent(s.slice(1))))),
    });
    const pieces = ['\u0001', 's', 'e', 'g311', 'g343%2F01', 'x', '"', '{', ''];
    let seed = 79;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % pieces.length;
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: 1 + (i % 12) }, () => pieces[next()]).join('');
      const slots = [...text.matchAll(MARKS)].map((m) => m[1]);
      if (slots.some((s) => s !== 's' && s !== 'e' && !s.startsWith('g'))) {
        expect(() => filledView(text, values), JSON.stringify(text)).toThrow(/unknown mark/);
        continue;
      }
      expect([...accountsMarked(text, new Set())], JSON.stringify(text)).toEqual([...new Set(reference(text).accounts)]);
      expect(filledView(text, values), JSON.stringify(text)).toBe(reference(text).filled);
    }
  });
});
