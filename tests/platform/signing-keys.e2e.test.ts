import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { SecretBox, parseSecretsKey } from '@ledgerline/service-kit';
import { DATABASE_URL, eventually, startStack, type Stack } from '../support/stack.js';

/**
 * The private keys that sign access tokens are sealed at rest with the settings secret box
 * (SECRETS_KEY): the signing_keys table holds no private key material, keys stored in clear by
 * an earlier version are sealed at boot (or when first used), and tokens keep verifying at the
 * gateway throughout.
 */
const SECRETS_KEY = randomBytes(32).toString('base64');
const box = new SecretBox(parseSecretsKey(SECRETS_KEY));
const aad = (kid: string) => `signing_key:${kid}:private_jwk`;

let stack: Stack;
let db: pg.Client;
beforeAll(async () => {
  stack = await startStack({ env: { SECRETS_KEY } });
  db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}settings`) });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.close();
});

interface KeyRow {
  kid: string;
  public_jwk: Record<string, unknown>;
  private_jwk: Record<string, unknown> | null;
  private_jwk_sealed: string | null;
  raw: string;
}

async function keyRows(): Promise<KeyRow[]> {
  const { rows } = await db.query(
    'select kid, public_jwk, private_jwk, private_jwk_sealed, row_to_json(k)::text as raw from signing_keys k order by created_at',
  );
  return rows;
}

/** Every row sealed: no plaintext column, the sealed value opens to a private JWK whose `d` appears nowhere in the row. */
async function expectAllSealed(): Promise<KeyRow[]> {
  const rows = await keyRows();
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    expect(r.private_jwk).toBeNull();
    expect(r.private_jwk_sealed).toMatch(new RegExp(`^v1\\.${box.kid}\\.`));
    const opened = JSON.parse(box.open(r.private_jwk_sealed!, aad(r.kid)));
    expect(opened).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: r.kid, x: r.public_jwk.x });
    expect(typeof opened.d).toBe('string');
    expect(r.raw).not.toContain(opened.d);
    expect(r.raw).not.toMatch(/"d"\s*:/);
  }
  return rows;
}

async function plaintextKey(createdAt: string) {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const kid = randomUUID();
  const priv = { ...(await exportJWK(privateKey)), kid, alg: 'EdDSA' };
  await db.query(
    `insert into signing_keys (kid, public_jwk, private_jwk, created_at) values ($1, $2, $3, ${createdAt})`,
    [kid, { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' }, priv],
  );
  return { kid, d: priv.d as string };
}

let client: { client_id: string; client_secret: string };
async function token(): Promise<{ access_token: string; kid: string }> {
  const res = await stack.api('/v1/oauth/token', { method: 'POST', key: null, json: { grant_type: 'client_credentials', ...client } });
  expect(res.status, await res.clone().text()).toBe(200);
  const t = await res.json();
  return { access_token: t.access_token, kid: decodeProtectedHeader(t.access_token).kid! };
}

/** The gateway accepts the token (it refetches the JWKS for a new kid after a short cooldown). */
async function verifiesAtGateway(accessToken: string) {
  const res = await eventually(async () => {
    const r = await stack.api('/v1/settings/organisation', { key: accessToken });
    return r.status === 200 ? r : undefined;
  }, 10_000, 250);
  expect((await res.json()).legal_currency).toBe('CZK');
}

describe('signing keys at rest', () => {
  it('the key made at first start is sealed, and its tokens verify at the gateway', async () => {
    const [first] = await expectAllSealed();
    client = await (await stack.api('/v1/settings/security/clients', { method: 'POST', json: { name: 'sync', scopes: ['settings:read'] } })).json();
    const t = await token();
    expect(t.kid).toBe(first.kid);
    await verifiesAtGateway(t.access_token);
    // the JWKS publishes public keys only
    const res = await fetch(`${stack.services.settings!.url}/internal/jwks`, { headers: { 'x-ledgerline-internal-token': stack.env.INTERNAL_TOKEN } });
    const jwks = (await res.json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.map((k) => k.kid)).toContain(first.kid);
    for (const k of jwks.keys) expect(k).not.toHaveProperty('d');
  });

  it('keys stored in clear by an earlier version are sealed at boot', async () => {
    const legacy = await plaintextKey(`now() - interval '1 day'`);
    expect((await keyRows()).find((r) => r.kid === legacy.kid)!.raw).toContain(legacy.d);
    await stack.restartService('settings');
    const rows = await expectAllSealed();
    expect(rows.map((r) => r.kid)).toContain(legacy.kid);
    expect(JSON.parse(box.open(rows.find((r) => r.kid === legacy.kid)!.private_jwk_sealed!, aad(legacy.kid))).d).toBe(legacy.d);
    await verifiesAtGateway((await token()).access_token);
  });

  it('a newest key still in clear is used and sealed on first use', async () => {
    const legacy = await plaintextKey(`now() + interval '1 second'`);
    const t = await token();
    expect(t.kid).toBe(legacy.kid);
    await expectAllSealed();
    await verifiesAtGateway(t.access_token);
  });

  it('a newest key sealed under another SECRETS_KEY is replaced by a new key; tokens keep verifying', async () => {
    const [newest] = (await keyRows()).slice(-1);
    const other = new SecretBox(randomBytes(32));
    await db.query('update signing_keys set private_jwk_sealed = $2 where kid = $1', [newest.kid, other.seal('{"kty":"OKP"}', aad(newest.kid))]);
    const t = await token();
    expect(t.kid).not.toBe(newest.kid);
    const rows = await keyRows();
    expect(rows.map((r) => r.kid)).toContain(t.kid);
    for (const r of rows.filter((x) => x.kid !== newest.kid)) expect(r.private_jwk).toBeNull();
    await verifiesAtGateway(t.access_token);
  });
});
