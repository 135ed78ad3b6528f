import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createLogger } from '@ledgerline/service-kit';
import { DATABASE_URL, startStack, type Stack } from '../support/stack.js';

/**
 * PUT /v1/settings/integrations/cz/hosting/{id} (hosting integration) and POST /v1/settings/integrations/sk.bank_a (bank integration) through the gateway: validation, masking,
 * encryption at rest, and no secret in any response or log line.
 */
let stack: Stack;
let db: pg.Client;
const logs: string[] = [];
const originalWrite = { out: process.stdout.write, err: process.stderr.write };

const API_KEY = `hk_live_${randomBytes(12).toString('hex')}WXYZ`;
const SIGNATURE = `sig_${randomBytes(12).toString('hex')}9876`;
const BANK_SECRET = `bank-client-secret-${randomBytes(12).toString('hex')}`;
const SECRETS = [API_KEY, SIGNATURE, BANK_SECRET];

beforeAll(async () => {
  // Debug level: every log line the services can write is captured and searched for the secrets.
  stack = await startStack({ env: { LOG_LEVEL: 'debug', SECRETS_KEY: randomBytes(32).toString('base64') } });
  const capture = (chunk: unknown) => {
    logs.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  db = new pg.Client({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, `/${stack.env.DATABASE_PREFIX}settings`) });
  await db.connect();
});

afterAll(async () => {
  process.stdout.write = originalWrite.out;
  process.stderr.write = originalWrite.err;
  await db?.end();
  await stack?.close();
});

async function problem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return res.json() as any;
}

const hosting = (over: Record<string, unknown> = {}) => ({
  config: {
    is_tax_payer: true,
    taxes_included: false,
    auto_send_invoice: true,
    create_invoice_after: 'order_paid',
    numbering_source: 'series',
    numbering_mask: 'ES{YYYY}{#####}',
  },
  source: 'MARKETPLACE',
  name: 'Shop A',
  api_url: 'https://shop-a.example/api',
  api_key: API_KEY,
  signature: SIGNATURE,
  ...over,
});

describe('PUT /v1/settings/integrations/cz/hosting/{id}', () => {
  it('stores the integration and answers it with the secrets masked', async () => {
    const res = await stack.api('/v1/settings/integrations/cz/hosting/shop-a', { method: 'PUT', json: hosting() });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const s of SECRETS) expect(text).not.toContain(s);
    expect(JSON.parse(text)).toEqual({
      id: 'shop-a',
      config: hosting().config,
      name: 'Shop A',
      source: 'MARKETPLACE',
      api_url: 'https://shop-a.example/api',
      api_key: '****WXYZ',
      signature: '****9876',
    });
  });

  it('upserts by id: a second PUT replaces config and source and keeps secrets it does not resend', async () => {
    const res = await stack.api('/v1/settings/integrations/cz/hosting/shop-a', {
      method: 'PUT',
      json: { config: { auto_send_invoice: false }, source: 'MANUAL', api_key: '****WXYZ' },
    });
    expect(res.status).toBe(200);
    const body = await res.json() as any;
    expect(body).toMatchObject({ id: 'shop-a', config: { auto_send_invoice: false }, source: 'MANUAL', api_key: '****WXYZ', signature: '****9876', name: 'Shop A' });
    const rows = await db.query('select count(*)::int as n from hosting_integrations where integration_id = $1', ['shop-a']);
    expect(rows.rows[0].n).toBe(1);

    const cleared = await (await stack.api('/v1/settings/integrations/cz/hosting/shop-a', { method: 'PUT', json: { config: { auto_send_invoice: true }, source: 'MANUAL', signature: null } })).json() as any;
    expect(cleared.signature).toBeNull();
    expect(cleared.api_key).toBe('****WXYZ');
    // restore for the at-rest check below
    await stack.api('/v1/settings/integrations/cz/hosting/shop-a', { method: 'PUT', json: hosting() });
  });

  it('keeps the secrets encrypted at rest: the raw row bytes do not contain them', async () => {
    const { rows } = await db.query(`select t::text as raw, api_key_enc, signature_enc from hosting_integrations t where integration_id = 'shop-a'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].api_key_enc).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(rows[0].signature_enc).toMatch(/^v1\.[0-9a-f]{8}\./);
    for (const s of SECRETS) expect(rows[0].raw).not.toContain(s);
    for (const s of [API_KEY.slice(-8), SIGNATURE.slice(-8)]) expect(rows[0].raw).not.toContain(s);
  });

  it('refuses an empty body, a missing config or source, an empty config and a bad source with 400', async () => {
    const empty = await problem(await stack.api('/v1/settings/integrations/cz/hosting/x1', { method: 'PUT', json: {} }), 400);
    expect(empty.code).toBe('validation_error');
    expect(empty.errors.map((e: { path: string }) => e.path).sort()).toEqual(['config', 'source']);
    const noBody = await stack.api('/v1/settings/integrations/cz/hosting/x1', { method: 'PUT', headers: { 'content-type': 'application/json' } });
    expect(noBody.status).toBe(400);
    const emptyConfig = await problem(await stack.api('/v1/settings/integrations/cz/hosting/x1', { method: 'PUT', json: { config: {}, source: 'MANUAL' } }), 400);
    expect(emptyConfig.errors.map((e: { path: string }) => e.path)).toEqual(['config']);
    const badSource = await problem(await stack.api('/v1/settings/integrations/cz/hosting/x1', { method: 'PUT', json: { config: { is_tax_payer: true }, source: 'manual' } }), 400);
    expect(badSource.errors.map((e: { path: string }) => e.path)).toEqual(['source']);
    const badType = await problem(await stack.api('/v1/settings/integrations/cz/hosting/x1', { method: 'PUT', json: { config: { is_tax_payer: 'yes' }, source: 'MANUAL' } }), 400);
    expect(badType.errors.map((e: { path: string }) => e.path)).toEqual(['config.is_tax_payer']);
    const { rows } = await db.query(`select count(*)::int as n from hosting_integrations where integration_id = 'x1'`);
    expect(rows[0].n).toBe(0);
  });

  it('validates numbering_mask with the sales mask syntax', async () => {
    for (const mask of ['INV{YYYY}', 'X{#}{#}', 'A{QQ}{###}', '{YYYY']) {
      const body = await problem(
        await stack.api('/v1/settings/integrations/cz/hosting/x2', { method: 'PUT', json: hosting({ config: { numbering_mask: mask } }) }),
        400,
      );
      expect(body.code).toBe('validation_error');
      expect(body.errors).toEqual([expect.objectContaining({ path: 'config.numbering_mask' })]);
    }
    const ok = await stack.api('/v1/settings/integrations/cz/hosting/x2', { method: 'PUT', json: hosting({ config: { numbering_mask: 'FV{YY}{MM}{####}' } }) });
    expect(ok.status).toBe(200);
  });

  it('keeps integrations of different organisations apart under the same id', async () => {
    const created = await (
      await stack.api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Other s.r.o.', country: 'SK', legal_currency: 'EUR' } })
    ).json() as any;
    const otherKey = created.admin_key.key;
    const res = await stack.api('/v1/settings/integrations/cz/hosting/shop-a', { method: 'PUT', key: otherKey, json: { config: { is_tax_payer: false }, source: 'MANUAL' } });
    expect(res.status).toBe(200);
    const body = await res.json() as any;
    expect(body).toMatchObject({ id: 'shop-a', api_key: null, signature: null, name: null, source: 'MANUAL' });
    const { rows } = await db.query(`select org_id from hosting_integrations where integration_id = 'shop-a' order by org_id`);
    expect(rows.map((r) => Number(r.org_id))).toEqual([1, created.organisation.id]);
  });
});

describe('POST /v1/settings/integrations/sk.bank_a', () => {
  it('stores the integration, seals its config and answers without it', async () => {
    const res = await stack.api('/v1/settings/integrations/sk.bank_a', {
      method: 'POST',
      json: { key: 'main', type: 'psd2', provider_key: 'bank_a', name: 'Bank A main account', config: { client_id: 'cid-1', client_secret: BANK_SECRET, accounts: ['SK31…'] } },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(BANK_SECRET);
    expect(text).not.toContain('cid-1');
    const body = JSON.parse(text);
    expect(body).toEqual({ id: expect.any(Number), key: 'main', type: 'psd2', provider_key: 'bank_a', name: 'Bank A main account', statements: null });
    expect(body).not.toHaveProperty('config');

    const { rows } = await db.query('select t::text as raw, config_enc, provider from bank_integrations t where id = $1', [body.id]);
    expect(rows[0].provider).toBe('sk.bank_a');
    expect(rows[0].config_enc).toMatch(/^v1\./);
    expect(rows[0].raw).not.toContain(BANK_SECRET);
    expect(rows[0].raw).not.toContain('client_secret');
  });

  it('replaces the integration with the same key, and accepts a null config', async () => {
    const first = await (await stack.api('/v1/settings/integrations/sk.bank_a', { method: 'POST', json: { key: 'replace-me', type: 'psd2', config: { a: 1 } } })).json() as any;
    const second = await stack.api('/v1/settings/integrations/sk.bank_a', { method: 'POST', json: { key: 'replace-me', type: 'api', config: null } });
    expect(second.status).toBe(200);
    const body = await second.json() as any;
    expect(body).toMatchObject({ id: first.id, key: 'replace-me', type: 'api' });
    const { rows } = await db.query('select config_enc from bank_integrations where id = $1', [first.id]);
    expect(rows[0].config_enc).toBeNull();
  });

  it('requires a non-empty type', async () => {
    for (const json of [{}, { type: '' }, { type: '   ' }, { type: 7 }, { config: { a: 1 } }]) {
      const body = await problem(await stack.api('/v1/settings/integrations/sk.bank_a', { method: 'POST', json }), 400);
      expect(body.code).toBe('validation_error');
      expect(body.errors.map((e: { path: string }) => e.path)).toContain('type');
    }
    const cfg = await problem(await stack.api('/v1/settings/integrations/sk.bank_a', { method: 'POST', json: { type: 'psd2', config: 'not-an-object' } }), 400);
    expect(cfg.errors.map((e: { path: string }) => e.path)).toEqual(['config']);
  });

  it('needs settings scope', async () => {
    const { key } = await (await stack.api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'sales only', scopes: ['sales:write'] } })).json() as any;
    expect((await stack.api('/v1/settings/integrations/sk.bank_a', { method: 'POST', key, json: { type: 'psd2' } })).status).toBe(403);
    expect((await stack.api('/v1/settings/integrations/cz/hosting/a', { method: 'PUT', key, json: hosting() })).status).toBe(403);
  });
});

describe('secrets never reach a log line', () => {
  it('the kit logger redacts the secret fields should a request body ever be logged', async () => {
    const log = createLogger('settings', 'debug');
    log.info('hosting integration received', { body: hosting() });
    log.warn('bank integration received', { body: { type: 'psd2', config: { client_secret: BANK_SECRET } } });
    const written = logs.slice(-2).join('');
    expect(written).toContain('hosting integration received');
    for (const s of SECRETS) expect(written).not.toContain(s);
  });

  it('the debug-level output of gateway and services during this file holds none of the secrets', async () => {
    const all = logs.join('');
    for (const s of SECRETS) expect(all).not.toContain(s);
  });
});
