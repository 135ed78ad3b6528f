import { describe, expect, it } from 'vitest';
import { connectionListed, pathAndQuery } from './upstream.js';

describe('the path the gateway forwards', () => {
  it.each([
    'http://127.0.0.1:8080/v1/settings/organisation',
    'http://127.0.0.1:8080/v1/sales/invoices?take=10&sort=-date_issue',
    'http://gw/v1/inventory/in/export/csv?q=a%20b&x=%2F&x=2',
    'http://gw/',
    'https://api.example.com/v1/ledger/entries?date=2026-01-01..2026-01-31',
    'http://gw/v1/settings/organisation?x=1#fragment',
    'http://gw/v1/a#b?c',
  ])('%s is forwarded as its URL pathname and search', (url) => {
    const parsed = new URL(url);
    expect(pathAndQuery(url)).toBe(parsed.pathname + parsed.search);
  });
});

describe('the headers a Connection header names', () => {
  it('are none for the usual values', () => {
    for (const value of [undefined, 'keep-alive', 'close', 'Keep-Alive', ' keep-alive , close ']) expect(connectionListed(value)).toBeNull();
  });
  it('are the other tokens, lower-cased, from one header or several', () => {
    expect([...connectionListed('keep-alive, X-Hop-Note,  x-other ')!]).toEqual(['x-hop-note', 'x-other']);
    expect([...connectionListed(['Upgrade', 'keep-alive, X-A'])!]).toEqual(['upgrade', 'x-a']);
    expect([...connectionListed(',,X-A,,')!]).toEqual(['x-a']);
  });
});
