import { Agent, createServer, get as httpGet, type Server } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

/*
 * A client that sends its request slowly, or opens a connection and sends nothing, must not
 * hold a connection for long (Node's own bounds are 60 s for headers and 300 s for a request):
 * past CLIENT_HEADERS_TIMEOUT_MS or CLIENT_REQUEST_TIMEOUT_MS it gets 408 problem+json and the
 * connection closes. Slowness on the server's side (a handler or a service taking its time) is
 * not the client's and is never cut by these bounds. Requests Node's parser refuses (an
 * ambiguous length, an over-long URL, not HTTP at all) are answered as problem+json and never
 * forwarded.
 */

const HEADERS_MS = 1000;
const REQUEST_MS = 2500;
let stack: Stack;
let slowSales: Server;

function listen(server: Server): Promise<number> {
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
}

beforeAll(async () => {
  // a service that takes longer to answer than a client is given to send its request
  slowSales = createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"entities":[]}'), REQUEST_MS + 1000));
  });
  const salesPort = await listen(slowSales);
  stack = await startStack({
    env: {
      CLIENT_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      CLIENT_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      SALES_URL: `http://127.0.0.1:${salesPort}`,
      UPSTREAM_TIMEOUT_MS: '15000',
    },
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  slowSales?.close();
});

interface RawAnswer {
  text: string;
  status: number | null;
  body: Record<string, unknown> | null;
  /** From the connection opening to the server closing it. */
  closedAfterMs: number;
}

/**
 * Opens a connection to `url`'s port, lets `send` write on it (at its own pace), and reads what
 * the server answers until it closes the connection (or `giveUpMs`, a failure).
 */
function rawExchange(url: string, send: (socket: net.Socket) => void, giveUpMs = 15_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(port), hostname);
    let text = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${giveUpMs} ms`));
    }, giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', () => undefined); // a write after the server closed: what was read is the answer
    socket.on('close', () => {
      clearTimeout(giveUp);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
      let body: Record<string, unknown> | null = null;
      try {
        body = JSON.parse(bodyText) as Record<string, unknown>;
      } catch {
        body = null;
      }
      resolve({ text, status: status ? Number(status) : null, body, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => send(socket));
  });
}

/** Writes `pieces` one every `everyMs` while the connection is open. */
function dribble(socket: net.Socket, pieces: string[], everyMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (at >= pieces.length || socket.destroyed || !socket.writable) return clearInterval(timer);
    socket.write(pieces[at++]);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

function expectTimeoutProblem(answer: RawAnswer) {
  expect(answer.status, answer.text).toBe(408);
  expect(answer.text).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
  expect(answer.body).toMatchObject({ status: 408, code: 'request_timeout', type: '/problems/request-timeout' });
}

describe('a slow or silent client cannot hold a connection', () => {
  it('a connection that sends nothing is answered 408 and closed once the headers are due', async () => {
    const answer = await rawExchange(stack.gateway.url, () => undefined);
    expectTimeoutProblem(answer);
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(answer.closedAfterMs).toBeLessThan(REQUEST_MS);
  });

  it("an idle connection waits for its client's next request past Node's 5 s default; only a silent new one is cut", async () => {
    // Node closes an idle connection after 5 s by default, and a client that reused one a moment
    // later (its own clock said 4 s) met "other side closed"; the kit keeps it 65 s
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL('/healthz', stack.gateway.url);
    const once = () =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = httpGet({ host: url.hostname, port: url.port, path: url.pathname, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        });
        req.on('error', reject);
      });
    try {
      expect(await once()).toEqual({ status: 200, reused: false });
      await new Promise((r) => setTimeout(r, 6000));
      expect(await once()).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  }, 15_000);

  it('headers sent a line at a time, never finished, are cut at the headers bound', async () => {
    const lines = ['GET /v1/settings/organisation HTTP/1.1\r\n', 'Host: gateway\r\n', ...Array.from({ length: 200 }, (_, i) => `X-Padding-${i}: ${'a'.repeat(20)}\r\n`)];
    const answer = await rawExchange(stack.gateway.url, (s) => dribble(s, lines, 100));
    expectTimeoutProblem(answer);
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(answer.closedAfterMs).toBeLessThan(REQUEST_MS);
  });

  it('a body trickled in is cut at the request bound, and what it asked for is not done', async () => {
    const name = `trickled key ${Date.now()}`;
    const body = JSON.stringify({ name, scopes: ['sales:read'] });
    const head =
      'POST /v1/settings/security/api-keys HTTP/1.1\r\nHost: gateway\r\n' +
      `Authorization: Bearer ${stack.adminKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    // the headers at once, then a byte of the body every 100 ms: the whole would take seconds longer than allowed
    const answer = await rawExchange(stack.gateway.url, (s) => {
      s.write(head);
      dribble(s, [...body], 100);
    });
    expectTimeoutProblem(answer);
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(answer.closedAfterMs).toBeLessThan(REQUEST_MS + 2000);

    // the same request sent at once creates the key; the trickled one created nothing
    const keys = await (await stack.api('/v1/settings/security/api-keys?take=100')).json();
    expect((keys.entities as Array<{ name: string }>).filter((k) => k.name === name)).toEqual([]);
    const whole = await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name, scopes: ['sales:read'] } });
    expect(whole.status, await whole.clone().text()).toBe(200);
    const after = await (await stack.api('/v1/settings/security/api-keys?take=100')).json();
    expect((after.entities as Array<{ name: string }>).filter((k) => k.name === name)).toHaveLength(1);
  });

  it('other clients are answered at once while slow ones hold their connections', async () => {
    const slow = Array.from({ length: 20 }, () => rawExchange(stack.gateway.url, (s) => dribble(s, ['GET /v1/settings/organisation HTTP/1.1\r\n', 'Host: gateway\r\n'], 300)));
    const started = Date.now();
    const res = await stack.api('/v1/settings/organisation');
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(HEADERS_MS);
    for (const answer of await Promise.all(slow)) expectTimeoutProblem(answer);
  });

  it('a service answering after longer than a client may take to send is not cut: the bounds are the client side only', async () => {
    const started = Date.now();
    const res = await stack.api('/v1/sales/invoices');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ entities: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_MS + 1000 - 50);
  });

  it('the services bound their clients the same way (the kit serves every process)', async () => {
    const answer = await rawExchange(stack.services.settings!.url, () => undefined);
    expectTimeoutProblem(answer);
    expect(answer.closedAfterMs).toBeLessThan(REQUEST_MS);
  });
});

describe('requests the HTTP parser refuses are problem+json, and never reach a service', () => {
  const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;

  it('a request with both Content-Length and Transfer-Encoding (a smuggling attempt) is 400 and not forwarded', async () => {
    const name = `smuggled key ${Date.now()}`;
    const body = JSON.stringify({ name, scopes: ['sales:read'] });
    const chunked = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const answer = await rawExchange(stack.gateway.url, (s) =>
      s.write(
        head([
          'POST /v1/settings/security/api-keys HTTP/1.1',
          'Host: gateway',
          `Authorization: Bearer ${stack.adminKey}`,
          'Content-Type: application/json',
          'Content-Length: 4',
          'Transfer-Encoding: chunked',
        ]) + chunked,
      ),
    );
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body).toMatchObject({ status: 400, code: 'malformed_http' });
    const keys = await (await stack.api('/v1/settings/security/api-keys?take=100')).json();
    expect((keys.entities as Array<{ name: string }>).filter((k) => k.name === name)).toEqual([]);
  });

  it('two different Content-Length headers are 400', async () => {
    const answer = await rawExchange(stack.gateway.url, (s) =>
      s.write(head(['POST /v1/settings/security/api-keys HTTP/1.1', 'Host: gateway', `Authorization: Bearer ${stack.adminKey}`, 'Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 3']) + '{}'),
    );
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body).toMatchObject({ code: 'malformed_http' });
  });

  it('a URL longer than the server reads is 431, a request line that is not HTTP is 400', async () => {
    const long = await rawExchange(stack.gateway.url, (s) => s.write(head([`GET /v1/settings/organisation?q=${'a'.repeat(20_000)} HTTP/1.1`, 'Host: gateway'])));
    expect(long.status, long.text).toBe(431);
    expect(long.body).toMatchObject({ status: 431, code: 'headers_too_large', type: '/problems/headers-too-large' });
    const garbage = await rawExchange(stack.gateway.url, (s) => s.write('HELLO THERE\r\n\r\n'));
    expect(garbage.status, garbage.text).toBe(400);
    expect(garbage.body).toMatchObject({ status: 400, code: 'malformed_http', type: '/problems/malformed-http' });
  });
});

describe('what no handler saw is still counted', () => {
  const refusedCount = async (url: string, code: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`ledgerline_http_refused_requests_total{code="${code}"}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  it('each refused request adds one to http_refused_requests_total under its problem code, at the gateway and at a service', async () => {
    const before = { timeout: await refusedCount(stack.gateway.url, 'request_timeout'), malformed: await refusedCount(stack.gateway.url, 'malformed_http') };
    const serviceBefore = await refusedCount(stack.services.settings!.url, 'request_timeout');
    await rawExchange(stack.gateway.url, () => undefined);
    await rawExchange(stack.gateway.url, (s) => s.write('HELLO THERE\r\n\r\n'));
    await rawExchange(stack.services.settings!.url, () => undefined);
    expect(await refusedCount(stack.gateway.url, 'request_timeout')).toBe(before.timeout + 1);
    expect(await refusedCount(stack.gateway.url, 'malformed_http')).toBe(before.malformed + 1);
    expect(await refusedCount(stack.services.settings!.url, 'request_timeout')).toBe(serviceBefore + 1);
  });
});
