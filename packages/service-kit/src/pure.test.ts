import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { negotiateJson, isJsonContentType } from './http/negotiation.js';
import { parseRange, parseSort } from './http/query.js';
import { formatPath, parseOrThrow } from './http/validation.js';
import { crc32, generateSecret, hasValidChecksum, secretHash, displayPrefix } from './credentials.js';
import { createLogger, redact } from './logger.js';
import { loadConfig, baseConfigSchema, ConfigError, durationMs } from './config.js';
import { natsCredentials } from './events/bus.js';
import { roundMoney, toDb, toWire, dec, figuresOverLimit, assertWithinAmountLimit } from './money.js';
import { findHostileJson, findInexactNumbers, assertStorableQuery, unstorableText, MAX_JSON_DEPTH } from './http/hostile-input.js';
import { toProblem, ValidationError, ConflictError } from './errors.js';
import { canonicalQuery } from './http/unit-of-work.js';

describe('content negotiation', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['application/json', 'application/json'],
    ['text/json', 'text/json'],
    ['text/plain', 'text/plain'],
    ['text/*', 'text/json'],
    ['application/*', 'application/json'],
    ['text/html, text/plain;q=0.5', 'text/plain'],
    ['text/plain;q=0.4, application/json;q=0.9', 'application/json'],
    ['application/xml', null],
    ['text/html', null],
    ['application/json;q=0', null],
  ])('Accept %s → %s', (accept, expected) => {
    expect(negotiateJson(accept)).toBe(expected);
  });

  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['text/json', true],
    ['application/json-patch+json', true],
    ['application/vnd.api+json', true],
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    [undefined, false],
  ])('request body type %s accepted: %s', (type, ok) => {
    expect(isJsonContentType(type)).toBe(ok);
  });
});

describe('range filters', () => {
  it.each([
    ['2026-01-31', { from: '2026-01-31', to: '2026-01-31' }],
    ['[2026-01-01;]', { from: '2026-01-01', to: undefined }],
    ['[;2026-12-31]', { from: undefined, to: '2026-12-31' }],
    ['[2026-01-01;2026-12-31]', { from: '2026-01-01', to: '2026-12-31' }],
  ])('date range %s', (raw, expected) => {
    expect(parseRange('date_posting', raw, 'date')).toEqual(expected);
  });
  it.each(['2026-13-01', '[2026-01-01', '[;]', '[2026-02-01;2026-01-01]', '[a;b;c]', '2026-02-30', '26-01-01'])('rejects %s', (raw) => {
    expect(() => parseRange('date_posting', raw, 'date')).toThrow(ValidationError);
  });
  it('string ranges compare as strings', () => {
    expect(parseRange('account_number', '[300;399]', 'string')).toEqual({ from: '300', to: '399' });
    expect(parseRange('account_number', '311', 'string')).toEqual({ from: '311', to: '311' });
    expect(parseRange('x', undefined, 'string')).toBeUndefined();
  });
});

describe('sorting', () => {
  it('parses directions, repeats and comma lists', () => {
    expect(parseSort(['-date', 'no'], ['date', 'no'], [])).toEqual([
      { field: 'date', direction: 'desc' },
      { field: 'no', direction: 'asc' },
    ]);
    expect(parseSort(['no,-date'], ['date', 'no'], [])).toHaveLength(2);
    expect(parseSort(undefined, ['no'], [{ field: 'no', direction: 'asc' }])).toEqual([{ field: 'no', direction: 'asc' }]);
  });
  it('rejects unknown fields naming them', () => {
    try {
      parseSort(['secret'], ['no'], []);
      expect.unreachable();
    } catch (e) {
      expect((e as ValidationError).errors?.[0]).toMatchObject({ path: 'sort' });
      expect((e as Error).message).toContain('secret');
    }
  });
});

describe('validation errors', () => {
  it('names nested field paths the way integrators read them', () => {
    expect(formatPath(['items', 0, 'taxes', 2, 'tax_rate'])).toBe('items[0].taxes[2].tax_rate');
    expect(formatPath([])).toBe('(root)');
    const schema = z.object({ items: z.array(z.object({ qty: z.number() })) });
    try {
      parseOrThrow(schema, { items: [{ qty: 1 }, { qty: 'x' }] });
      expect.unreachable();
    } catch (e) {
      expect((e as ValidationError).errors?.map((x) => x.path)).toEqual(['items[1].qty']);
      expect((e as ValidationError).status).toBe(400);
    }
  });
  it('problem documents have a stable type and code', () => {
    const p = toProblem(new ConflictError('dup', 'duplicate_number'), '/v1/x', 'req-1');
    expect(p).toEqual({ type: '/problems/duplicate-number', title: 'Conflict', status: 409, detail: 'dup', instance: '/v1/x', code: 'duplicate_number', request_id: 'req-1' });
  });
});

describe('secrets', () => {
  it('generates prefixed keys with ≥128 bits and a checksum', () => {
    const a = generateSecret('ak');
    const b = generateSecret('ak');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^ak_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    expect(32 * Math.log2(62)).toBeGreaterThan(128);
    expect(hasValidChecksum(a, 'ak')).toBe(true);
    expect(hasValidChecksum(a, 'cs')).toBe(false);
    const flipped = a.slice(0, 10) + (a[10] === 'x' ? 'y' : 'x') + a.slice(11);
    expect(hasValidChecksum(flipped, 'ak')).toBe(false);
    expect(secretHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefix(a)).toBe(a.slice(0, 11));
  });

  it('hashes and checksums as keys already issued were (stored hashes and checksums must keep matching)', () => {
    // published check values: SHA-256 of "abc" (FIPS 180-2) and CRC-32 of "123456789"
    expect(secretHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(crc32('123456789')).toBe(0xcbf43926);
    // multi-byte text goes in as UTF-8
    expect(secretHash('ledgerline ключ')).toBe('7675b66e1965c5fb9c19f4022b5addea68ca7e92eb2e4f2efb59f30c53c6f86c');
    expect(crc32('ключ')).toBe(212833818);
    // a key's checksum as the first keys were issued with
    expect(hasValidChecksum('ak_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345_4aFOC3', 'ak')).toBe(true);
    expect(hasValidChecksum('ak_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345_4aFOC4', 'ak')).toBe(false);
  });
});

describe('logs never carry secrets', () => {
  it('redacts secret-looking keys at any depth', () => {
    const out = redact({ authorization: 'Bearer x', body: { api_key: 'k', client_secret: 's', nested: [{ key: 'v', name: 'ok' }] } });
    expect(JSON.stringify(out)).not.toMatch(/Bearer x|"k"|"s"|"v"/);
    expect(JSON.stringify(out)).toContain('"name":"ok"');
  });

  it('writes one JSON line per call, with the fields of the logger, its children and the call, secrets redacted', () => {
    const lines: string[] = [];
    const out = process.stdout.write;
    const err = process.stderr.write;
    const capture = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stdout.write;
    process.stdout.write = capture;
    process.stderr.write = capture;
    try {
      const root = createLogger('gateway', 'info', { region: 'eu', token: 't0p' });
      const child = root.child({ request_id: 'r-1', api_key: 'ak_secret' });
      child.info('access', { status: 200, authorization: 'Bearer x', region: 'us' });
      child.debug('not written at info');
      const grandchild = child.child({ step: 2 });
      grandchild.warn('slow', { nested: { client_secret: 's3' } });
      root.error('boom', { err: new Error('why') });
      // a child's fields reach a grandchild made before the child wrote anything
      root.child({ request_id: 'r-2', password: 'pw0' }).child({ step: 3 }).error('early', {});
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    const [access, slow, boom, early] = lines.map((l) => JSON.parse(l));
    expect(early).toMatchObject({ msg: 'early', region: 'eu', token: '[redacted]', request_id: 'r-2', password: '[redacted]', step: 3 });
    expect(Object.keys(access)).toEqual(['time', 'level', 'service', 'msg', 'region', 'token', 'request_id', 'api_key', 'status', 'authorization']);
    expect(access).toMatchObject({ level: 'info', service: 'gateway', msg: 'access', region: 'us', token: '[redacted]', request_id: 'r-1', api_key: '[redacted]', status: 200, authorization: '[redacted]' });
    expect(slow).toMatchObject({ level: 'warn', request_id: 'r-1', step: 2, nested: { client_secret: '[redacted]' } });
    expect(boom).toMatchObject({ level: 'error', err: { name: 'Error', message: 'why' } });
    expect(lines.join('')).not.toMatch(/t0p|ak_secret|Bearer x|s3|pw0/);
  });
});

describe('configuration', () => {
  it('reads defaults and rejects wrong values with a message naming each key', () => {
    expect(loadConfig(baseConfigSchema, {}).NATS_SUBJECT_PREFIX).toBe('');
    try {
      loadConfig(baseConfigSchema, { DATABASE_URL: 'not a url', NATS_SUBJECT_PREFIX: 'no-dot', BODY_LIMIT_BYTES: '-1' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).toMatch(/DATABASE_URL/);
      expect((e as Error).message).toMatch(/NATS_SUBJECT_PREFIX/);
      expect((e as Error).message).toMatch(/BODY_LIMIT_BYTES/);
    }
  });

  it('reads stream retention as a duration and refuses what is not one', () => {
    expect(loadConfig(baseConfigSchema, {}).NATS_STREAM_MAX_AGE).toBe(0);
    expect(loadConfig(baseConfigSchema, { NATS_STREAM_MAX_AGE: '400d' }).NATS_STREAM_MAX_AGE).toBe(400 * 86_400_000);
    expect(loadConfig(baseConfigSchema, { NATS_STREAM_MAX_AGE: '3600' }).NATS_STREAM_MAX_AGE).toBe(3_600_000);
    expect(durationMs('12h')).toBe(43_200_000);
    expect(durationMs('250ms')).toBe(250);
    expect(() => loadConfig(baseConfigSchema, { NATS_STREAM_MAX_AGE: '1 year' })).toThrow(/NATS_STREAM_MAX_AGE/);
    expect(() => loadConfig(baseConfigSchema, { NATS_STREAM_REPLICAS: '7' })).toThrow(/NATS_STREAM_REPLICAS/);
  });

  it('bounds a client 10 s for its headers and 60 s for its request by default, and refuses headers given longer than the request', () => {
    expect(loadConfig(baseConfigSchema, {})).toMatchObject({ CLIENT_HEADERS_TIMEOUT_MS: 10_000, CLIENT_REQUEST_TIMEOUT_MS: 60_000 });
    expect(loadConfig(baseConfigSchema, { CLIENT_HEADERS_TIMEOUT_MS: '5000', CLIENT_REQUEST_TIMEOUT_MS: '5000' })).toMatchObject({ CLIENT_HEADERS_TIMEOUT_MS: 5000, CLIENT_REQUEST_TIMEOUT_MS: 5000 });
    expect(() => loadConfig(baseConfigSchema, { CLIENT_HEADERS_TIMEOUT_MS: '30000', CLIENT_REQUEST_TIMEOUT_MS: '20000' })).toThrow(
      /CLIENT_HEADERS_TIMEOUT_MS: 30000 is longer than CLIENT_REQUEST_TIMEOUT_MS \(20000\)/,
    );
    // the default request bound is shorter than these headers
    expect(() => loadConfig(baseConfigSchema, { CLIENT_HEADERS_TIMEOUT_MS: '90000' })).toThrow(ConfigError);
    expect(() => loadConfig(baseConfigSchema, { CLIENT_REQUEST_TIMEOUT_MS: '0' })).toThrow(/CLIENT_REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig(baseConfigSchema, { CLIENT_HEADERS_TIMEOUT_MS: 'soon' })).toThrow(/CLIENT_HEADERS_TIMEOUT_MS/);
  });

  it('takes one kind of NATS credentials: none, user and password, a token, or a creds file', () => {
    expect(natsCredentials({})).toEqual({});
    expect(natsCredentials({ NATS_USER: 'sales', NATS_PASSWORD: 'pw' })).toEqual({ user: 'sales', pass: 'pw' });
    expect(natsCredentials({ NATS_TOKEN: 't0ken' })).toEqual({ token: 't0ken' });
    expect(() => natsCredentials({ NATS_USER: 'sales' })).toThrow(/NATS_USER and NATS_PASSWORD: set both/);
    expect(() => natsCredentials({ NATS_USER: 'sales', NATS_PASSWORD: 'pw', NATS_TOKEN: 't' })).toThrow(ConfigError);
    expect(() => natsCredentials({ NATS_CREDS: '/nonexistent/ledgerline.creds' })).toThrow(/NATS_CREDS: cannot read/);
  });
});

describe('money helpers', () => {
  it.each([
    ['0.005', '0.01'],
    ['-0.005', '-0.01'],
    ['2.675', '2.68'],
    ['1.0049999', '1.00'],
    ['123456789012.345', '123456789012.35'],
  ])('rounds %s half away from zero to %s', (v, expected) => {
    expect(toDb(v)).toBe(expected);
  });
  it('keeps precision through arithmetic that binary floats get wrong', () => {
    expect(dec('0.1').plus('0.2').toString()).toBe('0.3');
    expect(roundMoney(dec('1.015'), 2).toFixed(2)).toBe('1.02');
    expect(toWire('298.00')).toBe(298);
    expect(toWire(null)).toBeNull();
  });
});

describe('canonicalQuery (part of an Idempotency-Key request hash)', () => {
  it.each([
    ['http://x/v1/a', ''],
    ['http://x/v1/a?', ''],
    ['http://x/v1/a?strict=true', '?strict=true'],
    ['http://x/v1/a?b=2&a=1', '?a=1&b=2'],
    ['http://x/v1/a?a=2&a=1', '?a=1&a=2'],
    ['http://x/v1/a?q=a%20b&p=%C3%A9', '?p=%C3%A9&q=a+b'],
  ])('%s → %s', (url, expected) => {
    expect(canonicalQuery(url)).toBe(expected);
  });
});

describe('inexact numbers', () => {
  it('names numbers with more than 15 significant digits by their path; strings, exponents and trailing zeros are fine', () => {
    const raw = '{"a": 999999999999999.99, "b": [1, 12345678901234567], "c": "99999999999999999999", "d": 1.5e300, "e": 100000000000000000000, "f": 0.000000000000000001, "g": 123456789012345}';
    const errors = findInexactNumbers(raw, JSON.parse(raw));
    expect(errors.map((e) => e.path).sort()).toEqual(['a', 'b[1]']);
    expect(errors.every((e) => e.code === 'inexact_number')).toBe(true);
    expect(findInexactNumbers('{"x": 0.30000000000000004}', { x: 0.30000000000000004 })).toHaveLength(1);
    expect(findInexactNumbers('{"x": -12345678901234.5}', { x: -12345678901234.5 })).toHaveLength(0);
  });
});

describe('hostile input', () => {
  it('names every NUL, lone surrogate and over-deep value, in values and keys', () => {
    const found = findHostileJson({ a: 'ok', b: ['x\u0000y'], c: { d: '\ud800' }, ['k\u0000']: 1, e: '😀' });
    expect(found).toHaveLength(3);
    expect(found).toEqual(expect.arrayContaining([
      { path: 'b[0]', message: expect.stringMatching(/NUL/), code: 'invalid_text' },
      { path: 'c.d', message: expect.stringMatching(/surrogate/), code: 'invalid_text' },
      { path: '"k\\u0000"', message: expect.stringMatching(/field name/), code: 'invalid_text' },
    ]));
    expect(findHostileJson({ low: '\udc00x', pair: '\ud83d\ude00' }).map((e) => e.path)).toEqual(['low']);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 5000; i++) deep = { n: deep };
    const [tooDeep] = findHostileJson(deep);
    expect(tooDeep.code).toBe('too_deep');
    expect(tooDeep.path.split('.').length).toBe(MAX_JSON_DEPTH);
    let shallow: unknown = 'leaf';
    for (let i = 0; i < MAX_JSON_DEPTH - 1; i++) shallow = [shallow];
    expect(findHostileJson(shallow)).toEqual([]);
  });

  it('finds the one hostile value hidden anywhere in a large body, and nothing in a sound one', () => {
    // a seeded walk: the quick check that lets sound bodies through must miss no hostile value
    let seed = 42;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const sound = ['', 'Zlatý klas', '😀 emoji', 'Na Příkopě 1', '\ud83d\ude00'];
    const build = (depth: number): unknown => {
      const pick = rnd(6);
      if (depth > 6 || pick === 0) return sound[rnd(sound.length)];
      if (pick === 1) return rnd(1000) / 7;
      if (pick === 2) return rnd(2) === 0 ? null : true;
      if (pick === 3) return Array.from({ length: rnd(5) }, () => build(depth + 1));
      return Object.fromEntries(Array.from({ length: rnd(5) }, (_, i) => [`k${i}`, build(depth + 1)]));
    };
    const hostile = ['a\u0000b', '\ud800', 'x\udfff'];
    for (let round = 0; round < 300; round++) {
      const body = { lines: Array.from({ length: 10 }, () => build(0)) } as { lines: unknown[] };
      expect(findHostileJson(body)).toEqual([]);
      const where = rnd(3);
      const bad = hostile[rnd(hostile.length)];
      if (where === 0) body.lines[rnd(10)] = { deep: [1, { text: bad }] };
      else if (where === 1) body.lines[rnd(10)] = { [bad]: 1 };
      else {
        let deep: unknown = 'leaf';
        for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
        body.lines[rnd(10)] = deep;
      }
      const found = findHostileJson(body);
      expect(found).toHaveLength(1);
      expect(found[0].path).toMatch(/^lines\[\d\]/);
    }
  });

  it('refuses NUL and lone surrogates in query strings with 400', () => {
    expect(() => assertStorableQuery('http://x/v1/a?search=ab%00c')).toThrow(ValidationError);
    expect(() => assertStorableQuery('http://x/v1/a?search=%ED%A0%80')).not.toThrow(); // decodes to U+FFFD, storable
    expect(() => assertStorableQuery('http://x/v1/a?search=%C5%BElu%C5%A5ou%C4%8Dk%C3%BD')).not.toThrow();
    expect(unstorableText('plain')).toBeNull();
  });

  it('bounds computed figures at AMOUNT_LIMIT', () => {
    expect(figuresOverLimit([['a', '10000000000000'], ['b', '-10000000000000.01'], ['c', null]]).map((e) => e.path)).toEqual(['b']);
    expect(() => assertWithinAmountLimit([['total_amount', '2e16']])).toThrow(ValidationError);
  });
});
