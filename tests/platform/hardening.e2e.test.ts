import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ROUTES } from '@ledgerline/contracts';
import { DATABASE_URL, eventually, startStack, type Stack } from '../support/stack.js';
import { request } from 'node:http';
import { apiOf, expectProblem } from '../support/assertions.js';
import { invoiceBody } from '../sales/helpers.js';

/*
 * Each finding of the hardening review (issue 11) as the user or operator met it, through the
 * gateway: hostile templates, privilege escalation, secrets at rest in idempotency records,
 * unbounded chunked bodies, amounts that could not reach the ledger, input that used to be a 500,
 * expiry changes and organisation data that broke answers.
 */

let stack: Stack;
const api = apiOf(() => stack);
const json = (res: Response) => res.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  // the production upstream timeout: four hostile renders queue for two render processes on a loaded machine
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'], env: { UPSTREAM_TIMEOUT_MS: '15000' } });
}, 120_000);
afterAll(async () => stack?.close());

async function createKey(scopes: string[], key?: string) {
  const res = await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: `k ${scopes.join(' ')}`, scopes }, key });
  expect(res.status).toBe(200);
  return json(res) as Promise<{ id: number; key: string; scopes: string[] }>;
}

async function createInvoice(over: Record<string, unknown> = {}) {
  const res = await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody(over) });
  expect(res.status).toBe(200);
  return json(res) as Promise<{ id: number; no: string; total_amount: number }>;
}

async function ledgerEntryOf(no: string, type = 'sales_invoice') {
  return eventually(async () => {
    const page = await json(await api(`/v1/accounting/transactions?take=1000`));
    const found = (page.entities as Array<{ no: string; type: string; debit: number }>).filter((t) => t.no === no && t.type === type);
    return found.length ? found : undefined;
  }, 15_000, 100);
}

describe('templates cannot take the service down', () => {
  it('a runaway template answers 422 template_limit_exceeded in bounded time while sales keeps serving', async () => {
    const saved = await api('/v1/settings/templates', {
      method: 'POST',
      json: { code: 'evil', name: 'Evil', html_template: '{% for i in (1..10000000) %}x{% endfor %}' },
    });
    expect(saved.status).toBe(200);
    const invoice = await createInvoice();
    // the template reaches sales' replica through its event
    const render = () => api(`/v1/sales/invoices/${invoice.id}/html?layout=evil`);
    await eventually(async () => (await render()).status === 422, 10_000, 200);

    const started = Date.now();
    let rendersDone = 0;
    const hostile = Array.from({ length: 4 }, () => render().finally(() => rendersDone++));
    // meanwhile other requests to sales are answered: while every hostile render is still running
    // (each is stopped at its limit, seconds away), so none of them holds sales' event loop. An
    // order, not a time: a bound in milliseconds failed when the machine was busy (issue 79).
    const healthStarted = Date.now();
    const health = await fetch(`${stack.services.sales!.url}/healthz`);
    const healthMs = Date.now() - healthStarted;
    const rendersDoneAtHealth = rendersDone;
    const read = await api(`/v1/sales/invoices/${invoice.id}`);
    const rendersDoneAtRead = rendersDone;
    const answers = await Promise.all(hostile);
    expect(health.status).toBe(200);
    expect(rendersDoneAtHealth, `health answered in ${healthMs} ms`).toBe(0);
    expect(read.status).toBe(200);
    expect(rendersDoneAtRead).toBe(0);
    for (const res of answers) {
      const body = await expectProblem(res, 422, 'template_limit_exceeded');
      // whichever guard stops it first: its memory on a fast machine, its render time on a slow one
      expect(body.errors?.[0]).toMatchObject({ path: 'html_template', code: expect.stringMatching(/^limit_(memory|render_time)$/) });
    }
    // bounded, not fast: two rounds of two workers at the 3 s limit, plus restarting the killed
    // renderers, took 16 s once on this 2-core machine while other test files ran beside it
    expect(Date.now() - started).toBeLessThan(30_000);
    // and the default template still renders
    const fine = await api(`/v1/sales/invoices/${invoice.id}/html`);
    expect(fine.status).toBe(200);
    expect(await fine.text()).toContain(invoice.no);
  }, 60_000);
});

describe('a credential grants only what it holds', () => {
  it('a settings:write key cannot create admin keys or clients, nor raise its own or an admin key', async () => {
    const writer = await createKey(['settings:write', 'settings:read']);
    const as = (path: string, init: Parameters<Stack['api']>[1] = {}) => api(path, { ...init, key: writer.key });

    let body = await expectProblem(await as('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'x', scopes: ['admin'] } }), 403, 'scope_not_grantable');
    expect(body.errors).toEqual([{ path: 'scopes', message: expect.stringContaining('admin'), code: 'scope_not_grantable' }]);
    await expectProblem(await as('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'x', scopes: ['sales:write'] } }), 403, 'scope_not_grantable');
    await expectProblem(await as('/v1/settings/security/clients', { method: 'POST', json: { name: 'c', scopes: ['admin'] } }), 403, 'scope_not_grantable');
    await expectProblem(await as(`/v1/settings/security/api-keys/${writer.id}`, { method: 'PUT', json: { scopes: ['admin'] } }), 403, 'scope_not_grantable');
    // the bootstrap admin key is id 1: a weaker key may not change, revoke or delete it
    await expectProblem(await as('/v1/settings/security/api-keys/1', { method: 'PUT', json: { scopes: ['settings:read'] } }), 403, 'scope_not_grantable');
    await expectProblem(await as('/v1/settings/security/api-keys/1/revoke', { method: 'POST' }), 403, 'scope_not_grantable');
    await expectProblem(await as('/v1/settings/security/api-keys/1', { method: 'DELETE' }), 403, 'scope_not_grantable');
    expect((await api('/v1/settings/organisation')).status).toBe(200);

    // within its own scopes it may grant
    const narrower = await as('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'ro', scopes: ['settings:read'] } });
    expect(narrower.status).toBe(200);
    // a client without scopes gets its creator's, not admin
    const client = await json(await as('/v1/settings/security/clients', { method: 'POST', json: { name: 'mine' } }));
    expect(client.scopes.sort()).toEqual(['settings:read', 'settings:write']);
    const token = await json(
      await api('/v1/oauth/token', { method: 'POST', key: null, json: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret } }),
    );
    expect(token.scope.split(' ').sort()).toEqual(['settings:read', 'settings:write']);
    await expectProblem(await api('/v1/sales/invoices', { key: token.access_token }), 403, 'insufficient_scope');
    // admin still grants anything
    expect((await createKey(['admin'])).scopes).toEqual(['admin']);
  });

  it('a null or missing body on clients and templates is 400 and creates nothing', async () => {
    for (const path of ['/v1/settings/security/clients', '/v1/settings/templates']) {
      await expectProblem(await api(path, { method: 'POST', body: 'null', headers: { 'content-type': 'application/json' } }), 400);
      await expectProblem(await api(path, { method: 'POST' }), 400);
    }
    const templates = await json(await api('/v1/lists/all/templates'));
    expect(templates.every((t: { code: string | null }) => t.code !== null)).toBe(true);
  });
});

describe('secrets are not kept by Idempotency-Key records', () => {
  it('stores the answer sealed, replays it to the same credential only', async () => {
    const headers = { 'idempotency-key': 'new-key-once' };
    const first = await api('/v1/settings/security/api-keys', { method: 'POST', headers, json: { name: 'ci', scopes: ['sales:read'] } });
    expect(first.status).toBe(200);
    const created = await json(first);
    const again = await api('/v1/settings/security/api-keys', { method: 'POST', headers, json: { name: 'ci', scopes: ['sales:read'] } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(again)).key).toBe(created.key);

    const db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}settings`) });
    await db.connect();
    try {
      const rows = await db.query('select response_body, secret_bearing, credential_id from kit_idempotency');
      expect(rows.rows.length).toBeGreaterThan(0);
      for (const r of rows.rows) expect(r.response_body).not.toContain(created.key);
      expect(rows.rows.find((r) => r.secret_bearing)?.response_body).toMatch(/^v1\./);
    } finally {
      await db.end();
    }

    // another admin credential with the same key is another request: a new key, never the first one's secret
    const other = await createKey(['admin']);
    const theirs = await api('/v1/settings/security/api-keys', { method: 'POST', key: other.key, headers, json: { name: 'ci', scopes: ['sales:read'] } });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((await json(theirs)).key).not.toBe(created.key);
  });
});

describe('request bodies are bounded as they stream', () => {
  /** POSTs `bytes` of JSON-ish body with Transfer-Encoding: chunked; resolves with the answer as soon as it comes. */
  const postChunked = (url: string, headers: Record<string, string>, bytes: number) =>
    new Promise<{ status: number; contentType: string; body: string }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body }));
      });
      req.on('error', (e) => (req.writableEnded ? undefined : reject(e)));
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < bytes) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.on('response', () => {
        sent = bytes; // the answer came: stop sending
      });
      pump();
    });

  it('a chunked body over BODY_LIMIT_BYTES is 413 at the gateway and at a service', async () => {
    const expect413 = (r: { status: number; contentType: string; body: string }) => {
      expect(r.status).toBe(413);
      expect(r.contentType).toMatch(/problem\+json/);
      expect(JSON.parse(r.body).code).toBe('payload_too_large');
    };
    const auth = { authorization: `Bearer ${stack.adminKey}` };
    expect413(await postChunked(`${stack.gateway.url}/v1/sales/invoices`, auth, 2 * 1024 * 1024));
    // 60 MB: read past the limit without being kept, and the client still gets its answer
    expect413(await postChunked(`${stack.gateway.url}/v1/sales/invoices`, auth, 60 * 1024 * 1024));
    const internal = { 'x-ledgerline-internal-token': stack.env.INTERNAL_TOKEN, 'x-ledgerline-org-id': '1', 'x-ledgerline-scopes': 'admin' };
    expect413(await postChunked(`${stack.services.sales!.url}/v1/sales/invoices`, internal, 2 * 1024 * 1024));
    expect((await api('/v1/sales/invoices?take=0')).status).toBe(200);
  }, 60_000);

  it('a client that hangs up halfway through its body leaves nothing behind and every process answering', async () => {
    const before = (await json(await api('/v1/sales/invoices?take=0'))).total;
    const hangUp = (url: string, headers: Record<string, string>) =>
      new Promise<void>((resolve) => {
        const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '5000', ...headers } });
        req.on('error', () => resolve());
        req.write(JSON.stringify(invoiceBody()).slice(0, 100));
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 200);
      });
    const internal = { 'x-ledgerline-internal-token': stack.env.INTERNAL_TOKEN, 'x-ledgerline-org-id': '1', 'x-ledgerline-scopes': 'admin' };
    for (let i = 0; i < 5; i++) {
      await hangUp(`${stack.gateway.url}/v1/sales/invoices`, { authorization: `Bearer ${stack.adminKey}` });
      await hangUp(`${stack.services.sales!.url}/v1/sales/invoices`, internal);
    }
    expect((await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).status).toBe(200);
    expect((await json(await api('/v1/sales/invoices?take=0'))).total).toBe(before + 1);
  });
});

describe('whatever is answered 200 reaches the ledger', () => {
  it('refuses amounts no downstream column can hold, naming the field, and posts the largest accepted ones', async () => {
    let body = await expectProblem(await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ items: [{ title: 'x', qty: 1, rate: 1e15, taxes: [] }] }) }), 400);
    expect(body.errors?.map((e) => e.path)).toContain('items[0].rate');
    body = await expectProblem(await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ items: [{ title: 'x', qty: 9, rate: 9e12, taxes: [] }] }) }), 400);
    expect(body.errors?.map((e) => e.path)).toContain('items[0].amount');
    body = await expectProblem(
      await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ currency: 'EUR', fx_rate: 25, items: [{ title: 'x', qty: 1, rate: 1e12, taxes: [] }] }) }),
      400,
    );
    expect(body.errors?.map((e) => e.path)).toContain('total_amount_leg');
    body = await expectProblem(
      await api('/v1/finance/payouts', { method: 'POST', json: { currency: 'CZK', lines: Array.from({ length: 20 }, () => ({ amount: 1e15 })) } }),
      400,
    );
    expect(body.errors?.map((e) => e.path)).toContain('lines[0].amount');
    body = await expectProblem(await api('/v1/finance/payouts', { method: 'POST', json: { currency: 'CZK', lines: [{ amount: 6e12 }, { amount: 6e12 }] } }), 400);
    expect(body.errors?.map((e) => e.path)).toContain('total_amount');

    // a number a double cannot carry exactly is refused, not rounded on its way in (JSON text
    // sent as typed: JSON.stringify would already have rounded it)
    const raw = (path: string, text: string) => api(path, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
    const invoiceText = JSON.stringify(invoiceBody({ items: [{ title: 'x', qty: 1, rate: 12345, taxes: [] }] })).replace('"rate":12345', '"rate":999999999999999.99');
    body = await expectProblem(await raw('/v1/sales/invoices', invoiceText), 400, 'inexact_number');
    expect(body.errors).toEqual([{ path: 'items[0].rate', code: 'inexact_number', message: expect.stringMatching(/^999999999999999\.99 has more than 15 significant digits.*read as 1000000000000000/) }]);
    body = await expectProblem(await raw('/v1/finance/bank/transactions', '{"amount": 0.10000000000000000555, "currency": "CZK", "date_transaction": "2026-11-23"}'), 400, 'inexact_number');
    expect(body.errors?.map((e) => e.path)).toEqual(['amount']);
    // 15 significant digits, digits inside strings and exponents are fine
    expect((await raw('/v1/finance/bank/transactions', '{"amount": 1234567890123.45, "currency": "CZK", "date_transaction": "2026-11-23", "description": "ref 12345678901234567890"}')).status).toBe(200);

    const largest = await createInvoice({ items: [{ title: 'Largest', qty: 1, rate: 9999999999999.99, taxes: [] }] });
    expect(largest.total_amount).toBe(9999999999999.99);
    const [entry] = await ledgerEntryOf(largest.no);
    expect(entry.debit).toBe(9999999999999.99);
    const bank = await api('/v1/finance/bank/transactions', { method: 'POST', json: { amount: 9999999999999.99, currency: 'CZK', date_transaction: '2026-11-23', description: 'largest' } });
    expect(bank.status).toBe(200);
    const bt = await json(bank);
    await eventually(async () => {
      const page = await json(await api('/v1/accounting/transactions?take=1000'));
      return (page.entities as Array<{ source?: { type: string; id: number }; debit: number }>).find((t) => t.source?.type === 'bank_transaction' && t.source.id === bt.id && t.debit === 9999999999999.99);
    }, 15_000, 100);
  }, 60_000);
});

describe('bad input is a 400 problem naming the field, never a 500', () => {
  it('search with %00 on every list', async () => {
    const lists = ROUTES.filter((r) => r.method === 'GET' && !r.path.includes(':') && r.query && 'shape' in r.query && 'search' in (r.query as { shape: object }).shape);
    expect(lists.length).toBeGreaterThan(5);
    for (const r of lists) {
      const body = await expectProblem(await api(`/v1${r.path}?search=ab%00c`), 400);
      expect(body.errors?.[0].path).toBe('query.search');
    }
  });

  it('NUL and lone surrogates in any string, deep nesting, year 0000 and sub-cent bank amounts', async () => {
    const raw = (path: string, text: string) => api(path, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
    let body = await expectProblem(await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ notes: 'a\u0000b' }) }), 400);
    expect(body.errors?.[0]).toMatchObject({ path: 'notes', code: 'invalid_text' });
    body = await expectProblem(await raw('/v1/sales/invoices', JSON.stringify(invoiceBody()).replace('"Acme s.r.o."', '"Acme \\ud800"')), 400);
    expect(body.errors?.[0]).toMatchObject({ path: 'customer.business_name', code: 'invalid_text' });
    const deep = '{"type":"sk.bank_a","config":' + '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) + '}';
    body = await expectProblem(await raw('/v1/settings/integrations/sk.bank_a', deep), 400);
    expect(body.errors?.[0].code).toBe('too_deep');

    body = await expectProblem(await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody({ date_issued: '0000-01-01' }) }), 400);
    expect(body.errors?.[0].path).toBe('date_issued');
    await expectProblem(await api('/v1/sales/invoices?updated_since=0000-01-01T00:00:00Z'), 400);
    await expectProblem(await api('/v1/accounting/transactions?date_posting=[0000-01-01;2026-01-01]'), 400);
    body = await expectProblem(await api('/v1/finance/bank/transactions', { method: 'POST', json: { amount: 5, currency: 'CZK', date_transaction: '0000-01-01' } }), 400);
    expect(body.errors?.[0].path).toBe('date_transaction');
    body = await expectProblem(await api('/v1/finance/bank/transactions', { method: 'POST', json: { amount: 0.004, currency: 'CZK', date_transaction: '2026-11-23' } }), 400);
    expect(body.errors?.[0].path).toBe('amount');
  });

  it('an organisation country must be a country; a payout copies only a payout of its own organisation', async () => {
    const body = await expectProblem(await api('/v1/settings/organisation', { method: 'PUT', json: { country: 'zQ' } }), 400);
    expect(body.errors?.[0].path).toBe('country');
    const cz = await api('/v1/settings/organisation', { method: 'PUT', json: { country: 'cz' } });
    expect((await json(cz)).country).toBe('CZ');

    await expectProblem(await api('/v1/finance/payouts', { method: 'POST', json: { currency: 'CZK', copy_from_id: 987654, lines: [{ amount: 1 }] } }), 422, 'copy_source_not_found');
    const other = await json(await api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Other' } }));
    const theirs = await json(await api('/v1/finance/payouts', { method: 'POST', key: other.admin_key.key, json: { currency: 'CZK', lines: [{ amount: 1 }] } }));
    await expectProblem(await api('/v1/finance/payouts', { method: 'POST', json: { currency: 'CZK', copy_from_id: theirs.id, lines: [{ amount: 1 }] } }), 422, 'copy_source_not_found');
    const mine = await json(await api('/v1/finance/payouts', { method: 'POST', json: { currency: 'CZK', lines: [{ amount: 1 }] } }));
    const copy = await api('/v1/finance/payouts', { method: 'POST', json: { currency: 'CZK', copy_from_id: mine.id, lines: [{ amount: 1 }] } });
    expect(copy.status).toBe(200);
  });
});

describe('key expiry', () => {
  it('a key whose expiry is moved earlier stops at the new expiry, not after the cache time', async () => {
    const k = await createKey(['settings:read']);
    expect((await api('/v1/settings/organisation', { key: k.key })).status).toBe(200); // now cached by the gateway
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    expect((await api(`/v1/settings/security/api-keys/${k.id}`, { method: 'PUT', json: { expires_at: expiresAt } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2000));
    await expectProblem(await api('/v1/settings/organisation', { key: k.key }), 401, 'api_key_expired');
  });
});
