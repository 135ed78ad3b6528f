import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

/* One JSON line per request at the gateway: what, by whom, how it went; never the credential. */
let stack: Stack;
const lines: string[] = [];
const original = process.stdout.write;

beforeAll(async () => {
  stack = await startStack({ env: { LOG_LEVEL: 'info' } });
  process.stdout.write = ((chunk: unknown) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
}, 60_000);
afterAll(async () => {
  process.stdout.write = original;
  await stack?.close();
});

describe('access log', () => {
  it('writes one line per request with method, route, status, duration, request id, credential and organisation', async () => {
    const res = await stack.api('/v1/settings/organisation', { headers: { 'x-request-id': 'access-log-test-1' } });
    expect(res.status).toBe(200);
    const unauthorised = await stack.api('/v1/settings/organisation', { key: 'ak_wrong', headers: { 'x-request-id': 'access-log-test-2' } });
    expect(unauthorised.status).toBe(401);
    const entries = lines
      .flatMap((l) => l.split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'access' && l.service === 'gateway');
    const ok = entries.find((e) => e.request_id === 'access-log-test-1');
    expect(ok).toMatchObject({ level: 'info', method: 'GET', route: '/v1/settings/organisation', path: '/v1/settings/organisation', status: 200, org_id: 1 });
    expect(ok!.credential_id).toEqual(expect.any(String));
    expect(ok!.duration_ms).toEqual(expect.any(Number));
    expect(entries.find((e) => e.request_id === 'access-log-test-2')).toMatchObject({ status: 401, credential_id: null, org_id: null });
    expect(entries.filter((e) => e.request_id === 'access-log-test-1')).toHaveLength(1);
    // the services log no line of their own by default (ACCESS_LOG_SAMPLE=0), and no line holds the key
    expect(lines.join('').includes(stack.adminKey)).toBe(false);
    expect(lines.some((l) => l.includes('"access"') && l.includes('"service":"settings"'))).toBe(false);
  });
});
