import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { subjectMatches, WEBHOOK_SUBJECTS } from '@ledgerline/contracts';
import { isForbiddenAddress } from './addresses.js';
import { newWebhookSecret, signedHeaders } from './signing.js';
import { nextAttemptDelay } from './sender.js';

describe('webhook addresses', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
    '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', 'ff02::1', 'not an ip',
    // issue 52: IPv4 carried in IPv6 forms a router can turn back into it
    '::ffff:0:127.0.0.1', '::127.0.0.1', '0:0:0:0:0:FFFF:7F00:1', '::FFFF:127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::8.8.8.8', '64:ff9b:1::a00:1',
    '2002:7f00:1::1', '2002:808:808::1', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'fec0::1', '3fff::1',
  ])('refuses %s', (a) => expect(isForbiddenAddress(a)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '0:0:0:0:0:ffff:808:808', '2001:4860:4860::8888', '2a00:1450::1'])('allows %s', (a) =>
    expect(isForbiddenAddress(a)).toBe(false),
  );
});

describe('webhook signatures', () => {
  it('are Standard Webhooks signatures: the standardwebhooks package verifies them, with any of the secrets', () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ id: 'evt', data: { amount: 298.1 } });
    const now = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([a, b], 'evt_1', now, body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]{44} v1,[A-Za-z0-9+/=]{44}$/);
    expect(new Webhook(a).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(b).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
  });
});

describe('webhook subject patterns', () => {
  it('match like NATS subjects: * one token, a final > the rest', () => {
    expect(subjectMatches('sales.invoice.*', 'sales.invoice.posted')).toBe(true);
    expect(subjectMatches('sales.>', 'sales.credit_note.posted')).toBe(true);
    expect(subjectMatches('*.*.posted', 'purchase.bill.posted')).toBe(true);
    expect(subjectMatches('>', 'finance.payment.matched')).toBe(true);
    expect(subjectMatches('sales.invoice.*', 'sales.credit_note.posted')).toBe(false);
    expect(subjectMatches('sales.*', 'sales.invoice.posted')).toBe(false);
    expect(subjectMatches('sales.invoice.posted.x', 'sales.invoice.posted')).toBe(false);
    expect(WEBHOOK_SUBJECTS.filter((s) => subjectMatches('*.*.posted', s))).toEqual([
      'sales.invoice.posted',
      'sales.credit_note.posted',
      'sales.advance_tax_document.posted',
      'purchase.bill.posted',
      'purchase.advance_tax_document.posted',
      'purchase.vendor_credit.posted',
      'finance.payout.posted',
      'accounting.transaction.posted',
      'accounting.journal_entry.posted',
    ]);
  });
});

describe('retry schedule', () => {
  it('waits the n-th delay after the n-th failed attempt, and stops after the last', () => {
    const schedule = [5_000, 60_000, 300_000];
    expect([1, 2, 3, 4].map((n) => nextAttemptDelay(schedule, n))).toEqual([5_000, 60_000, 300_000, null]);
    expect(nextAttemptDelay([], 1)).toBeNull();
  });
});

describe('webhook URLs when saved', () => {
  it('must be https in production, and never carry credentials', async () => {
    const { checkWebhookUrl } = await import('./urls.js');
    const production = { requireHttps: true, allowPrivate: false };
    await expect(checkWebhookUrl('http://93.184.216.34/hook', production)).rejects.toMatchObject({ status: 422, code: 'webhook_url_not_allowed' });
    expect(await checkWebhookUrl('https://93.184.216.34/hook#frag', production)).toBe('https://93.184.216.34/hook');
    expect(await checkWebhookUrl('http://93.184.216.34/hook', { requireHttps: false, allowPrivate: false })).toBe('http://93.184.216.34/hook');
    await expect(checkWebhookUrl('https://u:p@93.184.216.34/', production)).rejects.toMatchObject({ code: 'webhook_url_not_allowed' });
    await expect(checkWebhookUrl('https://10.0.0.8/', production)).rejects.toMatchObject({ code: 'webhook_url_not_allowed' });
    for (const host of ['[::ffff:0:127.0.0.1]', '[::127.0.0.1]', '[64:ff9b::a00:1]', '[64:ff9b:1::1]', '[2002:a00:1::1]', '[2001::a00:1]']) {
      await expect(checkWebhookUrl(`https://${host}/hook`, production), host).rejects.toMatchObject({ status: 422, code: 'webhook_url_not_allowed' });
    }
    // a name's addresses are not told back (localhost resolves to a loopback address)
    const named = await checkWebhookUrl('https://localhost/hook', production).catch((e: Error) => e.message);
    expect(named).toBe('localhost resolves to a loopback, private, link-local or reserved address, which webhooks may not reach');
    expect(await checkWebhookUrl('http://127.0.0.1:9000/x', { requireHttps: false, allowPrivate: true })).toBe('http://127.0.0.1:9000/x');
  });
});

describe('the scope area of an event', () => {
  it("is its subject's first token, but the directory's events are contacts data", async () => {
    const { areaOfSubject, areaOfEventType, areasSelected } = await import('./access.js');
    expect(areaOfSubject('sales.invoice.posted')).toBe('sales');
    expect(areaOfSubject('settings.organisation.updated')).toBe('settings');
    expect(areaOfSubject('settings.contact.updated')).toBe('contacts');
    expect(areaOfEventType('com.ledgerline.settings.contact.created.v1')).toBe('contacts');
    expect(areaOfEventType('com.ledgerline.sales.credit_note.posted.v1')).toBe('sales');
    expect(areaOfEventType('something.else')).toBeNull();
    expect(areasSelected(['settings.*.*'])).toEqual(['settings', 'contacts']);
  });
});
