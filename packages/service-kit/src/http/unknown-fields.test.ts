import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invoiceRequestSchema, invoiceSchema } from '@ledgerline/contracts/sales';
import { unknownFields } from './unknown-fields.js';
import { formatPath, parseRequest } from './validation.js';
import { ValidationError } from '../errors.js';

const paths = (schema: z.ZodType, value: unknown, readOnly?: z.ZodType) => unknownFields(schema, value, readOnly).map((p) => formatPath(p));

const invoice = {
  customer: { business_name: 'Acme s.r.o.', vat_no: 'CZ12345678', address: { address1: 'Dlouhá 5', city: 'Brno', postal_code: '602 00', country: 'CZ' } },
  currency: 'CZK',
  date_issued: '2026-11-23',
  items: [
    { title: 'Widget', qty: 2, rate: 100, taxes: [{ tax_code: 'S', tax_rate: 21 }] },
    { title: 'Book', qty: 1, rate: 50, taxes: [{ tax_code: 'R', tax_rate: 12 }] },
  ],
};

describe('unknownFields: the contracts’ invoice', () => {
  it('knows every field of a well-formed invoice request', () => {
    expect(invoiceRequestSchema.safeParse(invoice).success).toBe(true);
    expect(paths(invoiceRequestSchema, invoice, invoiceSchema)).toEqual([]);
  });

  it('names misspelt fields at every depth, depth first in the order they were sent', () => {
    const body = {
      ...invoice,
      customer: { ...invoice.customer, address: { ...invoice.customer.address, street: 'Dlouhá 5', zip: '602 00' } },
      items: [invoice.items[0], { ...invoice.items[1], price: 50, taxes: [{ tax_code: 'R', tax_rate: 12, rate: 12 }] }],
      duedate: '2026-12-01',
    };
    expect(paths(invoiceRequestSchema, body, invoiceSchema)).toEqual([
      'customer.address.street',
      'customer.address.zip',
      'items[1].taxes[0].rate',
      'items[1].price',
      'duedate',
    ]);
  });

  it('lets the fields of the answered resource through, so a read invoice can be sent back', () => {
    const answered = {
      ...invoice,
      id: 7,
      uid: '08557c5c-bd3b-4b6b-b38d-b26789a33236',
      created_at: '2026-11-23T10:00:00Z',
      total_amount: 298,
      amount_due: 298,
      currency_leg: 'CZK',
      taxes: [{ tax_code: 'S', tax_rate: 21, tax_base: 200, tax_amount: 42, tax_amount_leg: 42 }],
      items: [{ ...invoice.items[0], id: 1, amount: 200, taxes: [{ tax_code: 'S', tax_rate: 21, tax_amount: 42 }] }],
    };
    expect(paths(invoiceRequestSchema, answered, invoiceSchema)).toEqual([]);
    // the request declares most computed fields itself (accepted and ignored); not the legal currency
    expect(paths(invoiceRequestSchema, answered)).toEqual(['currency_leg']);
  });

  it('does not look into a field only the answer has, whatever it holds', () => {
    const request = z.object({ name: z.string() });
    const answer = z.object({ name: z.string(), totals: z.object({ sum: z.number() }) });
    expect(paths(request, { name: 'a', totals: { sum: 1, other: 2 } }, answer)).toEqual([]);
    expect(paths(request, { name: 'a', totals: 1, other: 2 }, answer)).toEqual(['other']);
  });
});

describe('unknownFields: schema forms', () => {
  it('does not look into records, catch-alls and unknown values', () => {
    const schema = z.object({ config: z.record(z.string(), z.unknown()).nullish(), open: z.looseObject({ a: z.number() }), any: z.unknown() });
    expect(paths(schema, { config: { x: 1 }, open: { a: 1, b: 2 }, any: { deep: { x: 1 } } })).toEqual([]);
  });

  it('answers for the union option that accepts the value', () => {
    const schema = z.object({ p: z.union([z.object({ a: z.number() }), z.object({ b: z.string() })]) });
    expect(paths(schema, { p: { a: 1, c: 2 } })).toEqual(['p.c']);
    expect(paths(schema, { p: { b: 'x', a: 'not a number' } })).toEqual(['p.a']);
    const tagged = z.discriminatedUnion('t', [z.object({ t: z.literal('a') }), z.object({ t: z.literal('b'), q: z.number() })]);
    expect(paths(tagged, { t: 'b', q: 1, zz: 1 })).toEqual(['zz']);
    expect(paths(tagged, { t: 'a', q: 1 })).toEqual(['q']);
  });

  it('knows the keys of both sides of an intersection, through wrappers, pipes and lazy schemas', () => {
    const schema = z.object({
      both: z.object({ a: z.number() }).and(z.object({ b: z.number() })),
      wrapped: z.object({ a: z.number() }).nullish().default(null),
      piped: z.object({ a: z.string() }).transform((v) => v.a),
      preprocessed: z.preprocess((v) => v, z.object({ a: z.number() })),
      lazy: z.lazy(() => z.object({ a: z.number() })),
    });
    expect(paths(schema, { both: { a: 1, b: 2, c: 3 }, wrapped: { a: 1, x: 1 }, piped: { a: 'a', y: 1 }, preprocessed: { a: 1, z: 1 }, lazy: { a: 1, w: 1 } })).toEqual([
      'both.c',
      'wrapped.x',
      'piped.y',
      'preprocessed.z',
      'lazy.w',
    ]);
  });

  it('names a key that would touch the prototype like any other, and ignores what is not an object', () => {
    const schema = z.object({ a: z.array(z.number()), b: z.object({ c: z.number() }).nullish() });
    expect(paths(schema, JSON.parse('{"a":[1,2],"b":null,"__proto__":{"polluted":true},"constructor":1}'))).toEqual(['__proto__', 'constructor']);
    expect(paths(schema, 'text')).toEqual([]);
    expect(paths(schema, [{ x: 1 }])).toEqual([]);
  });

  it('stops at a depth no document has', () => {
    type Node = { next?: Node | null };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ next: node.nullish() }));
    let deep: Record<string, unknown> = { extra: 1 };
    for (let i = 0; i < 200; i++) deep = { next: deep };
    expect(paths(node, deep)).toEqual([]);
    expect(paths(node, { next: { next: { extra: 1 } } })).toEqual(['next.next.extra']);
  });
});

describe('parseRequest', () => {
  const schema = z.object({ name: z.string(), address: z.object({ city: z.string().nullish() }).nullish() });

  it('answers the parsed value when every field is known', () => {
    expect(parseRequest(schema, { name: 'a', address: { city: 'Brno' } })).toEqual({ name: 'a', address: { city: 'Brno' } });
  });

  it('refuses unknown fields with one error per field', () => {
    let error: unknown;
    try {
      parseRequest(schema, { name: 'a', address: { street: 'x' }, nmae: 'b' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const v = error as ValidationError;
    expect(v.message).toBe('The request body has fields this operation does not know: address.street, nmae');
    expect(v.errors).toEqual([
      { path: 'address.street', message: 'unknown field: not one this operation takes', code: 'unrecognized_keys' },
      { path: 'nmae', message: 'unknown field: not one this operation takes', code: 'unrecognized_keys' },
    ]);
  });

  it('lists what fails the schema and what it does not know together', () => {
    let error: unknown;
    try {
      parseRequest(schema, { nmae: 'b' }, 'query string');
    } catch (e) {
      error = e;
    }
    const v = error as ValidationError;
    expect(v.errors!.map((e) => [e.path, e.code])).toEqual([
      ['name', 'invalid_type'],
      ['nmae', 'unrecognized_keys'],
    ]);
    expect(v.message).toMatch(/^The query string is invalid: name: .*; nmae: unknown parameter/);
  });
});
