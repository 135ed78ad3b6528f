import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

/*
 * Two replicas of sales behind the gateway (decision 251): one past its capacity, refusing every
 * request early as a service's admission gate does (503, Retry-After, x-ledgerline-overloaded),
 * and one with room. The failover drill met this when a restarted replica, still cold, refused
 * while its sibling had room: the refusals then halved the service's one limit and the gateway
 * refused clients for eight seconds.
 */

let stack: Stack;
let refusing: Server;
let working: Server;
const asked = { refusing: 0, working: 0 };
let refuseAll = false;

function listen(server: Server): Promise<number> {
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
}

function refuse(res: import('node:http').ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1', 'x-ledgerline-overloaded': '1' });
  res.end(JSON.stringify({ type: 'about:blank', status: 503, code: 'service_unavailable', title: 'Service unavailable', detail: 'sales: overloaded, nothing was done; send the request again after Retry-After' }));
}

beforeAll(async () => {
  refusing = createServer((req, res) => {
    asked.refusing++;
    refuse(res);
  });
  // answers after 150 ms, so that requests sent together are in flight together
  working = createServer((req, res) => {
    asked.working++;
    if (refuseAll) return refuse(res);
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ entities: [], answeredBy: 'working' }));
    }, 150);
  });
  const [refusingPort, workingPort] = await Promise.all([listen(refusing), listen(working)]);
  stack = await startStack({
    env: {
      SALES_URL: `http://127.0.0.1:${refusingPort},http://127.0.0.1:${workingPort}`,
      MAX_INFLIGHT_PER_SERVICE: '16',
    },
  });
});
afterAll(async () => {
  await stack?.close();
  refusing?.close();
  working?.close();
});

describe('a replica past its capacity, beside one with room', () => {
  it('its early refusal sends the request on to the replica with room: every client is answered 200', async () => {
    asked.refusing = 0;
    asked.working = 0;
    for (let i = 0; i < 10; i++) {
      const res = await stack.api('/v1/sales/invoices');
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ answeredBy: 'working' });
    }
    // round robin: the refusing replica was asked first about half the time, each time once
    expect(asked.refusing).toBeGreaterThanOrEqual(4);
    expect(asked.working).toBe(10);
  });

  it("its refusals lower its own limit, not the service's: requests together past half the limit all reach the replica with room", async () => {
    // under one limit per service, the refusals above halved it to 8 and 4 of these 12 got the gateway's 503
    const answers = await Promise.all(Array.from({ length: 12 }, () => stack.api('/v1/sales/invoices')));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
  });

  it('every replica refusing: the client gets the last refusal (503, Retry-After), each replica asked once', async () => {
    refuseAll = true;
    try {
      asked.refusing = 0;
      asked.working = 0;
      const res = await stack.api('/v1/sales/invoices');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toMatchObject({ code: 'service_unavailable', detail: expect.stringContaining('overloaded') });
      expect(asked).toEqual({ refusing: 1, working: 1 });
    } finally {
      refuseAll = false;
    }
  });
});
