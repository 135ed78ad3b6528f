import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type ApiResponse, type Stack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

async function expectProblem(res: ApiResponse, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = await res.json();
  expect(body).toMatchObject({ status, type: expect.stringMatching(/^\/problems\//), title: expect.any(String), detail: expect.any(String) });
  expect(body.request_id).toBeTruthy();
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|select |insert into/i);
  if (code) expect(body.code).toBe(code);
  return body;
}

describe('API keys through the gateway', () => {
  it('creates, lists, reads, updates, revokes and deletes a key; the secret is shown once', async () => {
    const created = await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'CI reader', scopes: ['sales:read'] } });
    expect(created.status).toBe(200);
    const key = await created.json();
    expect(key).toMatchObject({ name: 'CI reader', scopes: ['sales:read'], status: 'active', revoked_at: null });
    expect(key.key).toMatch(/^ak_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    expect(key.prefix).toBe(key.key.slice(0, 11));

    const list = await (await stack.api('/v1/settings/security/api-keys')).json();
    expect(list.total).toBe(2);
    expect(list.entities.map((k: { id: number }) => k.id)).toContain(key.id);
    expect(JSON.stringify(list)).not.toContain(key.key);

    const read = await (await stack.api(`/v1/settings/security/api-keys/${key.id}`)).json();
    expect(read.key).toBeUndefined();
    expect(read.name).toBe('CI reader');

    const updated = await stack.api(`/v1/settings/security/api-keys/${key.id}`, { method: 'PUT', json: { name: 'Renamed' } });
    expect(updated.status).toBe(200);
    expect((await updated.json()).name).toBe('Renamed');

    const revoked = await stack.api(`/v1/settings/security/api-keys/${key.id}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    const rv = await revoked.json();
    expect(rv.status).toBe('revoked');
    expect(rv.revoked_at).toBeTruthy();

    const deleted = await stack.api(`/v1/settings/security/api-keys/${key.id}`, { method: 'DELETE' });
    expect(await deleted.json()).toEqual({ id: key.id, deleted: true });
    await expectProblem(await stack.api(`/v1/settings/security/api-keys/${key.id}`), 404, 'api_key_not_found');
  });

  it('enforces scopes: sales:read reads sales paths, is refused writes and other areas', async () => {
    const { key } = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['sales:read'] } })).json();
    // The sales service is not running in this stack: a permitted call reaches the gateway's forwarding (503), not 403.
    const read = await stack.api('/v1/sales/invoices', { key });
    expect(read.status).toBe(503);
    await expectProblem(await stack.api('/v1/sales/invoices', { key, method: 'POST', json: {} }), 403, 'insufficient_scope');
    await expectProblem(await stack.api('/v1/settings/security/api-keys', { key }), 403, 'insufficient_scope');
    await expectProblem(await stack.api('/v1/accounting/transactions', { key }), 403, 'insufficient_scope');
  });

  it('refuses a missing, malformed, unknown and revoked credential with 401', async () => {
    const none = await expectProblem(await stack.api('/v1/settings/security/api-keys', { key: null }), 401, 'missing_credentials');
    expect(none.title).toBe('Unauthorized');
    const res = await stack.api('/v1/settings/security/api-keys', { key: null });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    await expectProblem(await stack.api('/v1/settings/security/api-keys', { key: 'ak_notakeyatallnotakeyatallnotakey_abcdef' }), 401, 'invalid_api_key');
    await expectProblem(await stack.api('/v1/settings/security/api-keys', { key: 'some-random-string-that-is-long' }), 401, 'invalid_api_key');

    const { id, key } = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'soon revoked', scopes: ['settings:read'] } })).json();
    expect((await stack.api('/v1/settings/security/api-keys', { key })).status).toBe(200); // now cached at the gateway
    await stack.api(`/v1/settings/security/api-keys/${id}/revoke`, { method: 'POST' });
    // The revocation event reaches the gateway within a second, well before the cache TTL.
    await eventually(async () => (await stack.api('/v1/settings/security/api-keys', { key })).status === 401, 1000, 20);
  });

  it('stops a deleted key and an expired key', async () => {
    const { id, key } = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'temp', scopes: ['admin'] } })).json();
    expect((await stack.api('/v1/settings/organisation', { key })).status).toBe(200);
    await stack.api(`/v1/settings/security/api-keys/${id}`, { method: 'DELETE' });
    await eventually(async () => (await stack.api('/v1/settings/organisation', { key })).status === 401, 1000, 20);

    const soon = new Date(Date.now() + 1500).toISOString();
    const exp = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'short', scopes: ['admin'], expires_at: soon } })).json();
    expect((await stack.api('/v1/settings/organisation', { key: exp.key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    await expectProblem(await stack.api('/v1/settings/organisation', { key: exp.key }), 401, 'api_key_expired');
    const rec = await (await stack.api(`/v1/settings/security/api-keys/${exp.id}`)).json();
    expect(rec.status).toBe('expired');
  });

  it('narrowing a key’s scopes takes effect at once', async () => {
    const { id, key } = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'wide', scopes: ['settings:read', 'settings:write'] } })).json();
    expect((await stack.api('/v1/settings/organisation', { key })).status).toBe(200);
    await stack.api(`/v1/settings/security/api-keys/${id}`, { method: 'PUT', json: { scopes: ['sales:read'] } });
    await eventually(async () => (await stack.api('/v1/settings/organisation', { key })).status === 403, 1000, 20);
  });

  it('answers bad input with problem+json naming the fields, and writes nothing', async () => {
    const before = (await (await stack.api('/v1/settings/security/api-keys')).json()).total;
    const body = await expectProblem(
      await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: '', scopes: ['everything'] } }),
      400,
      'validation_error',
    );
    expect(body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['name', 'scopes[0]']);
    await expectProblem(
      await stack.api('/v1/settings/security/api-keys', { method: 'POST', body: '{"name":', headers: { 'content-type': 'application/json' } }),
      400,
      'malformed_json',
    );
    await expectProblem(
      await stack.api('/v1/settings/security/api-keys', { method: 'POST', body: 'name=x', headers: { 'content-type': 'text/csv' } }),
      415,
      'unsupported_media_type',
    );
    await expectProblem(await stack.api('/v1/settings/security/api-keys', { headers: { accept: 'application/xml' } }), 406, 'not_acceptable');
    await expectProblem(await stack.api('/v1/settings/security/api-keys/abc'), 400, 'validation_error');
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), scopes: ['admin'] });
    await expectProblem(await stack.api('/v1/settings/security/api-keys', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } }), 413, 'payload_too_large');
    expect((await (await stack.api('/v1/settings/security/api-keys')).json()).total).toBe(before);
  });

  it('negotiates JSON media types', async () => {
    for (const [accept, type] of [
      ['application/json', 'application/json'],
      ['text/json', 'text/json'],
      ['text/plain', 'text/plain'],
      ['*/*', 'application/json'],
    ]) {
      const res = await stack.api('/v1/settings/organisation', { headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain(type);
      expect((await res.json()).legal_currency).toBe('CZK');
    }
    const patchJson = await stack.api('/v1/settings/organisation', {
      method: 'PUT',
      body: JSON.stringify({ website: 'https://example.test' }),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(patchJson.status).toBe(200);
  });

  it('reads the organisation profile back exactly as it was written (decision 174: the row read as one JSON value)', async () => {
    const profile = {
      name: 'Zlatý klas s.r.o. — "pekárna"',
      reg_no: '27074358',
      vat_no: 'CZ27074358',
      address: { company: 'Zlatý klas', address1: 'Na Příkopě 1', postal_code: '110 00', city: 'Praha', country: 'CZ' },
      info_legal: 'Zapsáno u KS v Praze, oddíl C, vložka 1\nřádek 2',
      config: { logo: 'https://example.test/logo.png?size=2&q="x"', signature: null },
      website: 'https://example.test',
      bank_account: { account_number: '2001234567/2010', iban: 'CZ6520100000002001234567', bic: 'FIOBCZPPXXX' },
      is_vat_payer: false,
      lock_date: '2025-06-30',
      rounding_increment: 0.05,
    };
    const written = await stack.api('/v1/settings/organisation', { method: 'PUT', json: profile });
    expect(written.status, await written.clone().text()).toBe(200);
    const answer = await written.json();
    expect(answer).toMatchObject(profile);
    // the PUT answers from the entity it flushed, the GET from the row as Postgres renders it
    expect(await (await stack.api('/v1/settings/organisation')).json()).toEqual(answer);
    // JSON would round the digits of a wide numeric column: the read relies on the table having
    // only numerics of at most 15 digits, which a JSON number carries exactly
    const settings = stack.services.settings!.deps.orm.em.fork();
    const numeric = await settings.getConnection().execute(
      "select column_name, numeric_precision from information_schema.columns where table_name = 'organisations' and data_type in ('numeric', 'real', 'double precision', 'money') and table_schema = current_schema()",
    );
    expect(numeric).toEqual([{ column_name: 'rounding_increment', numeric_precision: 6 }]);
    expect((await stack.api('/v1/settings/organisation', { method: 'PUT', json: { lock_date: null, is_vat_payer: true, rounding_increment: null } })).status).toBe(200);
  });

  it('answers 404 for unknown paths and 405 with Allow for a wrong method', async () => {
    await expectProblem(await stack.api('/v1/no/such/thing'), 404, 'route_not_found');
    const res = await stack.api('/v1/settings/security/api-keys/1', { method: 'POST', json: {} });
    await expectProblem(res, 405, 'method_not_allowed');
  });

  it('echoes or creates a request id', async () => {
    const res = await stack.api('/v1/settings/organisation', { headers: { 'x-request-id': 'trace-abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-abc-123');
    const res2 = await stack.api('/v1/settings/organisation');
    expect(res2.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('ignores forged internal headers from clients', async () => {
    const res = await stack.api('/v1/settings/organisation', { key: null, headers: { 'x-ledgerline-org-id': '1', 'x-ledgerline-scopes': 'admin' } });
    expect(res.status).toBe(401);
  });

  it('limits the rate per credential with 429, Retry-After and RateLimit headers', async () => {
    const { startStack: start } = await import('../support/stack.js');
    const limited = await start({ env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3' } });
    try {
      const statuses: number[] = [];
      let last: ApiResponse | undefined;
      for (let i = 0; i < 5; i++) {
        last = await limited.api('/v1/settings/organisation');
        statuses.push(last.status);
        if (last.status === 200) expect(last.headers.get('ratelimit-limit')).toBe('3');
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses[4]).toBe(429);
      expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(last!.headers.get('ratelimit-remaining')).toBe('0');
      const body = await last!.json();
      expect(body.code).toBe('rate_limited');
    } finally {
      await limited.close();
    }
  });
});
