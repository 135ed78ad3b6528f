import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { PayloadTooLargeError } from '@ledgerline/core';
import { requestBody } from './app.js';

/*
 * The Web Request path of requestBody (a server other than Node's, and app.request() here): the
 * same limit as the Node stream path that the e2e tests drive through real sockets.
 */
const app = new Hono();
app.post('/echo', async (c) => {
  try {
    const body = await requestBody(c, 1024);
    return c.json({ bytes: body.byteLength, text: body.toString('utf8') });
  } catch (err) {
    if (err instanceof PayloadTooLargeError) return c.json({ status: 413 }, 413);
    throw err;
  }
});

const chunked = (parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of parts) controller.enqueue(new TextEncoder().encode(p));
      controller.close();
    },
  });

describe('requestBody from a Web Request', () => {
  it('answers the bytes as sent, across chunks, and nothing for an empty body', async () => {
    const res = await app.request('/echo', { method: 'POST', body: chunked(['{"a":', '"ž"}']), duplex: 'half' } as RequestInit);
    expect(await res.json()).toEqual({ bytes: Buffer.byteLength('{"a":"ž"}'), text: '{"a":"ž"}' });
    expect(await (await app.request('/echo', { method: 'POST' })).json()).toEqual({ bytes: 0, text: '' });
  });

  it('refuses a chunked body past the limit with 413, having read the rest', async () => {
    const res = await app.request('/echo', { method: 'POST', body: chunked(['x'.repeat(1000), 'y'.repeat(1000), 'z'.repeat(1000)]), duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
  });
});
