import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

/* One JSON line per request at the gateway: what, by whom, how it went; never the credential. */
let stack: Stack;
const lines: string[] = [];
const original = process.stdout.write;
const originalErr = process.stderr.write;

beforeAll(async () => {
  stack = await startStack({ env: { LOG_LEVEL: 'info' } });
  // info lines go to stdout, warnings and errors to stderr
  const capture = ((chunk: unknown) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
}, 60_000);
afterAll(async () => {
  process.stdout.write = original;
  process.stderr.write = originalErr;
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
      .filter((l) => l.startsWith('{'))
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

  it('says in the line of a failed request why it failed, as the client was told', async () => {
    // this stack runs settings only: finance is not reachable
    const res = await stack.api('/v1/finance/payouts', { headers: { 'x-request-id': 'access-log-test-3' } });
    expect(res.status).toBe(503);
    const problem = await res.json();
    const failed = lines
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request failed' && l.request_id === 'access-log-test-3');
    expect(failed).toMatchObject({ level: 'warn', service: 'gateway', status: 503, problem: { code: problem.code, detail: problem.detail } });
    expect(problem.detail).toMatch(/not reachable/);
  });

  it('writes a few lines a second of one kind of failure and counts the rest, every request still in the metrics', async () => {
    const route = '/v1/accounting/transactions';
    const metricCount = async () => {
      const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.includes('http_requests_total{') && l.includes(`route="${route}"`) && l.includes('status="503"'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await metricCount();
    const flood = 300;
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: flood }, () => stack.api(route)));
    const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
    expect([...new Set(answers.map((r) => r.status))]).toEqual([503]);
    // another kind of failure in the same second is written at once
    const other = await stack.api('/v1/sales/invoices', { headers: { 'x-request-id': 'access-log-test-4' } });
    expect(other.status).toBe(503);
    // the count of a second is written when it ends
    await new Promise((r) => setTimeout(r, 2500));
    const entries = lines
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.service === 'gateway' && l.route === route);
    const written = entries.filter((e) => e.msg === 'request failed');
    const counted = entries.filter((e) => e.msg === 'requests failed (lines suppressed)');
    // at most 20 lines for each second the flood spanned, and every request either written or counted
    expect(written.length).toBeGreaterThanOrEqual(20);
    expect(written.length).toBeLessThanOrEqual(20 * seconds);
    expect(counted.length).toBeGreaterThanOrEqual(1);
    expect(counted[0]).toMatchObject({ level: 'warn', method: 'GET', status: 503, code: 'service_unavailable', lines_per_second: 20 });
    expect(written.length + counted.reduce((n, e) => n + Number(e.suppressed), 0)).toBe(flood);
    expect(lines.some((l) => l.includes('"request_id":"access-log-test-4"') && l.includes('"request failed"'))).toBe(true);
    expect((await metricCount()) - before).toBe(flood);
  });
});
