/*
 * How many requests the gateway lets one service have in flight (decision 243): additive increase,
 * multiplicative decrease on the service's overload answers, as TCP does with its window. A service
 * past its capacity refuses early what it cannot take soon (503, its admission gate); each such
 * answer halves the gateway's limit from what was in flight then (at most once per
 * `decreaseEveryMs`, so one burst of refusals is one step down; halving reaches a service's level
 * from 512 in a few tenths of a second, where 0.9 took two seconds of slow answers in the bench),
 * and each other answer raises it
 * by 1/limit (one step up per limit's worth of answers), up to `max`. Once the service has refused
 * nothing for `calmMs`, the limit doubles, at most once per `calmMs` (decision 270): an overload
 * keeps the service refusing and the limit where the halving put it, but a limit the last overload
 * left low must not stay low for minutes of calm (a step up per limit's worth of answers takes a
 * limit of 14 back to 512 after some 130 000 answers), since a stall the service now waits out
 * (decision 269) fills the requests in flight with waiting ones past a low limit, and the gateway
 * refused what the service would have answered. Beyond the limit the
 * gateway answers 503 itself, before reading the body or forwarding anything: the refusals a
 * service would have made cost it nothing, and the machine's time goes to the work it accepts.
 */
export class AdaptiveLimit {
  private current: number;
  private lastDecrease = -Infinity;
  private lastDoubling = -Infinity;

  /** The least the limit falls to: `min`, or the maximum when that is smaller (a cap of 4 stays a cap of 4). */
  private readonly floor: number;

  constructor(
    private readonly max: number,
    min = 8,
    private readonly decreaseEveryMs = 100,
    private readonly now: () => number = () => performance.now(),
    private readonly calmMs = 1_000,
  ) {
    this.current = max;
    this.floor = Math.max(1, Math.min(min, max));
  }

  /** The limit now, in whole requests. */
  get limit(): number {
    return Math.floor(this.current);
  }

  /** Whether one more request may go while `inflight` are in flight. */
  allows(inflight: number): boolean {
    return inflight < this.limit;
  }

  /** A service's answer while `inflight` were in flight (this one included), and whether it was its overload refusal. */
  answered(overloaded: boolean, inflight: number): void {
    if (overloaded) {
      const now = this.now();
      if (now - this.lastDecrease < this.decreaseEveryMs) return;
      this.lastDecrease = now;
      this.current = Math.max(this.floor, Math.min(this.current, inflight) / 2);
      return;
    }
    if (this.current >= this.max) return;
    const now = this.now();
    if (now - this.lastDecrease >= this.calmMs && now - this.lastDoubling >= this.calmMs) {
      this.lastDoubling = now;
      this.current = Math.min(this.max, this.current * 2);
      return;
    }
    this.current = Math.min(this.max, this.current + 1 / this.current);
  }
}
