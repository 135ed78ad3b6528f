import { describe, expect, it } from 'vitest';
import { auditRow, changedFields, masked } from './audit-record.js';

describe('what an audit record keeps of a state (issue 71: mask by what a value is)', () => {
  it("keeps a reminder level's wording, masking only what is personal in it", () => {
    const level = { days_after_due: 7, email: { en: { subject: 'Reminder {{ invoices }}', body: 'Dear {{ customer }}, write to ap@acme.example.' } } };
    expect(masked(level)).toEqual(level);
    // a field named e-mail holding an address, or a list of them, is masked
    expect(masked({ email: 'ap@acme.example', to: ['ap@acme.example', 'cfo@acme.example'], phone: '+420 601 123 456' })).toEqual({ email: '***', to: ['***', '***'], phone: '***' });
  });

  it("masks a URL's credentials and keeps the rest of it", () => {
    expect(masked({ url: 'https://hooks.example/in?token=SECRET123&site=shop' })).toEqual({ url: 'https://hooks.example/in?token=***&site=shop' });
    expect(masked({ url: 'https://hooks.example/in?Signature=abc&sig=def' })).toEqual({ url: 'https://hooks.example/in?Signature=***&sig=***' });
    expect(masked({ smtp: 'smtp://mailer:hunter2@mail.example:587' })).toEqual({ smtp: 'smtp://mailer:***@mail.example:587' });
    expect(masked({ url: 'https://hooks.example/in?site=shop' })).toEqual({ url: 'https://hooks.example/in?site=shop' });
    expect(masked({ website: 'https://acme.example' })).toEqual({ website: 'https://acme.example' });
  });

  it('masks our credentials, e-mail addresses and IBANs under any name, and secrets by name whatever they hold', () => {
    expect(masked({ note: 'ak_0123456789abcdefABCDEF', contact: 'ap@acme.example', pay_to: 'CZ65 0800 0000 1920 0014 5399' })).toEqual({ note: '***', contact: '***', pay_to: '***' });
    expect(masked({ secret: { nested: 1 }, key: 'x', token: 42 })).toEqual({ secret: '***', key: '***', token: '***' });
    expect(masked({ title: 'Consulting at acme', iban_like: 'CZ65' })).toEqual({ title: 'Consulting at acme', iban_like: 'CZ65' });
    // a structure under a personal field's name is looked into, not hidden whole
    expect(masked({ bank_account: { iban: 'CZ6508000000192000145399', bic: 'GIBACZPX' } })).toEqual({ bank_account: { iban: '***', bic: 'GIBACZPX' } });
  });

  it('keeps an IBAN written with spaces between its letters masked, and texts of no masked kind as they are', () => {
    expect(masked({ a: 'C Z65 0800 0000 1920 0014 5399', b: '  GB29 NWBK 6016 1331 9268 19', c: 'CZ65 short', d: 'Cz6508000000192000145399' })).toEqual({
      a: '***',
      b: '***',
      c: 'CZ65 short',
      d: 'Cz6508000000192000145399',
    });
  });

  it('keeps a field named __proto__ as a field, and names and texts jsonb refuses (NUL, a lone surrogate) as replacement characters', () => {
    const state = JSON.parse('{"__proto__": {"polluted": true}, "a\\u0000": "x\\ud800y", "ok": "\\ud83d\\ude00"}');
    const kept = masked(state) as Record<string, unknown>;
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(kept))).toEqual(JSON.parse('{"__proto__": {"polluted": true}, "a\\ufffd": "x\\ufffdy", "ok": "\\ud83d\\ude00"}'));
    // the same names remembered as they were first seen
    expect(Object.keys(masked(state) as object)).toEqual(['__proto__', 'a\ufffd', 'ok']);
  });

  it('names the fields that hold something when only one state is there, and those that differ when both are', () => {
    expect(changedFields(null, { id: 1, no: 'CN1', notes: null, items: [] })).toEqual(['id', 'items', 'no']);
    expect(changedFields({ id: 1, notes: 'x' }, null)).toEqual(['id', 'notes']);
    expect(changedFields({ id: 1, notes: 'x', total: 2 }, { id: 1, notes: null, total: 3, paid: null })).toEqual(['notes', 'total']);
    expect(auditRow({ orgId: 1, credentialType: 'api_key', credentialId: 'k', requestId: 'r', operation: 'o', method: 'POST', path: '/p', resourceType: '/p', resourceId: null, status: 200, before: null, after: { id: 1, email: 'a@b.cz' } })).toMatchObject({
      before: null,
      after: '{"id":1,"email":"***"}',
      changedFields: ['email', 'id'],
    });
  });
});
