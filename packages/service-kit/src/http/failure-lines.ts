import type { Logger } from '../logger.js';

export { DEFAULT_FAILURE_LINES_PER_SECOND } from '../config.js';

/** How one kind of failure has been written in its current second. */
interface Window {
  start: number;
  written: number;
  suppressed: number;
  /** What the summary line says the suppressed requests were. */
  kind: Record<string, unknown>;
}

/**
 * The log lines of failed requests, at most `perSecond` a second for each kind of failure (method,
 * route, status, problem code); the rest are counted and written as one line a second,
 * `requests failed (lines suppressed)` with their count. An overloaded or cut-off process fails
 * thousands of requests a second alike (the bench's slowest hour: 6 118 × 503 in one run), and a
 * line for each cost CPU and memory exactly when there was none to spare, while saying nothing
 * the first lines and the request metrics (which count every request) do not. A failure of
 * another kind is written at once. `perSecond` 0 writes every line.
 */
export class FailureLines {
  private readonly windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: Logger,
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Writes `line` through `requestLog` (the request's logger), or counts it. */
  write(requestLog: Logger, kind: Record<string, unknown>, line: Record<string, unknown>): void {
    if (this.perSecond <= 0) {
      requestLog.warn('request failed', line);
      return;
    }
    const key = JSON.stringify(kind);
    const at = this.now();
    let w = this.windows.get(key);
    if (w && at - w.start >= 1000) {
      this.close(key, w);
      w = undefined;
    }
    if (!w) {
      w = { start: at, written: 0, suppressed: 0, kind };
      this.windows.set(key, w);
      this.schedule();
    }
    if (w.written < this.perSecond) {
      w.written++;
      requestLog.warn('request failed', line);
    } else {
      w.suppressed++;
    }
  }

  private close(key: string, w: Window): void {
    this.windows.delete(key);
    if (w.suppressed > 0) {
      this.log.warn('requests failed (lines suppressed)', { ...w.kind, suppressed: w.suppressed, since: new Date(w.start).toISOString(), lines_per_second: this.perSecond });
    }
  }

  /** Windows end a second after they began; the timer runs only while one is open. */
  private schedule(): void {
    if (this.timer) return;
    const next = Math.min(...[...this.windows.values()].map((w) => w.start)) + 1000;
    this.timer = setTimeout(() => {
      this.timer = null;
      const at = this.now();
      for (const [key, w] of this.windows) if (at - w.start >= 1000) this.close(key, w);
      if (this.windows.size) this.schedule();
    }, Math.max(0, next - this.now()));
    this.timer.unref();
  }
}
