import { describe, expect, it } from 'vitest';
import { entryUid } from './ledger-store.js';

/*
 * An entry's uid is derived from the fact it records, so a rebuilt ledger gives every entry the
 * uid it had: these values were derived when the first ledger was written and must never change.
 */
describe('entry uid', () => {
  it('is the same for the same fact, on every rebuild', () => {
    expect(entryUid(42, { type: 'sales_credit_note', id: 7, version: 1 }, 'posting')).toBe('9a0cba56-e1c4-51a9-8060-fb0df1796f6d');
    expect(entryUid(42, { type: 'sales_credit_note', id: 7, version: 1 }, 'reversal')).toBe('9cd3a266-9a5b-5483-8c00-11aad8566c9f');
  });

  it('differs with any part of the fact, and has the shape of a version-5 UUID', () => {
    const base = { type: 'sales_invoice', id: 1, version: 1 };
    const uids = [
      entryUid(1, base, 'posting'),
      entryUid(2, base, 'posting'),
      entryUid(1, { ...base, type: 'purchase_bill' }, 'posting'),
      entryUid(1, { ...base, id: 2 }, 'posting'),
      entryUid(1, { ...base, version: 2 }, 'posting'),
      entryUid(1, base, 'reversal'),
    ];
    expect(new Set(uids).size).toBe(uids.length);
    for (const u of uids) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
