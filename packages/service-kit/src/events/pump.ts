import type { Logger } from '../logger.js';

/**
 * Runs a background job again and again: at once when kicked (a commit that gave it work), after
 * `idleMs` when a pass found nothing to do, at once when a pass was full, and after a growing
 * pause (up to 5 s) while passes fail. One pass at a time; `stop` waits for the running one.
 */
export abstract class Pump {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private failures = 0;

  constructor(
    private readonly pumping: { idleMs: number; what: string },
    protected readonly log: Logger,
  ) {}

  /**
   * One round of work; true when more is waiting (the next round runs at once). `idle`: this
   * round is the idle timer's look, not one that work woke (a kick, a full or failed round).
   */
  protected abstract pass(idle: boolean): Promise<boolean>;

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Work arrived: run now, or right after the pass that is running. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) await this.running;
  }

  private schedule(ms: number, idle = false) {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(idle), ms);
  }

  private async run(idle = false): Promise<void> {
    if (this.running || this.stopped) return;
    this.timer = null;
    let more = false;
    this.running = (async () => {
      try {
        more = await this.pass(idle);
        this.failures = 0;
      } catch (err) {
        this.failures++;
        if (this.failures === 1 || this.failures % 20 === 0) this.log.warn(`${this.pumping.what} failed; will retry`, { err: String(err) });
      }
    })();
    await this.running;
    this.running = null;
    const woken = this.again || more;
    const delay = woken ? 0 : this.failures ? Math.min(5000, this.pumping.idleMs * 2 ** Math.min(this.failures, 5)) : this.pumping.idleMs;
    this.again = false;
    this.schedule(delay, !woken && !this.failures);
  }
}
