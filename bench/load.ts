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
  /** Exactly this many requests instead of `seconds` of them. */
  amount?: number;
  connections?: number;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** A fresh body per request (e.g. to avoid duplicate numbers). */
  requestBody?: () => string;
}): Promise<LoadResult> {
  const r = await autocannon({
    url: opts.url,
    ...(opts.amount !== undefined ? { amount: opts.amount } : { duration: opts.seconds }),
    connections: opts.connections ?? 16,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    requests: opts.requestBody ? [{ setupRequest: (req) => ({ ...req, body: opts.requestBody!() }) }] : undefined,
  });
  return {
    // a run of a fixed amount ends mid-second: its per-second average would be whole seconds' worth
    rps: opts.amount !== undefined && r.duration > 0 ? r.requests.total / r.duration : r.requests.average,
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
