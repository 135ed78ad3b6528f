import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

async function newOrganisation(name: string) {
  const res = await stack.api('/v1/admin/organisations', {
    method: 'POST',
    key: stack.operatorToken,
    json: { name, country: 'SK', legal_currency: 'EUR' },
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe('API clients and access tokens', () => {
  it('creates a client whose secret is shown once, and exchanges it for a working token', async () => {
    const res = await stack.api('/v1/settings/security/clients', { method: 'POST', json: { name: 'ERP sync', scopes: ['settings:read'] } });
    expect(res.status).toBe(200);
    const client = await res.json();
    expect(client.id).toEqual(expect.any(Number));
    expect(client.client_id).toMatch(/^cl_/);
    expect(client.client_secret).toMatch(/^cs_/);

    const token = await stack.api('/v1/oauth/token', {
      method: 'POST',
      key: null,
      json: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
    });
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    const t = await token.json();
    expect(t).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'settings:read' });

    const org = await stack.api('/v1/settings/organisation', { key: t.access_token });
    expect(org.status).toBe(200);
    expect((await org.json()).legal_currency).toBe('CZK');
    // scopes carried by the token are enforced
    const write = await stack.api('/v1/settings/organisation', { key: t.access_token, method: 'PUT', json: { website: 'x' } });
    expect(write.status).toBe(403);
  });

  it('accepts the RFC 6749 form encoding and HTTP Basic client authentication', async () => {
    const client = await (await stack.api('/v1/settings/security/clients', { method: 'POST', json: {} })).json();
    const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
    const res = await stack.api('/v1/oauth/token', {
      method: 'POST',
      key: null,
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(200);
    const t = await res.json();
    expect((await stack.api('/v1/settings/security/api-keys', { key: t.access_token })).status).toBe(200);
  });

  it('refuses a wrong secret, a wrong grant and a tampered token', async () => {
    const client = await (await stack.api('/v1/settings/security/clients', { method: 'POST', json: {} })).json();
    const wrong = await stack.api('/v1/oauth/token', {
      method: 'POST',
      key: null,
      json: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: otherLastChar(client.client_secret) },
    });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe('invalid_client');
    const grant = await stack.api('/v1/oauth/token', { method: 'POST', key: null, json: { grant_type: 'password', client_id: 'a', client_secret: 'b' } });
    expect(grant.status).toBe(400);
    expect((await grant.json()).errors[0].path).toBe('grant_type');

    const t = await (
      await stack.api('/v1/oauth/token', { method: 'POST', key: null, json: { grant_type: 'client_credentials', ...client } })
    ).json();
    const [h, p, s] = t.access_token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.org = 999;
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    const res = await stack.api('/v1/settings/organisation', { key: forged });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('invalid_token');
  });
});

/** The secret with its last character changed (to one it is certainly not). */
function otherLastChar(secret: string): string {
  return secret.slice(0, -1) + (secret.endsWith('x') ? 'y' : 'x');
}

describe('organisations and tenancy', () => {
  it('lets only the operator create organisations', async () => {
    const res = await stack.api('/v1/admin/organisations', { method: 'POST', json: { name: 'Sneaky' } });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('operator_token_required');
  });

  it('answers 404 for another organisation’s resources and never lists them', async () => {
    const b = await newOrganisation('Second s.r.o.');
    expect(b.organisation).toMatchObject({ name: 'Second s.r.o.', country: 'SK', legal_currency: 'EUR' });
    const bKey = b.admin_key.key;
    expect(bKey).toMatch(/^ak_/);

    const aKey = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'A only', scopes: ['sales:read'] } })).json();
    const crossRead = await stack.api(`/v1/settings/security/api-keys/${aKey.id}`, { key: bKey });
    expect(crossRead.status).toBe(404);
    const crossRevoke = await stack.api(`/v1/settings/security/api-keys/${aKey.id}/revoke`, { method: 'POST', key: bKey });
    expect(crossRevoke.status).toBe(404);
    const crossDelete = await stack.api(`/v1/settings/security/api-keys/${aKey.id}`, { method: 'DELETE', key: bKey });
    expect(crossDelete.status).toBe(404);
    const bList = await (await stack.api('/v1/settings/security/api-keys', { key: bKey })).json();
    expect(bList.entities.map((k: { id: number }) => k.id)).not.toContain(aKey.id);
    expect((await (await stack.api(`/v1/settings/security/api-keys/${aKey.id}`)).json()).status).toBe('active');

    const bOrg = await (await stack.api('/v1/settings/organisation', { key: bKey })).json();
    expect(bOrg.name).toBe('Second s.r.o.');
    const aOrg = await (await stack.api('/v1/settings/organisation')).json();
    expect(aOrg.id).not.toBe(bOrg.id);
  });

  it('validates the organisation profile', async () => {
    const res = await stack.api('/v1/settings/organisation', { method: 'PUT', json: { country: 'CZE', legal_currency: 'czk', peppol_id: 'nope' } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect([...new Set(body.errors.map((e: { path: string }) => e.path))].sort()).toEqual(['country', 'legal_currency', 'peppol_id']);
  });
});
