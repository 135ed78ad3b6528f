import { describe, expect, it } from 'vitest';
import { masked } from './audit-record.js';

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
});
