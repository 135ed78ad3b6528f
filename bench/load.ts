import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

/** A closed-loop load run with autocannon (from this process, separate from the servers). */
export async function load(opts: {
  url: string;
  seconds: number;
  connections?: number;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** A fresh body per request (e.g. to avoid duplicate numbers). */
  requestBody?: () => string;
}): Promise<LoadResult> {
  const r = await autocannon({
    url: opts.url,
    duration: opts.seconds,
    connections: opts.connections ?? 16,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    requests: opts.requestBody ? [{ setupRequest: (req) => ({ ...req, body: opts.requestBody!() }) }] : undefined,
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    total: r.requests.total,
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Exactly `count` POSTs from `connections` concurrent senders, each body made for its index:
 * for figures that use each of a prepared set of documents once. Timed here, not by autocannon,
 * whose runs of a fixed amount end on its one-second tick.
 */
export async function postEach(opts: { url: string; count: number; connections?: number; headers: Record<string, string>; body: (i: number) => string }): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let non2xx = 0;
  let errors = 0;
  const started = performance.now();
  const sender = async () => {
    while (next < opts.count) {
      const i = next++;
      const t0 = performance.now();
      try {
        const res = await fetch(opts.url, { method: 'POST', headers: opts.headers, body: opts.body(i) });
        await res.arrayBuffer();
        if (res.status >= 300) non2xx++;
        latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.connections ?? 16 }, sender));
  const seconds = (performance.now() - started) / 1000;
  return {
    rps: opts.count / seconds,
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    errors,
    non2xx,
    total: opts.count,
  };
}
