import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectWritable } from './connect-writable.js';

/** A PostgreSQL backend message: its type byte, its length, its body. */
const message = (type: string, body: Buffer) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const fields = (pairs: Array<[string, string]>) => Buffer.concat([...pairs.map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8')), Buffer.from([0])]);

/**
 * A server that starts a session and ends it at once, in one write: AuthenticationOk,
 * ReadyForQuery, then the FATAL an operator's pg_terminate_backend sends (57P01), as a real
 * server's terminated backend can when the termination lands right after the session began.
 */
function terminatingServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = net.createServer((socket) => {
    socket.once('data', () => {
      socket.write(
        Buffer.concat([
          message('R', int32(0)),
          message('Z', Buffer.from('I')),
          message('E', fields([['S', 'FATAL'], ['V', 'FATAL'], ['C', '57P01'], ['M', 'terminating connection due to administrator command']])),
        ]),
      );
      socket.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ url: `postgres://probe@127.0.0.1:${port}/probe`, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);
afterEach(() => {
  process.off('uncaughtException', onUncaught);
  uncaught.length = 0;
});

describe('connectWritable', () => {
  it('a session the server ends as it begins is no uncaught exception: the next statement fails with the lost connection', async () => {
    process.on('uncaughtException', onUncaught);
    const server = await terminatingServer();
    try {
      const client = await connectWritable(server.url);
      // the FATAL was read with the ReadyForQuery; give the socket's end its turn too
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
      await expect(client.query('select 1')).rejects.toThrow();
      await client.end().catch(() => undefined);
    } finally {
      await server.close();
    }
  });
});
