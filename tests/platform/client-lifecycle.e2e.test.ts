import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '@ledgerline/service-kit';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { expectProblem, readEvents } from '../support/assertions.js';
import { secondOrganisation } from '../finance/support.js';

/*
 * An API client's life after its creation (decision 149): listed and read without its secret,
 * revoked or deleted, after which the token endpoint refuses it and the access tokens it already
 * holds stop working at once — and on a gateway that missed the revocation event, once its cached
 * answer expires.
 */

let stack: Stack;
beforeAll(async () => {
  // a short credential cache, so the test of a missed event does not wait 30 s
  stack = await startStack({ env: { CREDENTIAL_CACHE_TTL_MS: '1500' } });
}, 60_000);
afterAll(async () => stack?.close());

async function newClient(body: Record<string, unknown> = { name: 'ERP sync', scopes: ['settings:read'] }, key?: string) {
  const res = await stack.api('/v1/settings/security/clients', { method: 'POST', json: body, key });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json() as Promise<{ id: number; client_id: string; client_secret: string; name: string | null; scopes: string[] }>;
}
const tokenRequest = (client: { client_id: string; client_secret: string }) =>
  stack.api('/v1/oauth/token', { method: 'POST', key: null, json: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret } });
async function tokenOf(client: { client_id: string; client_secret: string }): Promise<string> {
  const res = await tokenRequest(client);
  expect(res.status).toBe(200);
  return (await res.json()).access_token;
}
const readWith = (token: string) => stack.api('/v1/settings/organisation', { key: token });

describe('API client lifecycle (decision 149)', () => {
  it('lists and reads clients without their secret, and shows when one last obtained a token', async () => {
    const client = await newClient();
    const fresh = await (await stack.api(`/v1/settings/security/clients/${client.id}`)).json();
    expect(fresh).toEqual({
      id: client.id,
      client_id: client.client_id,
      name: 'ERP sync',
      scopes: ['settings:read'],
      status: 'active',
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
    });
    await tokenOf(client);
    const used = await (await stack.api(`/v1/settings/security/clients/${client.id}`)).json();
    expect(Date.parse(used.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
    const listed = await (await stack.api('/v1/settings/security/clients')).json();
    expect(listed.entities.map((c: { id: number }) => c.id)).toContain(client.id);
    expect(JSON.stringify(listed)).not.toContain(client.client_secret);
    expect(JSON.stringify(listed)).not.toContain('secret');
  });

  it('a revoked client gets no token, and the tokens it holds stop working at once', async () => {
    const client = await newClient();
    const token = await tokenOf(client);
    expect((await readWith(token)).status).toBe(200);

    const revoked = await stack.api(`/v1/settings/security/clients/${client.id}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    const record = await revoked.json();
    expect(record).toMatchObject({ id: client.id, status: 'revoked', revoked_at: expect.any(String) });

    // the gateway learns of it from the event, not from its cache running out
    await eventually(async () => (await readWith(token)).status === 401, 1000, 20);
    await expectProblem(await readWith(token), 401, 'token_revoked');
    await expectProblem(await tokenRequest(client), 401, 'invalid_client');
    // revoking again changes nothing
    expect(await (await stack.api(`/v1/settings/security/clients/${client.id}/revoke`, { method: 'POST' })).json()).toEqual(record);
    const events = await readEvents(stack, 'settings', 'SETTINGS', 'settings.api_client.revoked');
    expect(events.filter((e) => e.data.api_client_id === client.id).map((e) => e.data)).toEqual([{ api_client_id: client.id, client_id: client.client_id, reason: 'revoked' }]);
  });

  it('a deleted client is gone, and so is every token it held', async () => {
    const client = await newClient();
    const token = await tokenOf(client);
    expect((await readWith(token)).status).toBe(200);
    expect(await (await stack.api(`/v1/settings/security/clients/${client.id}`, { method: 'DELETE' })).json()).toEqual({ id: client.id, deleted: true });
    await eventually(async () => (await readWith(token)).status === 401, 1000, 20);
    await expectProblem(await tokenRequest(client), 401, 'invalid_client');
    await expectProblem(await stack.api(`/v1/settings/security/clients/${client.id}`), 404, 'client_not_found');
  });

  it('a gateway that missed the revocation refuses the token once its cached answer expires', async () => {
    const client = await newClient();
    const token = await tokenOf(client);
    expect((await readWith(token)).status).toBe(200);
    // revoked behind the API's back: no event reaches the gateway
    const em = stack.services.settings!.deps.orm.em.fork();
    await sqlRows(em, 'update api_clients set revoked_at = now() where id = ?', [client.id]);
    await eventually(async () => (await readWith(token)).status === 401, 5000, 100);
    await expectProblem(await readWith(token), 401, 'token_revoked');
  });

  it("another organisation's clients are not found, and a key cannot revoke a client holding more than it", async () => {
    const client = await newClient({ name: 'admin tool', scopes: ['admin'] });
    const other = await secondOrganisation(stack, 'Clients elsewhere');
    await expectProblem(await stack.api(`/v1/settings/security/clients/${client.id}`, { key: other.key }), 404, 'client_not_found');
    await expectProblem(await stack.api(`/v1/settings/security/clients/${client.id}/revoke`, { method: 'POST', key: other.key }), 404, 'client_not_found');
    await expectProblem(await stack.api(`/v1/settings/security/clients/${client.id}`, { method: 'DELETE', key: other.key }), 404, 'client_not_found');
    expect((await (await stack.api('/v1/settings/security/clients', { key: other.key })).json()).total).toBe(0);

    const limited = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'settings only', scopes: ['settings:read', 'settings:write'] } })).json();
    await expectProblem(await stack.api(`/v1/settings/security/clients/${client.id}/revoke`, { method: 'POST', key: limited.key }), 403);
    const reader = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['settings:read'] } })).json();
    expect((await stack.api(`/v1/settings/security/clients/${client.id}`, { key: reader.key })).status).toBe(200);
    await expectProblem(await stack.api(`/v1/settings/security/clients/${client.id}/revoke`, { method: 'POST', key: reader.key }), 403);
    expect((await (await stack.api(`/v1/settings/security/clients/${client.id}`)).json()).status).toBe('active');
    // still usable
    expect((await readWith(await tokenOf(client))).status).toBe(200);
  });
});
