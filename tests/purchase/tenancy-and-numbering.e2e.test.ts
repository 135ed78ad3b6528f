import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { apiOf, billBody, expectProblem, VAT21 } from './fixtures.js';

let stack: Stack;
const api = apiOf(() => stack);

beforeAll(async () => {
  stack = await startStack({ services: ['purchase'] });
});
afterAll(async () => {
  await stack?.close();
});

async function organisation(name: string, legal_currency: string) {
  const res = await api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name, country: 'SK', legal_currency } });
  expect(res.status).toBe(200);
  const body = await res.json();
  return { orgId: body.organisation.id as number, key: body.admin_key.key as string };
}

describe('numbering under concurrency', () => {
  it('ten bills posted at once get ten consecutive numbers, no gaps, no duplicates', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => api('/v1/purchase/bills', { method: 'POST', json: billBody({ date_issued: '2025-06-01' }) })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const numbers = (await Promise.all(answers.map((r) => r.json()))).map((b) => b.no).sort();
    expect(numbers).toEqual(Array.from({ length: 10 }, (_, i) => `BILL2025${String(i + 1).padStart(5, '0')}`));
  });

  it('a rejected bill gives its number back; a number taken by hand is skipped', async () => {
    await expectProblem(await api('/v1/purchase/bills', { method: 'POST', json: billBody({ date_issued: '2024-01-10', items: [{ qty: 1, rate: 'x' }] }) }), 400);
    expect((await api('/v1/purchase/bills', { method: 'POST', json: billBody({ date_issued: '2024-01-10', no: 'BILL202400002' }) })).status).toBe(200);
    const first = await (await api('/v1/purchase/bills', { method: 'POST', json: billBody({ date_issued: '2024-02-10' }) })).json();
    const third = await (await api('/v1/purchase/bills', { method: 'POST', json: billBody({ date_issued: '2024-03-10' }) })).json();
    expect([first.no, third.no]).toEqual(['BILL202400001', 'BILL202400003']);
  });
});

describe('tenancy and scopes', () => {
  it("an organisation sees only its own documents, in lists and in the export, and cannot credit another's bill", async () => {
    const mine = await (await api('/v1/purchase/bills', { method: 'POST', json: billBody({ no: 'MINE-1' }) })).json();
    const other = await organisation('Slovak branch', 'EUR');
    const theirs = await api('/v1/purchase/bills', { key: other.key });
    expect((await theirs.json()).total).toBe(0);
    const exported = await (await api('/v1/inventory/in/export/json', { key: other.key })).json();
    expect(exported.total).toBe(0);
    const csv = await (await api('/v1/inventory/in/export/csv', { key: other.key })).text();
    expect(csv.trimEnd().split('\r\n')).toHaveLength(1);
    // The same number is free in another organisation.
    expect((await api('/v1/purchase/bills', { method: 'POST', key: other.key, json: billBody({ no: 'MINE-1', currency: 'EUR' }) })).status).toBe(200);
    await expectProblem(
      await api('/v1/purchase/vendor-credits', {
        method: 'POST',
        key: other.key,
        json: billBody({ currency: 'EUR', credited_doc_id: mine.id, items: [{ qty: 1, rate: 1, taxes: [VAT21] }] }),
      }),
      422,
      'invalid_credited_document',
    );
    await expectProblem(
      await api('/v1/purchase/bills', { method: 'POST', key: other.key, json: { type: { id: 1 }, copy_from_id: mine.id } }),
      422,
      'copy_source_not_found',
    );
  });

  it('purchase:read may list and export but not post; other scopes are refused', async () => {
    const { key } = await (await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['purchase:read'] } })).json();
    expect((await api('/v1/purchase/bills', { key })).status).toBe(200);
    expect((await api('/v1/inventory/in/export/csv', { key })).status).toBe(200);
    await expectProblem(await api('/v1/purchase/bills', { method: 'POST', key, json: billBody() }), 403, 'insufficient_scope');
    const { key: finance } = await (await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'fin', scopes: ['finance:write'] } })).json();
    await expectProblem(await api('/v1/purchase/vendor-credits', { method: 'POST', key: finance, json: billBody() }), 403, 'insufficient_scope');
  });
});

describe('currencies', () => {
  it("uses the organisation's legal currency: EUR documents of an EUR organisation need no rate, CZK ones convert at tax_fx_rate", async () => {
    const eur = await organisation('Euro org', 'EUR');
    const post = (json: unknown) => api('/v1/purchase/bills', { method: 'POST', key: eur.key, json });
    // The replica of the profile arrives by event; until then the legal currency would default to CZK.
    const own = await eventually(async () => {
      const res = await post(billBody({ currency: 'EUR', items: [{ qty: 1, rate: 100, taxes: [VAT21] }] }));
      return res.status === 200 ? res.json() : null;
    });
    expect(own).toMatchObject({ total_amount: 121, tax_fx_rate: 1 });
    expect(own.taxes[0]).toMatchObject({ tax_base_leg: 100, tax_amount_leg: 21 });

    const czk = await (await post(billBody({ currency: 'CZK', tax_fx_rate: 0.04, items: [{ qty: 1, rate: 2500, taxes: [VAT21] }] }))).json();
    expect(czk).toMatchObject({ currency: 'CZK', total_amount: 3025, tax_fx_rate: 0.04 });
    expect(czk.taxes[0]).toMatchObject({ tax_base: 2500, tax_amount: 525, tax_base_leg: 100, tax_amount_leg: 21 });
    // no tax_fx_rate, and the exchange-rate table has no USD rate
    const missing = await expectProblem(await post(billBody({ currency: 'USD' })), 422, 'fx_rate_required');
    expect(missing.errors!.map((e) => e.path)).toEqual(['tax_fx_rate']);
    // wrong anyway: every field named at once, before any rate is looked for
    const wrong = await expectProblem(await post(billBody({ currency: 'USD', items: [{ qty: 'two', rate: 100, taxes: [VAT21] }] })), 400);
    expect(wrong.errors!.map((e) => e.path)).toContain('items[0].qty');
  });
});
