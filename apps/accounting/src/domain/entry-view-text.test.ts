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
});
