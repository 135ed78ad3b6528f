import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startStack, type Stack } from '../support/stack.js';
import { apiOf, expectProblem, readEvents } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const api = apiOf(() => stack);

const TEMPLATE = {
  code: 'modern',
  name: 'Modern invoice',
  design: 'modern',
  html_template: '<h1>{{ title }} {{ doc.no }}</h1><p>{{ doc.total_amount | money }}</p>',
  pdf_options: { page_size: 'Letter', orientation: 'portrait', margin_top: 10, margin_bottom: 10, margin_left: 8, margin_right: 8 },
  config: { brand_color_primary: '#0a7d5a', brand_color_secondary: 'navy', brand_color_alternative: null },
  l10n: [
    { culture: 'cs-CZ', resource: 'invoice', value: 'Daňový doklad' },
    { culture: 'en-US', resource: 'invoice', value: 'Tax invoice' },
  ],
  languages: ['cs-CZ', 'en-US'],
};

describe('templates', () => {
  it('saves a template, answers the stored template and announces it on the bus', async () => {
    const res = await api('/v1/settings/templates', { method: 'POST', json: TEMPLATE });
    expect(res.status).toBe(200);
    const saved = await res.json();
    expect(saved).toMatchObject({
      id: expect.any(Number),
      code: 'modern',
      name: 'Modern invoice',
      html_template: TEMPLATE.html_template,
      url: null,
      file: null,
      pdf_options: TEMPLATE.pdf_options,
      config: TEMPLATE.config,
      languages: ['cs-CZ', 'en-US'],
    });
    expect(saved.l10n).toEqual([
      { id: 1, culture: 'cs-CZ', resource: 'invoice', value: 'Daňový doklad' },
      { id: 2, culture: 'en-US', resource: 'invoice', value: 'Tax invoice' },
    ]);
    const events = await eventually(async () => {
      const e = await readEvents(stack, 'settings', 'SETTINGS', 'settings.template.saved');
      return e.find((x) => x.data.id === saved.id) ? e : null;
    });
    const ev = events.find((x) => x.data.id === saved.id)!;
    expect(ev.type).toBe('com.ledgerline.settings.template.saved.v1');
    expect(ev.data).toEqual(saved);
  });

  it('replaces the template with the same code (same id, new content)', async () => {
    const first = await (await api('/v1/settings/templates', { method: 'POST', json: { ...TEMPLATE, code: 'classic', name: 'Classic v1' } })).json();
    const second = await (await api('/v1/settings/templates', { method: 'POST', json: { ...TEMPLATE, code: 'classic', name: 'Classic v2', design: null } })).json();
    expect(second.id).toBe(first.id);
    expect(second.name).toBe('Classic v2');
    const list = await (await api('/v1/lists/all/templates?search=classic')).json();
    expect(list).toEqual([{ id: first.id, code: 'classic', name: 'Classic v2', design: null, languages: ['cs-CZ', 'en-US'] }]);
  });

  it('lists template summaries as an array, by search over code, name and design, paged', async () => {
    await api('/v1/settings/templates', { method: 'POST', json: { code: 'reminder', name: 'Payment REMINDER', html_template: '<p>{{ doc.no }}</p>' } });
    const all = await (await api('/v1/lists/all/templates')).json();
    expect(Array.isArray(all)).toBe(true);
    expect(all.map((t: { code: string }) => t.code)).toEqual(expect.arrayContaining(['modern', 'classic', 'reminder']));
    for (const t of all) expect(Object.keys(t).sort()).toEqual(['code', 'design', 'id', 'languages', 'name']);
    expect((await (await api('/v1/lists/all/templates?search=reminder')).json()).map((t: { code: string }) => t.code)).toEqual(['reminder']);
    expect((await (await api('/v1/lists/all/templates?search=Modern%20INV')).json()).map((t: { code: string }) => t.code)).toEqual(['modern']);
    expect(await (await api('/v1/lists/all/templates?search=nothing-like-this')).json()).toEqual([]);
    expect(await (await api('/v1/lists/all/templates?search=%25')).json()).toEqual([]);
    const page = await (await api('/v1/lists/all/templates?from=1&take=1')).json();
    expect(page).toEqual([all[1]]);
    expect((await (await api('/v1/lists/all/templates?type=invoice')).json()).length).toBe(all.length);
    const bad = await expectProblem(await api('/v1/lists/all/templates?type=purchase_order'), 400, 'validation_error');
    expect(bad.errors?.[0].path).toBe('type');
    await expectProblem(await api('/v1/lists/all/templates?take=1001'), 400, 'validation_error');
  });

  it('refuses templates that reach for the file system, bad colours and bad cultures (400 naming the field)', async () => {
    const inc = await expectProblem(await api('/v1/settings/templates', { method: 'POST', json: { code: 'evil', html_template: "{% include '/etc/passwd' %}" } }), 400, 'validation_error');
    expect(inc.errors?.map((e) => e.path)).toEqual(['html_template']);
    const render = await expectProblem(await api('/v1/settings/templates', { method: 'POST', json: { code: 'evil', html_template: "{% render 'secrets' %}" } }), 400);
    expect(render.errors?.[0].path).toBe('html_template');
    const syntax = await expectProblem(await api('/v1/settings/templates', { method: 'POST', json: { code: 'evil', html_template: '{% if %}' } }), 400);
    expect(syntax.errors?.[0].path).toBe('html_template');
    const colour = await expectProblem(await api('/v1/settings/templates', { method: 'POST', json: { code: 'evil', config: { brand_color_primary: 'red;} body{display:none' } } }), 400);
    expect(colour.errors?.[0].path).toBe('config.brand_color_primary');
    const culture = await expectProblem(await api('/v1/settings/templates', { method: 'POST', json: { code: 'evil', l10n: [{ culture: 'not a culture!', resource: 'x', value: 'y' }] } }), 400);
    expect(culture.errors?.[0].path).toBe('l10n[0].culture');
    const shape = await expectProblem(await api('/v1/settings/templates', { method: 'POST', json: { code: 'evil', pdf_options: { orientation: 'sideways' } } }), 400);
    expect(shape.errors?.[0].path).toBe('pdf_options.orientation');
    expect(await (await api('/v1/lists/all/templates?search=evil')).json()).toEqual([]);
    await expectProblem(await api('/v1/settings/templates', { method: 'POST', json: { id: 999999, code: 'x' } }), 404, 'template_not_found');
  });

  it('keeps templates per organisation', async () => {
    const org = await (await api('/v1/admin/organisations', { method: 'POST', key: null, headers: { authorization: `Bearer ${stack.operatorToken}` }, json: { name: 'Other s.r.o.' } })).json();
    const otherKey = org.admin_key.key;
    expect(await (await api('/v1/lists/all/templates', { key: otherKey })).json()).toEqual([]);
    const mine = await (await api('/v1/settings/templates', { method: 'POST', key: otherKey, json: { code: 'modern', name: 'Theirs' } })).json();
    const ours = (await (await api('/v1/lists/all/templates?search=modern')).json())[0];
    expect(mine.id).not.toBe(ours.id);
    expect(ours.name).toBe('Modern invoice');
  });
});

describe('delivery conditions', () => {
  it('lists the eleven Incoterms 2020 rules in a paged envelope', async () => {
    const res = await api('/v1/settings/delivery-conditions');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.total).toBe(11);
    expect(body.from).toBe(0);
    expect(body.aggregations).toEqual([]);
    expect(body.entities.map((d: { code: string }) => d.code)).toEqual(['EXW', 'FCA', 'CPT', 'CIP', 'DAP', 'DPU', 'DDP', 'FAS', 'FOB', 'CFR', 'CIF']);
  });

  it('finds FOB by code with its localised names', async () => {
    const body = await (await api('/v1/settings/delivery-conditions?search=FOB')).json();
    expect(body.total).toBe(1);
    const [fob] = body.entities;
    expect(fob).toMatchObject({ id: expect.any(Number), code: 'FOB', name: 'Free on Board' });
    expect(fob.l10n.map((l: { culture: string; name: string }) => [l.culture, l.name])).toEqual([
      ['en-US', 'Free on Board'],
      ['cs-CZ', 'Vyplaceně loď'],
      ['sk-SK', 'Franko paluba lode'],
    ]);
    for (const l of fob.l10n) expect(Number.isInteger(l.id)).toBe(true);
  });

  it('searches the localised names, sorts, pages, names `name` in a culture', async () => {
    const cz = await (await api('/v1/settings/delivery-conditions?search=PŘEPRAVA%20placena')).json();
    expect(cz.entities.map((d: { code: string }) => d.code)).toEqual(['CPT']);
    const sk = await (await api(`/v1/settings/delivery-conditions?search=${encodeURIComponent('dodaním')}&sort=-code`)).json();
    expect(sk.entities.map((d: { code: string }) => d.code)).toEqual(['DPU', 'DDP', 'DAP']);
    const paged = await (await api('/v1/settings/delivery-conditions?sort=code&from=2&take=3')).json();
    expect(paged).toMatchObject({ total: 11, from: 2, take: 3 });
    expect(paged.entities.map((d: { code: string }) => d.code)).toEqual(['CIP', 'CPT', 'DAP']);
    const named = await (await api('/v1/settings/delivery-conditions?search=exw&culture=cs-CZ')).json();
    expect(named.entities[0].name).toBe('Ze závodu');
    const bad = await expectProblem(await api('/v1/settings/delivery-conditions?sort=price'), 400, 'validation_error');
    expect(bad.errors?.[0].path).toBe('sort');
  });
});
