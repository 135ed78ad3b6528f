/*
 * Steady load as clients make it: each client sends one document at a time with an
 * Idempotency-Key and sends it again, with the same key, until it is answered 200 (every 100 ms,
 * at most 10 minutes). Every attempt is recorded: when it started and ended, and its answer.
 */

export interface Attempt {
  key: string;
  start: number;
  end: number;
  /** 0: no answer (connection refused or reset). */
  status: number;
  code?: string;
  /** The problem's detail, to tell an unexpected answer's cause. */
  detail?: string;
  retryAfter: boolean;
}

/** Answers a client retries: unavailable for now, or a retry of its own still in flight. */
function retryable(a: Attempt): boolean {
  if (a.status === 0 || a.status === 502 || a.status === 504) return true;
  if (a.status === 503) return a.retryAfter;
  return a.status === 409 && a.code === 'idempotency_key_in_flight';
}

export class LoadClients {
  readonly attempts: Attempt[] = [];
  private readonly acks: Array<{ key: string; id: number; at: number }> = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private n = 0;

  constructor(
    private readonly clients: number,
    private readonly send: (key: string) => Promise<Response>,
  ) {}

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: this.clients }, (_, c) => this.client(c));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async client(c: number): Promise<void> {
    while (this.running) {
      const key = `ha-${c}-${this.n++}`;
      const until = Date.now() + 600_000;
      while (Date.now() < until) {
        const start = Date.now();
        const res = await this.send(key).catch(() => null);
        const body = (res ? await res.json().catch(() => ({})) : {}) as { code?: string; detail?: string; id?: number };
        const a: Attempt = { key, start, end: Date.now(), status: res?.status ?? 0, code: body.code, detail: body.detail, retryAfter: !!res?.headers.get('retry-after') };
        this.attempts.push(a);
        if (a.status === 200) {
          this.acks.push({ key, id: body.id!, at: a.end });
          break;
        }
        if (!retryable(a)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  acknowledged(): Array<{ key: string; id: number; at: number }> {
    return this.acks;
  }

  acknowledgedSince(t: number): number {
    return this.acks.filter((a) => a.at >= t).length;
  }

  /** Documents acknowledged per second between `from` and `to`. */
  rate(from: number, to: number): number {
    return this.acks.filter((a) => a.at >= from && a.at < to).length / ((to - from) / 1000);
  }

  /** Answers no client should get: anything but 200 and the retryable ones. */
  unexpectedAnswers(): Attempt[] {
    return this.attempts.filter((a) => a.status !== 200 && !retryable(a));
  }
}

export interface FaultReport {
  fault: string;
  acknowledged: number;
  inLedgerOnce: number;
  /** From the fault to the end of the last attempt that failed after it (0: none failed). */
  failedWindowMs: number;
  /** The longest time, from 1 s before the fault to the next one, in which no document was acknowledged. */
  longestGapMs: number;
  p99Ms: number;
  boundMs: number;
  /** The failed answers by status and code, with when the first and last came (seconds from the fault). */
  failures: string;
}

/** One fault's figures: the documents acknowledged and the answers from it until the next fault (`to`). */
export function faultReport(fault: string, at: number, to: number, load: LoadClients, posted: Map<number, number>, boundMs: number): FaultReport {
  const acks = load.acknowledged().filter((a) => a.at >= at && a.at < to);
  // a failure belongs to the fault it came after (an attempt sent just before a fault fails after it)
  const failed = load.attempts.filter((a) => a.end >= at && a.end < to && a.status !== 200);
  const lastFailure = failed.reduce((m, a) => Math.max(m, a.end), at);
  const ends = load
    .acknowledged()
    .map((a) => a.at)
    .filter((t) => t >= at - 1000 && t < to)
    .sort((a, b) => a - b);
  let gap = 0;
  for (let i = 1; i < ends.length; i++) gap = Math.max(gap, ends[i] - ends[i - 1]);
  const latencies = load.attempts
    .filter((a) => a.start >= at - 5000 && a.start < at + 10_000)
    .map((a) => a.end - a.start)
    .sort((a, b) => a - b);
  return {
    fault,
    acknowledged: acks.length,
    inLedgerOnce: acks.filter((a) => posted.get(a.id) === 1).length,
    failedWindowMs: failed.length ? lastFailure - at : 0,
    longestGapMs: gap,
    p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0,
    boundMs,
    failures: [...groupBy(failed, (a) => `${a.status}${a.code ? ` ${a.code}` : ''}`)]
      .map(([k, v]) => `${k} ×${v.length} (${((v[0].start - at) / 1000).toFixed(1)}–${((v.at(-1)!.end - at) / 1000).toFixed(1)} s)`)
      .join(', '),
  };
}

function groupBy<T>(items: T[], keyOf: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) m.set(keyOf(t), [...(m.get(keyOf(t)) ?? []), t]);
  return m;
}

export function printReport(steadyPerSecond: number, reports: FaultReport[], total: number): void {
  const lines = [
    `steady load: ${steadyPerSecond.toFixed(0)} documents/s acknowledged; ${total} acknowledged in all`,
    'fault | acknowledged (from it to the next) | in the ledger once | writes failed for | longest gap without an acknowledgement | p99 (5 s before to 10 s after) | bound | failed answers',
    ...reports.map(
      (r) => `${r.fault} | ${r.acknowledged} | ${r.inLedgerOnce} | ${(r.failedWindowMs / 1000).toFixed(2)} s | ${(r.longestGapMs / 1000).toFixed(2)} s | ${r.p99Ms} ms | ${(r.boundMs / 1000).toFixed(0)} s | ${r.failures || 'none'}`,
    ),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
}
