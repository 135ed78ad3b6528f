import { createServer, type Server } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../apps/gateway/src/gateway.js';
import { DATABASE_URL, startStack, type Stack } from '../support/stack.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * The gateway in front of several replicas of a service (issue 15): a replica that refuses
 * connections is passed over for any request; one that drops a connection mid-request is passed
 * over only for requests that are safe to repeat (GET, PUT, DELETE, POST with Idempotency-Key), and
 * is then skipped for a while.
 */

let stack: Stack;
let gateway: RunningGateway;
let dropper: Server;
let dropped = 0;

function listen(server: Server): Promise<number> {
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
}

beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
  dropper = createServer((req) => {
    dropped++;
    req.socket.destroy();
  });
  const dropPort = await listen(dropper);
  const closed = createServer();
  const refusedPort = await listen(closed);
  await new Promise((r) => closed.close(r));
  gateway = await startGateway({
    ...stack.env,
    PORT: '0',
    HOST: '127.0.0.1',
    SETTINGS_URL: `http://127.0.0.1:${refusedPort},${stack.services.settings!.url}`,
    SALES_URL: `http://127.0.0.1:${dropPort}, ${stack.services.sales!.url}`,
    PURCHASE_URL: 'http://127.0.0.1:1',
    FINANCE_URL: 'http://127.0.0.1:1',
    ACCOUNTING_URL: 'http://127.0.0.1:1',
  });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await stack?.close();
  dropper?.close();
});

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const call = (path: string, init: RequestInit = {}): Promise<Omit<Response, 'json'> & { json(): Promise<Json> }> =>
  fetch(`${gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });

describe('gateway over replicas', () => {
  it('verifies keys and reads through the replica that answers', async () => {
    for (let i = 0; i < 6; i++) expect((await call('/v1/sales/invoices?take=1')).status).toBe(200);
    expect(dropped).toBeGreaterThanOrEqual(1);
    const ready = (await (await fetch(`${gateway.url}/readyz`)).json()) as Json;
    expect(ready.dependencies).toMatchObject({ sales: true, settings: true });
    expect(ready.checks).toEqual({ nats: true });
  });

  it('a POST with an Idempotency-Key goes to the next replica; one without is not repeated after a dropped connection', async () => {
    await new Promise((r) => setTimeout(r, 2100)); // the dropper is tried again after its time out
    const before = dropped;
    const keyed = await Promise.all(
      Array.from({ length: 4 }, (_, i) => call('/v1/sales/invoices', { method: 'POST', headers: { 'idempotency-key': `replica-${i}` }, body: JSON.stringify(invoiceBody()) })),
    );
    expect(keyed.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(dropped).toBeGreaterThan(before);

    await new Promise((r) => setTimeout(r, 2100));
    const beforePlain = dropped;
    const plain = [];
    for (let i = 0; i < 4; i++) plain.push(await call('/v1/sales/invoices', { method: 'POST', body: JSON.stringify(invoiceBody()) }));
    const statuses = plain.map((r) => r.status);
    // the first may meet the dropper: 503, not repeated (it could have been carried out); then it is skipped
    expect(statuses.filter((s) => s === 503).length).toBeLessThanOrEqual(1);
    // every POST the dropper swallowed was answered 503, none was sent on to the next replica
    expect(statuses.filter((s) => s === 503).length).toBe(dropped - beforePlain);
    expect(dropped - beforePlain).toBe(1); // round robin reached the dropper once, then skipped it
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    for (const r of plain.filter((x) => x.status === 503)) expect((await r.json()).code).toBe('service_unavailable');
  });

  it("a keyed POST sent again after a dropped connection waits out the dropped attempt's key lock; a client's own duplicate still gets 409", async () => {
    const sales = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}sales`) });
    await sales.connect();
    try {
      const [{ credential_id: credential }] = (await sales.query("select credential_id from kit_idempotency where idem_key = 'replica-0'")).rows;
      let sawRedelivery = false;
      let sawOwnDuplicate = false;
      for (let attempt = 0; attempt < 6 && !(sawRedelivery && sawOwnDuplicate); attempt++) {
        await new Promise((r) => setTimeout(r, 2100)); // the dropper is tried again after its time out
        const key = `locked-${attempt}`;
        // a session that holds the key's lock, as a replica killed mid-request does until Postgres ends it
        const holder = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}sales`) });
        await holder.connect();
        await holder.query('begin');
        await holder.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`idem:1:${credential}:${key}`]);
        const before = dropped;
        const started = Date.now();
        const pending = call('/v1/sales/invoices', { method: 'POST', headers: { 'idempotency-key': key }, body: JSON.stringify(invoiceBody({ notes: key })) });
        setTimeout(() => void holder.query('commit').then(() => holder.end()), 700);
        const res = await pending;
        if (dropped > before) {
          // the gateway's own second delivery: answered once the lock was free, not 409
          expect(res.status).toBe(200);
          expect(Date.now() - started).toBeGreaterThanOrEqual(650);
          sawRedelivery = true;
        } else {
          // straight to the replica while the key is locked: the client's concurrent duplicate, 409 as architecture §2 says
          expect(res.status).toBe(409);
          expect((await res.json()).code).toBe('idempotency_key_in_flight');
          sawOwnDuplicate = true;
        }
        await new Promise((r) => setTimeout(r, 800));
        const stored = await sales.query("select count(*)::int as n from sales_documents where doc_type = 'sales_invoice' and notes = $1", [key]);
        expect(stored.rows[0].n).toBe(res.status === 200 ? 1 : 0);
      }
      expect(sawRedelivery).toBe(true);
      expect(sawOwnDuplicate).toBe(true);
    } finally {
      await sales.end();
    }
  }, 60_000);
});
