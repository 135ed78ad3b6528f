import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { JsonText, keysetPageOfJson, respond } from '@ledgerline/service-kit';

/*
 * A page of stored views is answered as one buffer its parts are encoded into once
 * (`JsonText.ofList`), never joined into a string: the bytes a client receives must be exactly
 * the UTF-8 of the page's text, whatever the views hold.
 */

const views = [
  '{"id":3,"customer":{"name":"Příliš žluťoučký kůň a.s."},"notes":"🐎 úpěl ďábelské ódy"}',
  '{"id":2,"customer":{"name":"Bench Buyer a.s."},"notes":null}',
  '{"id":1,"notes":"tab\\t, quote \\" and backslash \\\\ escaped, \\u0000 too"}',
];

describe('JsonText.ofList', () => {
  it('writes head, the items separated by commas and tail as the UTF-8 of the joined text', () => {
    const json = JsonText.ofList('{"entities":[', views, '],"aggregations":[]}');
    const expected = `{"entities":[${views.join(',')}],"aggregations":[]}`;
    const body = json.answerBody();
    expect(Buffer.isBuffer(body)).toBe(true);
    expect((body as Buffer).equals(Buffer.from(expected, 'utf8'))).toBe(true);
    expect(json.text).toBe(expected);
    expect(JSON.parse((body as Buffer).toString('utf8')).entities.map((e: { id: number }) => e.id)).toEqual([3, 2, 1]);
  });

  it('answers an empty list and a single item without a stray comma', () => {
    expect((JsonText.ofList('[', [], ']').answerBody() as Buffer).toString()).toBe('[]');
    expect((JsonText.ofList('[', ['{"a":"ž"}'], ']').answerBody() as Buffer).toString()).toBe('[{"a":"ž"}]');
  });

  it('keeps a plain text a string, answered as it is', () => {
    expect(new JsonText('{"id":1}').answerBody()).toBe('{"id":1}');
    expect(new JsonText('{"id":1}').text).toBe('{"id":1}');
  });
});

describe('a keyset page answered through the kit', () => {
  it('reaches the client byte for byte, with its length and JSON media type', async () => {
    const app = new Hono();
    app.get('/page', (c) => respond(c, keysetPageOfJson(views, { total: 3, totalExact: true, nextCursor: 'abc' }, { from: 0, take: 3 })));
    const res = await app.request('/page');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const bytes = Buffer.from(await res.arrayBuffer());
    const page = JSON.parse(bytes.toString('utf8'));
    expect(page).toEqual({ total: 3, total_exact: true, from: 0, take: 3, next_cursor: 'abc', entities: views.map((v) => JSON.parse(v)), aggregations: [] });
    expect(page.entities[0].notes).toBe('🐎 úpěl ďábelské ódy');
  });
});
