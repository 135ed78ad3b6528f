import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let slow: Server;
let broken: Server;
let large: Server;
/** A 300 KB JSON answer, like a list page of documents. */
const LARGE = JSON.stringify({ entities: Array.from({ length: 3000 }, (_, i) => ({ id: i, note: `entity ${i} ${'ž'.repeat(40)}` })) });
let seen: Record<string, string | undefined> = {};
/** Requests the brief endpoint is answering now, and the most it ever answered at once. */
const brief = { now: 0, most: 0, answered: 0 };

function listen(server: Server): Promise<number> {
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
}

beforeAll(async () => {
  // A service that answers too late, and one that drops the connection mid-request.
  slow = createServer((req, res) => {
    seen = { org: req.headers['x-ledgerline-org-id'] as string, auth: req.headers.authorization };
    setTimeout(() => res.end('{}'), 1500);
  });
  broken = createServer((req) => req.socket.destroy());
  // Large answers: whole with a length, in chunks without one, or cut off mid-body
  large = createServer((req, res) => {
    const bytes = Buffer.from(LARGE);
    if (req.url === '/v1/purchase/bills') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length, 'x-probe': 'kept' });
      res.end(bytes);
    } else if (req.url === '/v1/purchase/vendor-credits') {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let at = 0; at < bytes.length; at += 10_000) res.write(bytes.subarray(at, at + 10_000));
      res.end();
    } else if (req.url === '/v1/inventory/in/export/cut') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      res.write(bytes.subarray(0, 100_000), () => setTimeout(() => req.socket.destroy(), 50));
    } else if (req.url?.startsWith('/v1/inventory/in/export/echo')) {
      // what reached the service, answered with headers of its own (two cookies, its own request id)
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
      res.setHeader('x-request-id', 'the-service-own');
      res.writeHead(200, { 'content-type': 'application/json', 'x-probe': 'kept' });
      res.end(JSON.stringify({ url: req.url, headers: req.headers }));
    } else if (req.url === '/v1/inventory/in/export/trickle') {
      // a body that never ends: a byte every 100 ms, each gap well inside the gateway's timeout
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(drip));
    } else if (req.url === '/v1/inventory/in/export/hop') {
      // headers for this hop only, named in its Connection header, and a rate header of its own
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive, X-Service-Hop', 'x-service-hop': 'mine', 'x-probe': 'kept', 'ratelimit-limit': '5' });
      res.end(JSON.stringify({ headers: req.headers }));
    } else if (req.url === '/v1/inventory/in/export/brief') {
      // a quick answer (20 ms), counting how many it works on at once
      brief.most = Math.max(brief.most, ++brief.now);
      setTimeout(() => {
        brief.now--;
        brief.answered++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }, 20);
    } else if (req.url === '/v1/inventory/in/export/short') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write(Buffer.alloc(500, 32), () => setTimeout(() => req.socket.destroy(), 50));
    }
  });
  const [slowPort, brokenPort, largePort] = await Promise.all([listen(slow), listen(broken), listen(large)]);
  stack = await startStack({
    env: {
      SALES_URL: `http://127.0.0.1:${slowPort}`,
      FINANCE_URL: `http://127.0.0.1:${brokenPort}`,
      PURCHASE_URL: `http://127.0.0.1:${largePort}`,
      UPSTREAM_TIMEOUT_MS: '400',
      MAX_INFLIGHT_PER_SERVICE: '3',
      // a request finding three in flight waits this long in line before it is refused (decision 259)
      UPSTREAM_QUEUE_WAIT_MS: '250',
    },
  });
});
afterAll(async () => {
  await stack?.close();
  slow?.close();
  broken?.close();
  large?.close();
});

describe('gateway in front of unhealthy services', () => {
  it('answers 504 with Retry-After when a service is too slow, and passes only verified identity on', async () => {
    const res = await stack.api('/v1/sales/invoices');
    expect(res.status).toBe(504);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = await res.json();
    expect(body).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect(seen.org).toMatch(/^\d+$/);
    expect(seen.auth).toBeUndefined(); // the caller's secret never travels to services
  });

  it('sheds load: beyond MAX_INFLIGHT_PER_SERVICE requests to a service wait in line, get 503 when no room came, and it recovers', async () => {
    // twelve at once against a limit of three: the first three wait for the slow service (504 at
    // 400 ms), the ones arriving while they are in flight wait 250 ms in line and are refused
    const answers = await Promise.all(Array.from({ length: 12 }, () => stack.api('/v1/sales/invoices')));
    const statuses = answers.map((r) => r.status);
    expect(statuses.every((st) => st === 503 || st === 504)).toBe(true);
    expect(statuses.filter((st) => st === 504).length).toBeGreaterThanOrEqual(3);
    const shed = answers.filter((r) => r.status === 503);
    expect(shed.length).toBeGreaterThanOrEqual(1);
    for (const r of shed) {
      expect(r.headers.get('retry-after')).toBe('1');
      expect(await r.json()).toMatchObject({ code: 'service_unavailable', detail: expect.stringContaining('overloaded: 3 requests already in flight') });
    }
    // the slots are given back: the next request is forwarded again
    expect((await stack.api('/v1/sales/invoices')).status).toBe(504);
    // another service is not affected by sales being full
    expect((await stack.api('/v1/settings/organisation')).status).toBe(200);
  });

  it('takes a burst past MAX_INFLIGHT_PER_SERVICE whole when the service answers within the wait: never more than the limit at once', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => stack.api('/v1/inventory/in/export/brief')));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(await Promise.all(answers.map((r) => r.json()))).toEqual(Array(12).fill({ ok: true }));
    expect(brief.answered).toBe(12);
    expect(brief.most).toBeLessThanOrEqual(3);
    expect(brief.most).toBe(3);
  });

  it('answers 502 when a service breaks the connection', async () => {
    const res = await stack.api('/v1/finance/payouts');
    expect([502, 503]).toContain(res.status);
    expect((await res.json()).code).toMatch(/upstream_error|service_unavailable/);
  });

  it('passes a large answer on whole, with its length and headers, and one without a length in full', async () => {
    const whole = await stack.api('/v1/purchase/bills');
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe(String(Buffer.byteLength(LARGE)));
    expect(whole.headers.get('x-probe')).toBe('kept');
    expect(await whole.text()).toBe(LARGE);
    const chunked = await stack.api('/v1/purchase/vendor-credits');
    expect(chunked.status).toBe(200);
    expect(await chunked.text()).toBe(LARGE);
  });

  it("passes the client's headers and query on as sent, keeps the service's headers, and adds its own once", async () => {
    const res = await stack.api('/v1/inventory/in/export/echo?q=a%20b&x=%2F&x=2', {
      headers: { 'x-client-note': 'kept', 'x-ledgerline-org-id': '999', 'x-request-id': 'client-req-1', accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    const seenBy = (await res.json()) as { url: string; headers: Record<string, string> };
    expect(seenBy.url).toBe('/v1/inventory/in/export/echo?q=a%20b&x=%2F&x=2');
    expect(seenBy.headers['x-client-note']).toBe('kept');
    expect(seenBy.headers.accept).toBe('application/json');
    expect(seenBy.headers['x-request-id']).toBe('client-req-1');
    // the verified organisation, not the one the client wrote; its secret stays at the gateway
    expect(seenBy.headers['x-ledgerline-org-id']).toMatch(/^\d+$/);
    expect(seenBy.headers['x-ledgerline-org-id']).not.toBe('999');
    expect(seenBy.headers.authorization).toBeUndefined();
    // the answer: the service's headers, both cookies, the gateway's request id and rate headers once
    expect(res.headers.get('x-probe')).toBe('kept');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(res.headers.get('x-request-id')).toBe('client-req-1');
    expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('content-type')).toBe('application/json');
  });

  it('drops the headers a Connection header names, both ways, and its rate headers replace a service\'s', async () => {
    const url = new URL('/v1/inventory/in/export/hop', stack.gateway.url);
    const { status, headers, body } = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = httpRequest(url, {
        headers: { authorization: `Bearer ${stack.adminKey}`, connection: 'keep-alive, X-Hop-Note', 'x-hop-note': 'for the gateway only', 'x-client-note': 'kept' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    const seen = (JSON.parse(body) as { headers: Record<string, string> }).headers;
    expect(seen['x-hop-note']).toBeUndefined();
    expect(seen['x-client-note']).toBe('kept');
    expect(headers['x-service-hop']).toBeUndefined();
    expect(headers['x-probe']).toBe('kept');
    // one rate-limit header, the gateway's (Node would join two into "5, N")
    expect(headers['ratelimit-limit']).toMatch(/^\d+$/);
    expect(headers['ratelimit-limit']).not.toBe('5');
  });

  it('forwards a write sent with Expect: 100-continue (the gateway answers the expectation itself)', async () => {
    const url = new URL('/v1/purchase/bills', stack.gateway.url);
    const body = JSON.stringify({ note: 'after the continue' });
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      });
      req.on('continue', () => req.end(body));
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    // the fake service answers its large page to any request on this path
    expect(status).toBe(200);
  });

  it('answers 502 when a service fails mid-body, the answer large or small, and forwards the next request', async () => {
    for (const path of ['/v1/inventory/in/export/cut', '/v1/inventory/in/export/short']) {
      const res = await stack.api(path);
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ status: 502, code: 'upstream_error' });
    }
    expect((await stack.api('/v1/purchase/bills')).status).toBe(200);
  });

  it('answers 504 when an answer keeps arriving past the timeout, and frees its in-flight slot', async () => {
    const started = Date.now();
    const res = await stack.api('/v1/inventory/in/export/trickle');
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ status: 504, code: 'upstream_timeout' });
    // UPSTREAM_TIMEOUT_MS is 400 here: the headers came at once, the body got as long again
    expect(Date.now() - started).toBeLessThan(3_000);
    // more trickling answers than the service's 3 in-flight slots, one after another: none is left holding one
    for (let i = 0; i < 4; i++) expect((await stack.api('/v1/inventory/in/export/trickle')).status).toBe(504);
    expect((await stack.api('/v1/purchase/bills')).status).toBe(200);
  });

  it('answers 503 when a service is not running', async () => {
    const res = await stack.api('/v1/accounting/transactions');
    expect(res.status).toBe(503);
    expect((await res.json()).code).toBe('service_unavailable');
  });

  it('serves health without credentials', async () => {
    const res = await fetch(`${stack.gateway.url}/healthz`);
    expect(res.status).toBe(200);
    const ready = await fetch(`${stack.gateway.url}/readyz`);
    // the gateway serves (200) and names the service that is down
    expect(ready.status).toBe(200);
    const readiness = (await ready.json()) as { status: string; down: string[]; dependencies: Record<string, boolean> };
    expect(readiness.status).toBe('degraded');
    expect(readiness.down).toContain('accounting');
    // the gateway's own readiness is its NATS (revocations); settings is a dependency like the rest (decision 267)
    expect((readiness as unknown as { checks: Record<string, boolean> }).checks).toEqual({ nats: true });
    expect(Object.keys(readiness.dependencies).sort()).toEqual(['accounting', 'finance', 'purchase', 'sales', 'settings']);
    expect(readiness.dependencies.settings).toBe(true);
    const metrics = await (await fetch(`${stack.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/ledgerline_http_requests_total\{/);
    expect(metrics).toMatch(/process_resident_memory_bytes \d+/);
  });
});
