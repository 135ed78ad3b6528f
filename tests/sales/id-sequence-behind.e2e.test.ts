import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DATABASE_URL, startStack, type Stack } from '../support/stack.js';
import { apiOf, invoiceBody } from './helpers.js';

/*
 * A sequence hands out values without making them durable: on a standby just promoted it can
 * stand behind ids the old primary gave out, and a document drafted there (its id taken before its
 * transaction) is written here while another request draws the same id again. The failover drill
 * met it as five 409 `duplicate_number` answers naming no number. The sequence set back by hand is
 * that state; the write it breaks must be a 503 to retry that wrote nothing, and the retry must
 * post the document once, with the next number of the series.
 */
let stack: Stack;
const api = apiOf(() => stack);
let db: pg.Client;

beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
  db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}sales`) });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.close();
});

const count = async () => (await db.query<{ n: number }>('select count(*)::int as n from sales_documents')).rows[0].n;

describe("a document id its sequence hands out again (a promoted standby's sequence behind)", () => {
  it('is a 503 that wrote nothing, and the request sent again posts the document once with the next number', async () => {
    const first = await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ notes: 'before the sequence went back' }) });
    expect(first.status).toBe(200);
    const a = await first.json();
    expect(await count()).toBe(1);

    // the next id drawn is the one the first invoice has
    await db.query("select setval(pg_get_serial_sequence('sales_documents', 'id'), $1, false)", [a.id]);
    const key = `sequence-behind-${Date.now()}`;
    const send = () => api('/v1/sales/invoices', { method: 'POST', headers: { 'idempotency-key': key }, json: invoiceBody({ notes: 'drawn an id in use' }) });

    const refused = await send();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const problem = await refused.json();
    expect(problem).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(problem.detail).toContain('nothing was written, retry');
    expect(await count()).toBe(1);
    // the first invoice is as it was
    expect((await (await api(`/v1/sales/invoices/${a.id}`)).json()).notes).toBe('before the sequence went back');

    const posted = await send();
    expect(posted.status).toBe(200);
    const b = await posted.json();
    expect(b.id).toBe(a.id + 1);
    expect(b.notes).toBe('drawn an id in use');
    // the refused attempt gave its number back: the series stays without a gap
    const digits = (no: string) => Number(/(\d+)$/.exec(no)![1]);
    expect(b.no.replace(/\d+$/, '')).toBe(a.no.replace(/\d+$/, ''));
    expect(digits(b.no)).toBe(digits(a.no) + 1);
    expect(await count()).toBe(2);

    // sent once more, it is answered as posted, not posted again
    const replay = await send();
    expect(replay.status).toBe(200);
    expect((await replay.json()).id).toBe(b.id);
    expect(await count()).toBe(2);
  });
});
