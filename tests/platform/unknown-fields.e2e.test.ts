import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ROUTES } from '@ledgerline/contracts';
import { startStack, type Stack } from '../support/stack.js';
import { apiOf, expectProblem } from '../support/assertions.js';
import { CUSTOMER, invoiceBody } from '../sales/helpers.js';
import { PURCHASE_TYPE, billBody } from '../purchase/fixtures.js';

/*
 * A field or query parameter an operation does not know is refused (decision 146), through the
 * gateway: a misspelt address field used to be dropped, and the invoice issued without the
 * street; a misspelt filter answered the list unfiltered. What an operation answers can be sent
 * back to it (its read-only fields pass unread).
 */

let stack: Stack;
const api = apiOf(() => stack);

beforeAll(async () => {
  stack = await startStack({ services: ['sales', 'purchase', 'finance', 'accounting'] });
}, 120_000);
afterAll(async () => stack?.close());

const invoiceCount = async () => (await (await api('/v1/sales/invoices?take=0')).json()).total as number;

describe('unknown fields are refused, and nothing is written', () => {
  it('an invoice whose customer address says street and zip (not address1, postal_code) is 400 naming both, and is not made', async () => {
    const before = await invoiceCount();
    const res = await api('/v1/sales/invoices', {
      method: 'POST',
      json: invoiceBody({ customer: { ...CUSTOMER, address: { street: 'Dlouhá 5', city: 'Brno', zip: '602 00', country: 'CZ' } } }),
    });
    const problem = await expectProblem(res, 400, 'validation_error');
    expect(problem.detail).toBe('The request body has fields this operation does not know: customer.address.street, customer.address.zip');
    expect(problem.errors).toEqual([
      { path: 'customer.address.street', code: 'unrecognized_keys', message: 'unknown field: not one this operation takes' },
      { path: 'customer.address.zip', code: 'unrecognized_keys', message: 'unknown field: not one this operation takes' },
    ]);
    expect(await invoiceCount()).toBe(before);
  });

  it('a schema failure and an unknown field are answered together', async () => {
    const body = invoiceBody({ items: [{ title: 'Consulting', qty: 'two', rate: 100, price: 100 }] });
    const problem = await expectProblem(await api('/v1/sales/invoices', { method: 'POST', json: body }), 400, 'validation_error');
    expect(problem.errors!.map((e) => [e.path, e.code])).toEqual([
      ['items[0].qty', 'invalid_type'],
      ['items[0].price', 'unrecognized_keys'],
    ]);
  });

  it('a vendor bill with an unknown field is refused, and so is one copying another (copy_from_id)', async () => {
    const bill = billBody();
    const made = await api('/v1/purchase/bills', { method: 'POST', json: bill });
    expect(made.status).toBe(200);
    const source = await made.json();
    const refused = await expectProblem(await api('/v1/purchase/bills', { method: 'POST', json: { ...bill, vendor_note: 'x' } }), 400, 'validation_error');
    expect(refused.errors!.map((e) => e.path)).toEqual(['vendor_note']);
    const copy = await expectProblem(
      await api('/v1/purchase/bills', { method: 'POST', json: { type: PURCHASE_TYPE, copy_from_id: source.id, date_isued: '2026-11-21' } }),
      400,
      'validation_error',
    );
    expect(copy.errors!.map((e) => e.path)).toEqual(['date_isued']);
    // the copy with known fields only is made
    const copied = await api('/v1/purchase/bills', { method: 'POST', json: { type: PURCHASE_TYPE, copy_from_id: source.id, date_issued: '2026-11-21' } });
    expect(copied.status).toBe(200);
    expect((await copied.json()).total_amount).toBe(source.total_amount);
  });

  it('every JSON operation with a body refuses a field it does not know', async () => {
    const refused: string[] = [];
    for (const route of ROUTES) {
      // the token endpoint ignores unknown parameters, as OAuth 2.0 (RFC 6749 §3.2) requires
      if (!route.body || route.open || route.operatorOnly || route.consumes?.every((t) => !t.includes('json'))) continue;
      // a list of ids (compliance evaluation) has no fields
      if (route.body instanceof z.ZodArray) continue;
      // an id that names nothing: an operation on one resource may answer 404 before it reads the body
      // (parameters of a shape of their own take a valid one, so the body is what is judged)
      const path = route.path.replace(':currency', 'EUR').replace(':date', '2026-01-01').replace(/:[a-z_]+/g, '999999').replace('/export/999999', '/export/json');
      const res = await api(`/v1${path}`, { method: route.method, json: { zz_not_a_field: 1 } });
      const name = `${route.method} ${route.path}`;
      if (res.status === 404 && route.pathParams) continue;
      const problem = await expectProblem(res, 400, 'validation_error');
      expect({ name, unknown: problem.errors!.filter((e) => e.code === 'unrecognized_keys').map((e) => e.path) }).toEqual({ name, unknown: ['zz_not_a_field'] });
      refused.push(name);
    }
    expect(refused.length).toBeGreaterThanOrEqual(15);
  });

  it('an operation on an existing resource refuses an unknown field too, and changes nothing', async () => {
    const made = await api('/v1/settings/security/api-keys', { method: 'POST', json: { name: 'reader', scopes: ['sales:read'] } });
    expect(made.status).toBe(200);
    const key = await made.json();
    const refused = await expectProblem(
      await api(`/v1/settings/security/api-keys/${key.id}`, { method: 'PUT', json: { name: 'writer', scope: ['sales:write'] } }),
      400,
      'validation_error',
    );
    expect(refused.errors!.map((e) => e.path)).toEqual(['scope']);
    const list = await (await api('/v1/settings/security/api-keys?take=1000')).json();
    expect((list.entities as Array<{ id: number; name: string; scopes: string[] }>).find((k) => k.id === key.id)).toMatchObject({ name: 'reader', scopes: ['sales:read'] });
  });
});

describe('unknown query parameters are refused', () => {
  it('a misspelt list filter is 400, not the whole list', async () => {
    const problem = await expectProblem(await api('/v1/sales/invoices?stauts=paid&take=5'), 400, 'validation_error');
    expect(problem.detail).toBe('The query string has a parameter this operation does not know: stauts');
    expect(problem.errors).toEqual([{ path: 'stauts', code: 'unrecognized_keys', message: 'unknown parameter: not one this operation takes' }]);
  });

  it('an operation without parameters refuses any it is sent', async () => {
    const problem = await expectProblem(await api('/v1/settings/organisation?expand=all'), 400, 'validation_error');
    expect(problem.errors!.map((e) => e.path)).toEqual(['expand']);
    expect((await api('/v1/settings/organisation')).status).toBe(200);
  });
});

describe('what an operation answers can be sent back to it', () => {
  it('the organisation read and written back unchanged', async () => {
    const read = await (await api('/v1/settings/organisation')).json();
    const res = await api('/v1/settings/organisation', { method: 'PUT', json: read });
    expect(res.status).toBe(200);
    const written = await res.json();
    expect({ ...written, updated_at: read.updated_at }).toEqual(read);
  });

  it('an invoice read back as the body of a new one (its number left off) makes the same figures', async () => {
    const first = await (await api('/v1/sales/invoices', { method: 'POST', json: invoiceBody() })).json();
    const read = await (await api(`/v1/sales/invoices/${first.id}`)).json();
    const { no: _no, ...body } = read;
    const res = await api('/v1/sales/invoices', { method: 'POST', json: body });
    expect(res.status).toBe(200);
    const second = await res.json();
    expect(second.id).not.toBe(first.id);
    expect([second.subtotal_amount, second.tax_amount, second.total_amount]).toEqual([first.subtotal_amount, first.tax_amount, first.total_amount]);
    expect(second.customer.address).toEqual(CUSTOMER.address);
  });
});
