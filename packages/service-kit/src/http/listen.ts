import { serve, type ServerType } from '@hono/node-server';
import { answerClientErrors } from './app.js';
import type { MetricsRegistry } from '../metrics.js';
import type { BaseConfig } from '../config.js';

/** What a process is served with: its address and how long a client may take to send a request. */
export type ListenConfig = Pick<BaseConfig, 'HOST' | 'CLIENT_HEADERS_TIMEOUT_MS' | 'CLIENT_REQUEST_TIMEOUT_MS'> & { PORT: number };

export interface Listening {
  server: ServerType;
  port: number;
  url: string;
}

/**
 * Serves `fetch` on a port with bounds on what a client may take to send its request: a client
 * that sends its headers or its body slowly, or opens a connection and sends nothing, gets 408
 * problem+json and the connection is closed, instead of holding it for Node's defaults (60 s for
 * headers, 300 s for the request, and only checked every 30 s). The bounds cover receiving the
 * request only, never the time a handler takes to answer. Requests the HTTP parser refuses get
 * problem+json too (`answerClientErrors`); both are counted by their problem code, as no handler
 * saw them.
 */
export async function listen(fetch: Parameters<typeof serve>[0]['fetch'], config: ListenConfig, metrics?: MetricsRegistry): Promise<Listening> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve(
      {
        fetch,
        port: config.PORT,
        hostname: config.HOST,
        serverOptions: {
          headersTimeout: config.CLIENT_HEADERS_TIMEOUT_MS,
          requestTimeout: config.CLIENT_REQUEST_TIMEOUT_MS,
          // Node looks at its connections' clocks this often (30 s by default, which would let a
          // 10 s bound run to 40 s); a look costs a walk over the open connections
          connectionsCheckingInterval: Math.min(1000, Math.ceil(config.CLIENT_HEADERS_TIMEOUT_MS / 4)),
        },
      },
      () => {
        s.off('error', reject);
        resolve(s);
      },
    );
    // a port that cannot be taken fails the start, not the process
    s.once('error', reject);
    const refused = metrics?.counter('http_refused_requests_total', 'Requests answered before any handler ran, by problem code: not received in time (request_timeout), URL or headers too large, not HTTP');
    answerClientErrors(s, refused && ((code) => refused.inc({ code })));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  return { server, port, url: `http://${config.HOST}:${port}` };
}
