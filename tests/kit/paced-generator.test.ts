import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { pacedBinary, pacedLoad, stallProbe, stallsBinary, type StallResult } from '../../bench/paced.js';

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

/*
 * The bench's stall probe (bench/paced/stalls.c): the gateway's p99 overhead is read against the
 * stalls it reports, so it must count a stall it suffers, once, and report its length.
 */
describe('stall probe', () => {
  test('wakes on its period and reports consistent figures', async () => {
    const r = await stallProbe(1, 10);
    expect(r.seconds).toBeGreaterThan(0.95);
    expect(r.wakeups).toBeGreaterThan(80);
    expect(r.wakeups).toBeLessThanOrEqual(100);
    expect(r.p50).toBeGreaterThanOrEqual(0);
    expect(r.p50).toBeLessThanOrEqual(r.p99);
    expect(r.p99).toBeLessThanOrEqual(r.p999);
    expect(r.p999).toBeLessThanOrEqual(r.max);
    expect(r.over_10ms).toBeLessThanOrEqual(r.over_5ms);
    expect(r.over_5ms).toBeLessThanOrEqual(r.over_2ms);
    expect(r.over_2ms).toBeLessThanOrEqual(r.wakeups);
    expect(typeof r.realtime).toBe('boolean');
  });

  test('counts a stall it suffers once, with its length', async () => {
    // SIGSTOP holds the probe as a hypervisor's pause would: 200 ms without running
    const child = spawn(stallsBinary(), ['--seconds', '1.5']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => child.on('exit', r));
    await new Promise((r) => setTimeout(r, 400));
    child.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGCONT');
    await exited;
    const r = JSON.parse(out) as StallResult;
    expect(r.max).toBeGreaterThan(150);
    expect(r.max).toBeLessThan(1000);
    expect(r.lost_ms).toBeGreaterThan(150);
    // one stall, not the 200 ticks it covered
    expect(r.over_10ms).toBeGreaterThanOrEqual(1);
    expect(r.over_10ms).toBeLessThan(10);
  });

  test('refuses options out of range', () => {
    const r = spawnSync(stallsBinary(), ['--seconds', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr.toString()).toMatch(/--seconds/);
    expect(spawnSync(stallsBinary(), ['--bogus', '1']).status).toBe(2);
  });
});
