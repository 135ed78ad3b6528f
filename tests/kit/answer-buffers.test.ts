import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { AnswerBuffers, keysetPageOfJson, respond } from '@ledgerline/service-kit';

/*
 * Large answers are written into buffers the process uses again once the answer is sent. A buffer
 * given back too early would carry another answer's bytes to a client, so the served test makes
 * the socket's writes wait (clients that read slowly, pages larger than the socket takes at once)
 * and checks every byte of every answer. It is served over a Unix socket, whose buffer (some
 * 200 KB) a page outgrows, so the server's writes wait for the client; loopback TCP's buffers of
 * several megabytes would take every page at once and hide an early release.
 */

describe('AnswerBuffers', () => {
  it('gives a kept buffer out again once released, and only then', () => {
    const buffers = new AnswerBuffers();
    const a = buffers.take(300_000);
    expect(a.bytes.length).toBe(300_000);
    const b = buffers.take(300_000);
    expect(b.bytes.buffer).not.toBe(a.bytes.buffer);
    a.release();
    a.release(); // twice is once
    expect(buffers.keptBytes).toBe(512 * 1024);
    const c = buffers.take(400_000);
    expect(c.bytes.buffer).toBe(a.bytes.buffer);
    expect(c.bytes.length).toBe(400_000);
    expect(buffers.keptBytes).toBe(0);
    const d = buffers.take(300_000);
    expect(d.bytes.buffer).not.toBe(a.bytes.buffer);
  });

  it('keeps no small or very large buffer, and no more bytes than its bound', () => {
    const buffers = new AnswerBuffers(1024 * 1024);
    buffers.take(10_000).release();
    buffers.take(5 * 1024 * 1024).release();
    expect(buffers.keptBytes).toBe(0);
    const taken = [buffers.take(300_000), buffers.take(300_000), buffers.take(300_000)];
    for (const t of taken) t.release();
    expect(buffers.keptBytes).toBe(1024 * 1024);
  });
});

/** A page of `count` views, each about `size` bytes, different for every `seed`. */
function viewsOf(seed: number, count: number, size: number): string[] {
  return Array.from({ length: count }, (_, i) => JSON.stringify({ id: seed * 1000 + i, note: `${seed}:${i} Příliš žluťoučký kůň `.repeat(Math.ceil(size / 40)).slice(0, size) }));
}

function get(socketPath: string, urlPath: string, slow: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath, path: urlPath }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (slow) {
            res.pause();
            setTimeout(() => res.resume(), 2);
          }
        });
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('pages answered from reused buffers', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'answer-buffers-'));
  const socketPath = path.join(dir, 'http.sock');
  const server = http.createServer();
  const SIZE = 2_000;
  beforeAll(async () => {
    const app = new Hono();
    app.get('/page/:seed', (c) => {
      const seed = Number(c.req.param('seed'));
      const count = 50 + (seed % 7) * 60;
      return respond(c, keysetPageOfJson(viewsOf(seed, count, SIZE), { total: count, totalExact: true, nextCursor: null }, { from: 0, take: count }));
    });
    server.on('request', getRequestListener(app.fetch));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends every client its own page byte for byte while others wait on their sockets', async () => {
    const seeds = Array.from({ length: 96 }, (_, i) => i + 1);
    const answers = await Promise.all(seeds.map((seed) => get(socketPath, `/page/${seed}`, seed % 2 === 0)));
    for (const [i, seed] of seeds.entries()) {
      const count = 50 + (seed % 7) * 60;
      const expected = Buffer.from(JSON.stringify({ total: count, total_exact: true, from: 0, take: count, next_cursor: null, entities: viewsOf(seed, count, SIZE).map((v) => JSON.parse(v)), aggregations: [] }));
      expect(answers[i].equals(expected), `page ${seed}`).toBe(true);
    }
  });
});
