import http from 'node:http';
import type { AddressInfo } from 'node:net';

/* A real HTTP receiver of webhook deliveries, for the tests that subscribe to events. */

export interface Hit {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** A receiver whose answer depends on the path: /ok 204, /flaky/<n> 500 n times then 200, /down 500 with a 5 KB body, /redirect 302, /hang nothing, /huge 200 MB. */
export class Receiver {
  readonly hits: Hit[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      this.hits.push({ path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const flaky = /^\/flaky\/(\d+)/.exec(path);
      if (path.startsWith('/ok') || path.startsWith('/org2')) res.writeHead(204).end();
      else if (flaky) res.writeHead(this.count(path) <= Number(flaky[1]) ? 500 : 200).end('ok');
      else if (path.startsWith('/down')) res.writeHead(500, { 'content-type': 'text/plain' }).end('é'.repeat(2500));
      else if (path.startsWith('/redirect')) res.writeHead(302, { location: `${this.url}/ok/redirected` }).end();
      else if (path.startsWith('/hang')) return; // never answers
      else if (path.startsWith('/huge')) this.huge(res);
      else res.writeHead(404).end();
    });
  });
  url = '';
  /** Bytes the /huge answers wrote before their reader went away. */
  hugeSent = 0;

  /** 200 MB of answer, written as the reader takes it: a receiver that answers far more than is kept. */
  private huge(res: http.ServerResponse) {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let left = 200 * 1024 * 1024;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(left) });
    const write = () => {
      while (left > 0) {
        left -= chunk.length;
        this.hugeSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', write);
      }
      res.end();
    };
    res.on('close', () => (left = 0));
    write();
  }

  count(path: string): number {
    return this.hits.filter((h) => h.path === path).length;
  }

  at(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
