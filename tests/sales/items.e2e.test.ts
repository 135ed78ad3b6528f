import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { expectProblem } from './helpers.js';
import { apiOf } from './helpers.js';

let stack: Stack;
const api = apiOf(() => stack);
let widget: any;
let gadget: any;
beforeAll(async () => {
  stack = await startStack({ services: ['sales'] });
  const post = async (json: unknown) => (await api('/v1/lists/items', { method: 'POST', json })).json();
  widget = await post({ sku: 'W-1', name: 'Widget', unit: { code: 'pc', name: 'piece' }, sales_rate: 100, currency: 'CZK', tax_rate: 21, gl_account: { number: '604' } });
  gadget = await post({ sku: 'G-1', name: 'Gadget', sales_rate: 0.07, currency: 'EUR' });
});
afterAll(async () => {
  await stack?.close();
});

const rate = async (id: number, qs = '') => api(`/v1/lists/items/${id}/rates/sales${qs ? `?${qs}` : ''}`);

describe('items and price lists', () => {
  it('creates and lists items', async () => {
    expect(widget).toMatchObject({ id: expect.any(Number), sku: 'W-1', name: 'Widget', sales_rate: 100, currency: 'CZK', tax_rate: 21, unit: { code: 'pc' } });
    const list = await (await api('/v1/lists/items?search=gadg')).json();
    expect(list).toMatchObject({ total: 1, from: 0, take: 100 });
    expect(list.entities[0].name).toBe('Gadget');
    const sorted = await (await api('/v1/lists/items?sort=-name')).json();
    expect(sorted.entities.map((i: any) => i.name)).toEqual(['Widget', 'Gadget']);
    const bad = await expectProblem(await api('/v1/lists/items', { method: 'POST', json: { name: '', sales_rate: 'x', currency: 'czk' } }), 400, 'validation_error');
    expect([...new Set(bad.errors!.map((e) => e.path))].sort()).toEqual(['currency', 'name', 'sales_rate']);
    await expectProblem(await api('/v1/lists/items?sort=colour'), 400, 'validation_error');
  });

  it('GET /v1/lists/items/{id}/rates/sales answers the item rate, netto and brutto', async () => {
    expect(await (await rate(widget.id)).json()).toEqual({ rate: 100, source: 'item', price_list_id: null });
    expect(await (await rate(widget.id, 'rate_format=brutto')).json()).toEqual({ rate: 121, source: 'item', price_list_id: null });
    expect(await (await rate(gadget.id, 'rate_format=brutto')).json()).toEqual({ rate: 0.07, source: 'item', price_list_id: null }); // no tax rate
    await expectProblem(await rate(999999), 404, 'item_not_found');
    await expectProblem(await rate(widget.id, 'rate_format=gross'), 400, 'validation_error');
    await expectProblem(await rate(widget.id, 'currency_code=EUR'), 422, 'currency_not_available');
    // edge quantities and instants are answered, not failed
    for (const qs of ['qty=1e-300', 'qty=0.0000001', 'qty=999999999999', 'reference_date=1900-01-01T00:00:00Z', 'reference_date=9999-12-31T23:59:59Z']) {
      expect(await (await rate(widget.id, qs)).json(), qs).toEqual({ rate: 100, source: 'item', price_list_id: null });
    }
    for (const qs of ['qty=0', 'qty=-1', 'qty=1e400', 'qty=NaN', 'reference_date=2026-13-01T00:00:00Z', 'reference_date=0001-01-01T00:00:00Z', `item_id=${2 ** 53}`, 'price_list_id=0']) {
      await expectProblem(await rate(widget.id, qs), 400, 'validation_error');
    }
  });

  it('GET /v1/lists/items/{id}/rates/sales picks the price list rate for the largest min_qty ≤ qty valid on the reference date', async () => {
    const res = await api('/v1/lists/price-lists', {
      method: 'POST',
      json: {
        name: 'Wholesale 2026',
        currency: 'CZK',
        is_default: true,
        valid_from: '2026-01-01',
        valid_to: '2026-12-31',
        rates: [
          { item_id: widget.id, rate: 90, min_qty: 0 },
          { item_id: widget.id, rate: 80, min_qty: 10 },
          { item_id: widget.id, rate: 70, min_qty: 100 },
        ],
      },
    });
    expect(res.status).toBe(200);
    const pl = await res.json();
    expect(pl).toMatchObject({ id: expect.any(Number), name: 'Wholesale 2026', is_default: true, rates: [{ item_id: widget.id, rate: 90, min_qty: 0 }, {}, {}] });
    const eur = await (
      await api('/v1/lists/price-lists', { method: 'POST', json: { name: 'EU', currency: 'EUR', is_default: true, rates: [{ item_id: widget.id, rate: 4 }] } })
    ).json();

    const at = (qs: string) => rate(widget.id, `reference_date=2026-06-01T12:00:00Z&${qs}`).then((r) => r.json());
    expect(await at('qty=1')).toEqual({ rate: 90, source: 'price_list', price_list_id: pl.id });
    expect(await at('qty=10')).toEqual({ rate: 80, source: 'price_list', price_list_id: pl.id });
    expect(await at('qty=99.5')).toEqual({ rate: 80, source: 'price_list', price_list_id: pl.id });
    expect(await at('qty=250&rate_format=brutto')).toEqual({ rate: 84.7, source: 'price_list', price_list_id: pl.id });
    // outside its validity the item's own rate applies
    expect(await (await rate(widget.id, 'reference_date=2027-01-01T00:00:00Z&qty=50')).json()).toEqual({ rate: 100, source: 'item', price_list_id: null });
    // another currency only through a price list in it
    expect(await at('currency_code=EUR')).toEqual({ rate: 4, source: 'price_list', price_list_id: eur.id });
    await expectProblem(await rate(widget.id, 'currency_code=USD'), 422, 'currency_not_available');
    // price_list_id restricts the search
    expect(await at(`qty=10&price_list_id=${eur.id}`)).toEqual({ rate: 100, source: 'item', price_list_id: null });
    await expectProblem(await rate(widget.id, 'price_list_id=999999'), 404, 'price_list_not_found');
  });

  it('GET /v1/lists/items/{id}/rates/sales a price list that is neither named nor the default does not change anyone\'s price', async () => {
    const item = await (await api('/v1/lists/items', { method: 'POST', json: { name: 'Gadget', currency: 'CZK', sales_rate: 50 } })).json();
    const wholesale = await (
      await api('/v1/lists/price-lists', { method: 'POST', json: { name: 'Wholesale', currency: 'CZK', rates: [{ item_id: item.id, rate: 30 }] } })
    ).json();
    expect(wholesale.is_default).toBe(false);
    // valid today, but only for callers who ask for it
    expect(await (await rate(item.id)).json()).toEqual({ rate: 50, source: 'item', price_list_id: null });
    expect(await (await rate(item.id, `price_list_id=${wholesale.id}`)).json()).toEqual({ rate: 30, source: 'price_list', price_list_id: wholesale.id });
    // a new default of the currency takes over from the previous one
    const retail = await (
      await api('/v1/lists/price-lists', { method: 'POST', json: { name: 'Retail', currency: 'CZK', is_default: true, rates: [{ item_id: item.id, rate: 45 }] } })
    ).json();
    expect(await (await rate(item.id)).json()).toEqual({ rate: 45, source: 'price_list', price_list_id: retail.id });
    const concurrent = await Promise.all(
      [1, 2, 3].map((i) => api('/v1/lists/price-lists', { method: 'POST', json: { name: `Default ${i}`, currency: 'CZK', is_default: true, rates: [{ item_id: item.id, rate: 40 + i }] } })),
    );
    expect(concurrent.map((r) => r.status)).toEqual([200, 200, 200]);
    const answer = await (await rate(item.id)).json();
    expect(answer.source).toBe('price_list');
    expect(answer.price_list_id).not.toBe(retail.id);
  });

  it('a price list naming an unknown item or with reversed validity is refused', async () => {
    const unknown = await expectProblem(
      await api('/v1/lists/price-lists', { method: 'POST', json: { name: 'X', currency: 'CZK', rates: [{ item_id: 999999, rate: 1 }] } }),
      422,
      'item_not_found',
    );
    expect(unknown.errors![0].path).toBe('rates[0].item_id');
    await expectProblem(
      await api('/v1/lists/price-lists', { method: 'POST', json: { name: 'X', currency: 'CZK', valid_from: '2026-02-01', valid_to: '2026-01-01', rates: [] } }),
      400,
      'validation_error',
    );
  });

  it('items of another organisation are 404', async () => {
    const created = await (
      await api('/v1/admin/organisations', { method: 'POST', key: stack.operatorToken, json: { name: 'Other', country: 'CZ', legal_currency: 'CZK' } })
    ).json();
    await expectProblem(await api(`/v1/lists/items/${widget.id}/rates/sales`, { key: created.admin_key.key }), 404, 'item_not_found');
    expect((await (await api('/v1/lists/items', { key: created.admin_key.key })).json()).total).toBe(0);
    // nor may another organisation's price list be named to price our item
    const theirItem = await (await api('/v1/lists/items', { method: 'POST', key: created.admin_key.key, json: { name: 'Theirs', sales_rate: 1, currency: 'CZK' } })).json();
    const theirs = await (
      await api('/v1/lists/price-lists', {
        method: 'POST',
        key: created.admin_key.key,
        json: { name: 'Theirs', currency: 'CZK', rates: [{ item_id: theirItem.id, rate: 1 }] },
      })
    ).json();
    expect(theirs.id).toBeGreaterThan(0);
    await expectProblem(await rate(widget.id, `price_list_id=${theirs.id}`), 404, 'price_list_not_found');
  });
});
