import { describe, expect, it } from 'vitest';
import { JsonText } from '@ledgerline/service-kit';
import { accountOfSlot, accountSlots, marksOf, slot, splicedView, templateText, type MarkFills } from './entry-view-text.js';

const accountJson = (n: string) => JSON.stringify({ number: n, name: `Account ${n} – účet` });
const fills = (status: string, editedAt: string | null): MarkFills => ({
  status: Buffer.from(JSON.stringify(status)),
  editedAt: Buffer.from(JSON.stringify(editedAt)),
  account: (s) => Buffer.from(accountJson(accountOfSlot(s))),
});
const values = fills('reversed', '2026-12-05T20:00:00.000Z');

/** The view as a client receives it: its pieces written into the answer's bytes, and as one string. */
function answered(text: string, f: MarkFills = values): string {
  const json = JsonText.ofList('', [splicedView(marksOf(text), f)], '');
  const bytes = String(json.answerBody());
  expect(json.text).toBe(bytes);
  return bytes;
}
const accountsOf = (text: string) => [...accountSlots(marksOf(text), new Set())].map(accountOfSlot);

describe('stored entry views (decision 260)', () => {
  it('marks the status, edit time and accounts, and fills them as they are at answer time', () => {
    const view = { id: 1, note: 'Příliš žluťoučký kůň 🐎', accounting_status: slot.status(), edited_at: slot.editedAt(), rows: [{ gl_account: slot.account('311') }, { gl_account: slot.account('343/01 "x"') }] };
    const text = templateText(view);
    expect(text).not.toContain(slot.status());
    expect(accountsOf(text)).toEqual(['311', '343/01 "x"']);
    expect(JSON.parse(answered(text))).toEqual({
      id: 1,
      note: 'Příliš žluťoučký kůň 🐎',
      accounting_status: 'reversed',
      edited_at: '2026-12-05T20:00:00.000Z',
      rows: [{ gl_account: { number: '311', name: 'Account 311 – účet' } }, { gl_account: { number: '343/01 "x"', name: 'Account 343/01 "x" – účet' } }],
    });
    expect(JSON.parse(answered(text, fills('posted', null)))).toMatchObject({ accounting_status: 'posted', edited_at: null });
  });

  it('answers a text that looks like a mark or a placeholder as written', () => {
    for (const forged of ['\u0001s\u0001', '\u0001g311\u0001', '\u0001\u0001', '\u0001', '"\\\u0001e\u0001', 's\u0001', `${'\u0001'.repeat(3)}x`]) {
      const text = templateText({ description: forged, status: slot.status() });
      expect(accountsOf(text)).toEqual([]);
      expect(JSON.parse(answered(text))).toEqual({ description: forged, status: 'reversed' });
    }
  });

  it('refuses to answer a mark it does not know, or an account mark that is not ASCII', () => {
    expect(() => splicedView(marksOf('{"a":\u0001zz\u0001}'), values)).toThrow(/unknown mark/);
    expect(() => accountOfSlot('g31ž')).toThrow(/unknown mark/);
    expect(() => accountOfSlot('s')).toThrow(/unknown mark/);
  });

  it('finds the marks a regular expression over the text finds, in any arrangement of U+0001', () => {
    // the reference: what the marks were found with before (one pass for accounts, one to fill)
    const MARKS = /\u0001([^\u0001]*)\u0001/g;
    const reference = (text: string) => ({
      accounts: [...text.matchAll(MARKS)].filter((m) => m[1].startsWith('g')).map((m) => decodeURIComponent(m[1].slice(1))),
      filled: text.replace(MARKS, (_, s: string) => (s === 's' ? '"reversed"' : s === 'e' ? '"2026-12-05T20:00:00.000Z"' : accountJson(decodeURIComponent(s.slice(1))))),
    });
    const pieces = ['\u0001', 's', 'e', 'g311', 'g343%2F01', 'x', 'ž', '🐎', '"', '{', ''];
    let seed = 79;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % pieces.length;
    let filled = 0;
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: 1 + (i % 12) }, () => pieces[next()]).join('');
      const slots = [...text.matchAll(MARKS)].map((m) => m[1]);
      if (slots.some((s) => s !== 's' && s !== 'e' && !/^g[\x21-\x7e]*$/.test(s))) {
        expect(() => answered(text), JSON.stringify(text)).toThrow(/unknown mark/);
        continue;
      }
      expect(accountsOf(text), JSON.stringify(text)).toEqual([...new Set(reference(text).accounts)]);
      expect(answered(text), JSON.stringify(text)).toBe(reference(text).filled);
      if (slots.length > 0) filled++;
    }
    // the arrangements exercised filling, not only refusing
    expect(filled).toBeGreaterThan(30);
  });
});
