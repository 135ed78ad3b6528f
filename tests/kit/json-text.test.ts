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

describe('JsonText.ofList of spliced items', () => {
  const fill = (s: string) => Buffer.from(s, 'utf8');
  it('writes each cut stretch replaced by its fill, around text of any width', () => {
    // stretches cut at the start, in the middle beside multi-byte text, and at the end
    const parts: Array<string | [cut: string, fill: string]> = [['<a>', ''], '{"n":"ž🐎",', ['<b>', '"k"'], ':1,"m":', ['<c>', '{"name":"Účet"}'], '}', ['<d>', ' ']];
    let text = '';
    const cuts: number[] = [];
    const fills: Buffer[] = [];
    for (const p of parts) {
      if (typeof p === 'string') text += p;
      else (cuts.push(text.length, text.length + p[0].length), fills.push(fill(p[1])), (text += p[0]));
    }
    const expected = '{"n":"ž🐎","k":1,"m":{"name":"Účet"}} ';
    const json = JsonText.ofList('[', [views[1], { text, cuts, fills }, '{"x":null}'], ']');
    const body = json.answerBody() as Buffer;
    expect(body.equals(Buffer.from(`[${views[1]},${expected},{"x":null}]`, 'utf8'))).toBe(true);
    expect(json.text).toBe(`[${views[1]},${expected},{"x":null}]`);
    // a text without cuts is written whole
    expect(String(JsonText.ofList('', [{ text: views[0], cuts: [], fills: [] }], '').answerBody())).toBe(views[0]);
  });

  it('refuses a spliced item whose cuts and fills do not pair, or whose cut is not ASCII', () => {
    expect(() => JsonText.ofList('', [{ text: 'abc', cuts: [0, 1], fills: [] }], '').answerBody()).toThrow(/1 cuts and 0 fills/);
    // a cut over a two-byte character is measured a byte short: the check of every byte written says so
    expect(() => JsonText.ofList('', [{ text: 'ažc', cuts: [1, 2], fills: [fill('b')] }], '').answerBody()).toThrow(/encoded to/);
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
