import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { pacedBinary, pacedLoad } from '../../bench/paced.js';

/*
 * The bench's open-loop generator (bench/paced/paced.c), against servers whose answers we choose:
 * the gateway-overhead figure is only as true as its counts and its clock.
 */
const servers: Server[] = [];
async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe('paced load generator', () => {
  test('builds from its source', () => {
    expect(pacedBinary()).toMatch(/paced$/);
  });

  test('sends every request due at the offered rate, with its headers, and reads fixed-length and chunked answers', async () => {
    const seen: Array<string | string[] | undefined> = [];
    let n = 0;
    const base = await serve((req, res) => {
      seen.push(req.headers['x-probe']);
      n++;
      if (n % 3 === 0) {
        res.writeHead(404, { 'content-type': 'application/json' }); // chunked: no length, two writes
        res.write('{"a":');
        res.end('1}');
      } else if (n % 3 === 1) {
        res.writeHead(200, { 'content-length': '2' }).end('ok');
      } else {
        res.writeHead(204).end();
      }
    });
    const r = await pacedLoad({ url: `${base}/x`, rate: 200, seconds: 1.5, connections: 8, headers: { 'x-probe': 'yes' } });
    expect(r.completed).toBe(300);
    expect(r.status).toEqual({ '200': 100, '204': 100, '404': 100 });
    expect(r.errors + r.unsent + r.unanswered).toBe(0);
    expect(seen.every((h) => h === 'yes')).toBe(true);
    expect(r.rate).toBeCloseTo(200, 0);
    expect(r.p50).toBeGreaterThan(0);
    expect(r.p50).toBeLessThan(50);
  });

  test('charges a slow server for the queue it causes (latency from when a request was due)', async () => {
    // one connection, 100 ms per answer, 50 requests due per second: a closed loop would send 10
    // a second and report 100 ms; requests due meanwhile wait, and that wait is latency
    const base = await serve((_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-length': '0' }).end(), 100);
    });
    const r = await pacedLoad({ url: `${base}/slow`, rate: 50, seconds: 1, connections: 1 });
    expect(r.completed + r.unsent + r.unanswered).toBe(50);
    expect(r.unsent).toBeGreaterThan(0); // the server could not keep up: not all were ever sent
    expect(r.p50).toBeGreaterThan(300);
    expect(r.max).toBeGreaterThan(1000);
  });

  test('counts a connection dropped mid-request as an error and goes on', async () => {
    let n = 0;
    const base = await serve((req, res) => {
      if (++n === 5) req.socket.destroy();
      else res.writeHead(200, { 'content-length': '0', connection: n % 7 === 0 ? 'close' : 'keep-alive' }).end();
    });
    const r = await pacedLoad({ url: `${base}/`, rate: 100, seconds: 1, connections: 2 });
    expect(r.errors).toBe(1);
    expect(r.completed).toBe(99);
    expect(r.status).toEqual({ '200': 99 });
  });
});
