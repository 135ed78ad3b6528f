import { serve, type ServerType } from '@hono/node-server';
import type { Duplex } from 'node:stream';
import type { MetricsRegistry } from '../metrics.js';
import type { BaseConfig } from '../config.js';

/** Why a request was answered before any handler ran. */
export type RefusedRequestCode = 'headers_too_large' | 'request_timeout' | 'malformed_http';

/** The answer to each request Node's HTTP parser refuses, by its error code; any other is `malformed_http`. */
const REFUSALS: Record<string, { status: number; title: string; detail: string; code: RefusedRequestCode }> = {
  HPE_HEADER_OVERFLOW: { status: 431, title: 'Request header fields too large', detail: 'The URL or headers exceed the size this server reads', code: 'headers_too_large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, title: 'Request timeout', detail: 'The request was not received in time', code: 'request_timeout' },
};
const MALFORMED = { status: 400, title: 'Bad request', detail: 'The request could not be parsed as HTTP', code: 'malformed_http' as const };

/**
 * Requests Node's HTTP parser refuses before any handler runs (a URL or headers over the size
 * limit, a malformed request line, one not received in time) are answered as problem+json too,
 * then the connection closes. `refused` hears of each (no handler logs or counts them).
 */
function answerClientErrors(
  server: { on(event: 'clientError', cb: (err: Error & { code?: string }, socket: Duplex) => void): unknown },
  refused?: (code: RefusedRequestCode) => void,
): void {
  server.on('clientError', (err, socket) => {
    if (!socket.writable) return socket.destroy();
    const { status, title, detail, code } = (err.code && REFUSALS[err.code]) || MALFORMED;
    refused?.(code);
    const body = JSON.stringify({ type: `/problems/${code.replace(/_/g, '-')}`, title, status, detail, code });
    socket.end(`HTTP/1.1 ${status} ${title}\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
}

/** What a process is served with: its address and how long a client may take to send a request. */
export type ListenConfig = Pick<BaseConfig, 'HOST' | 'CLIENT_HEADERS_TIMEOUT_MS' | 'CLIENT_REQUEST_TIMEOUT_MS'> & Partial<Pick<BaseConfig, 'CLIENT_KEEP_ALIVE_TIMEOUT_MS'>> & { PORT: number };

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
    // an idle connection waits for its client's next request this long (an idle one is never
    // refused by the headers' bound, which starts with the request's first byte)
    (s as { keepAliveTimeout: number }).keepAliveTimeout = config.CLIENT_KEEP_ALIVE_TIMEOUT_MS ?? 65_000;
    // a port that cannot be taken fails the start, not the process
    s.once('error', reject);
    const refused = metrics?.counter('http_refused_requests_total', 'Requests answered before any handler ran, by problem code: not received in time (request_timeout), URL or headers too large, not HTTP');
    answerClientErrors(s, refused && ((code) => refused.inc({ code })));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  return { server, port, url: `http://${config.HOST}:${port}` };
}
