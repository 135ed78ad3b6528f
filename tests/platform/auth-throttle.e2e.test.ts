import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecret } from '@ledgerline/service-kit';
import { startStack, type Stack } from '../support/stack.js';
import { expectProblem } from '../support/assertions.js';

/*
 * Failed authentication is throttled per client address and per key prefix (issue 11, finding 8):
 * a flood of wrong keys gets 429 with Retry-After instead of one settings lookup each, and a
 * client cannot escape the limit by writing its own X-Forwarded-For.
 */

describe('failed authentication without a trusted proxy', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { AUTH_FAILURE_BURST: '5', AUTH_FAILURES_PER_MINUTE: '6' } });
  }, 120_000);
  afterAll(async () => stack?.close());

  it('a burst of requests with a valid key not yet cached costs one lookup and is never limited', async () => {
    const created = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', key: stack.adminKey, json: { name: 'fresh', scopes: ['settings:read'] } })).json();
    const answers = await Promise.all(Array.from({ length: 100 }, () => stack.api('/v1/settings/organisation', { key: created.key })));
    expect(answers.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
  });

  it('500 wrong keys in a burst: the first few are 401, the rest 429 with Retry-After', async () => {
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        stack.api('/v1/settings/organisation', { key: generateSecret('ak'), headers: { 'x-forwarded-for': `10.0.${i >> 8}.${i & 255}` } }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(495);
    // the address is now limited for keys that need a lookup; a key verified before still works
    await expectProblem(await stack.api('/v1/settings/organisation', { key: generateSecret('ak') }), 429, 'rate_limited');
    expect((await stack.api('/v1/settings/organisation')).status).toBe(200);
    const limited = answers.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await expectProblem(limited, 429, 'rate_limited');
  });

  it('the token endpoint counts refused clients too, whatever X-Forwarded-For says', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        stack.api('/v1/oauth/token', {
          method: 'POST',
          key: null,
          headers: { 'x-forwarded-for': `192.0.2.${i}` },
          json: { grant_type: 'client_credentials', client_id: 'cl_nobody', client_secret: 'cs_wrong' },
        }),
      ),
    );
    expect(answers.every((r) => r.status === 401 || r.status === 429)).toBe(true);
    expect(answers.filter((r) => r.status === 429).length).toBeGreaterThan(30);
  });
});

describe('failed authentication behind a trusted proxy', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { AUTH_FAILURE_BURST: '3', AUTH_FAILURES_PER_MINUTE: '6', TRUSTED_PROXIES: '127.0.0.1/8, ::1' } });
  }, 120_000);
  afterAll(async () => stack?.close());

  it('limits each forwarded client address on its own, and a valid key from another address still works', async () => {
    const from = (address: string, key: string) => stack.api('/v1/settings/organisation', { key, headers: { 'x-forwarded-for': address } });
    const attacker: number[] = [];
    for (let i = 0; i < 6; i++) attacker.push((await from('203.0.113.7', generateSecret('ak'))).status);
    expect(attacker).toEqual([401, 401, 401, 429, 429, 429]);
    // the real client behind the same proxy is not locked out by the attacker's failures
    expect((await from('198.51.100.20', stack.adminKey)).status).toBe(200);
    // the attacker's address stays blocked for guesses until its bucket refills
    expect((await from('203.0.113.7', generateSecret('ak'))).status).toBe(429);
  });

  it("wrong keys under a victim's key prefix from another address never lock the victim's valid key out (issue 52)", async () => {
    // a key not yet verified by the gateway (no cache hit), whose 11-character prefix anyone with settings:read sees
    const victim = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', key: stack.adminKey, json: { name: 'victim', scopes: ['settings:read'] } })).json();
    const listed = await (await stack.api('/v1/settings/security/api-keys?take=100', { key: stack.adminKey })).json();
    const prefix = listed.entities.find((k: { id: number }) => k.id === victim.id).prefix as string;
    expect(victim.key.startsWith(prefix)).toBe(true);
    const from = (address: string, key: string) => stack.api('/v1/settings/organisation', { key, headers: { 'x-forwarded-for': address } });
    const guesses: number[] = [];
    for (let i = 0; i < 20; i++) guesses.push((await from('203.0.113.99', `${prefix}${generateSecret('ak').slice(prefix.length)}`)).status);
    expect(guesses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(guesses.slice(3).every((s) => s === 429)).toBe(true);
    // the victim's own key, from its own address: 200 at once, not 429 for 30 s
    expect((await from('198.51.100.44', victim.key)).status).toBe(200);
    // and a guess under that prefix from a fresh address is still looked up (401), then that address is refused with it too
    expect((await from('192.0.2.77', `${prefix}${generateSecret('ak').slice(prefix.length)}`)).status).toBe(401);
    expect((await from('192.0.2.77', `${prefix}${generateSecret('ak').slice(prefix.length)}`)).status).toBe(429);
  });
});
