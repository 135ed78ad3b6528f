/*
 * Early load shedding (issue 79, part 3; decision 243). A process past its capacity that takes
 * every request answers all of them late: the queue, not the work, sets their latency (at twice
 * the capacity offered, the gateway's 512 in flight per service made every answer take 3–6 s
 * before a 503). The gate lets `maxConcurrent` requests work at once and queues the rest; a
 * queued request is refused (503, nothing done) when its wait shows the queue is standing rather
 * than a burst passing, in the manner of CoDel (Nichols and Jacobson, "Controlling Queue Delay",
 * ACM Queue 2012) as used for RPC queues (Maurer, "Fail at Scale", ACM Queue 2015):
 *
 * - while the shortest wait of the requests admitted from the queue over the last interval stayed
 *   under `targetMs`, the queue drains between arrivals: a request waits up to `maxWaitMs`;
 * - once even the shortest wait of an interval passed `targetMs`, the queue is standing: a
 *   request that would wait behind one already waiting longer than `targetMs` is refused at once,
 *   and a queued one is refused once it has waited `targetMs` (the queue is looked at every
 *   `targetMs` while anything waits, not only when a slot frees);
 * - the queue holds at most `maxQueue` requests; beyond them, refused at once.
 *
 * A queue whose every wait passed the target is standing only when at least as many came as
 * finished (decision 269): one that drains (more finished than came) shrinks by itself. And a
 * stall is not an overload: when nothing has finished for a while — longer than the target and
 * than four of the gaps between the requests the service usually finishes — while requests wait,
 * the service's database is holding commits, say, or the machine the process; refusing them would
 * not end the stall sooner, and the service takes them once it is over. The gate waits a stall
 * out (requests wait up to `maxWaitMs`), and the drain after it, until the queue stops standing:
 * for `maxWaitMs` from the first request that waited, and for as long as the queue drains after
 * that. An overload keeps the service finishing work, so it is judged as before.
 *
 * Only at the usual load (decision 270): a stall is what stops the service while no more comes
 * than usually does (at most twice the arrivals of the intervals in which the
 * service kept up). A surge of arrivals is an overload even while nothing finishes — cold code
 * meeting 400 requests a second first finishes nothing for a while — and ends a stall being
 * waited out. A stall that outlasted `maxWaitMs` is not waited out again until the service keeps
 * up (an interval with no wait past the target and nothing refused).
 *
 * Robust to how load really comes (decision 276): a surge is more than twice the usual arrivals
 * and more than chance adds to that (three standard deviations of a Poisson count), since at a
 * few arrivals an interval twice the usual is chance, and a client held by a busy machine sends
 * what fell due in a lump. And an interval in which requests worked or waited and none finished,
 * at the usual load, before four usual gaps have passed, leaves a waiting queue judged as it was:
 * at a low pace a few slots fill and a request waits past the target before the gaps can tell a
 * stall.
 *
 * So a burst is absorbed, a stall is waited out, sustained overload is refused before any work is
 * done (the body not even read), and what is accepted waits at most about `targetMs` beyond its
 * own work while the service is overloaded.
 */

export interface AdmissionOptions {
  /** Requests working at once; the rest queue. */
  maxConcurrent: number;
  /** Requests queued at most; beyond, refused at once. */
  maxQueue: number;
  /** The wait that, when even the shortest of an interval passes it, marks the queue as standing. */
  targetMs: number;
  /** How long the shortest wait is watched before the queue is judged again. */
  intervalMs: number;
  /** The longest any request waits for its turn. */
  maxWaitMs: number;
  /** The clock (milliseconds, monotonic); performance.now by default. */
  now?: () => number;
  /** Told of each interval judged a stall, whose queue is waited out rather than refused (metrics). */
  onStall?: () => void;
  /** Told when the queue is judged standing after it was not, with what the judgement saw (the operator's log). */
  onStanding?: (seen: StandingJudged) => void;
}

/** What an interval judged standing looked like: what an operator reads to tell an overload from a stall the gate did not see as one. */
export interface StandingJudged {
  /** The interval's length. */
  intervalMs: number;
  /** Requests that came in it, and that finished in it. */
  arrivals: number;
  finished: number;
  /** The shortest wait of the requests admitted in it (or the head's, when none was). */
  shortestWaitMs: number;
  /** Requests working and waiting at its end. */
  running: number;
  queued: number;
  /** How long before its end a request last finished, and the usual gap between finished requests (null before any was measured). */
  sinceFinishedMs: number;
  usualGapMs: number | null;
}

/** How fast the usual pace of finished requests follows a new interval's (exponential average; about five intervals' memory). */
const PACE_WEIGHT = 0.2;
/** A stall: nothing finished for this many of the usual gaps between finished requests (and for longer than the target). */
const STALL_GAPS = 4;
/** The load rose: more came in an interval than this many times the usual arrivals (an overload, not a stall)... */
const SURGE = 2;
/**
 * ...and more than chance brings above that: this many standard deviations of a Poisson count of
 * that mean. At a few arrivals an interval, twice the usual is chance (four a usual interval: nine
 * or more in about one interval of fifty), and a client whose event loop is held sends what fell
 * due in a lump; a stall judged a surge is refused for its whole length (decision 276).
 */
const CHANCE_SDS = 3;

/** Why a request was refused: the queue was full, it stands, or the request waited its longest. */
export type Refusal = 'queue_full' | 'standing_queue' | 'waited_too_long';

/**
 * Admitted: call `leave` exactly once when the request's work is done. `away` gives the slot back
 * while the request waits on someone outside the process (a register, another service's answer,
 * a bank); the `back` it returns takes a slot again at once, even past `maxConcurrent`: the
 * request was admitted, and refusing it halfway would throw away its work.
 */
export type Admission = { admitted: true; waitedMs: number; leave: () => void; away: () => () => void } | { admitted: false; reason: Refusal };

interface Waiter {
  since: number;
  resolve: (a: Admission) => void;
}

export class AdmissionGate {
  private running = 0;
  private readonly queue: Waiter[] = [];
  private readonly now: () => number;
  private intervalStart: number;
  /** The shortest wait of the requests admitted in the current interval (0 when one did not queue). */
  private shortestWait = Infinity;
  private standing = false;
  /** Requests that asked to be admitted in the current interval (queued, admitted or refused). */
  private arrivals = 0;
  /** Requests that finished in the current interval. */
  private finished = 0;
  /** Requests refused in the current interval. */
  private refused = 0;
  /** Requests finished a millisecond, as the intervals that were not a stall saw it (null: none judged yet). */
  private pace: number | null = null;
  /** Requests that came a millisecond over the intervals in which the service kept up: nothing waited past the target, nothing refused (null: none yet). */
  private arrivalPace: number | null = null;
  /** When a request last finished. */
  private lastFinished: number;
  /** When the first request waiting through the stall being waited out came (null: none). */
  private stallSince: number | null = null;
  /** A stall was waited out as long as it may be: none is waited out again until the service keeps up again (an interval with no wait past the target and nothing refused). */
  private outlasted = false;
  /** Looks at the queue while anything waits: a waiter whose turn does not come is refused in time, not when a slot frees. */
  private ticker: NodeJS.Timeout | null = null;

  constructor(private readonly opts: AdmissionOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.intervalStart = this.now();
    this.lastFinished = this.intervalStart;
  }

  /** Requests working now and waiting now (for metrics and tests). */
  get load(): { running: number; queued: number; standing: boolean; stalled: boolean } {
    return { running: this.running, queued: this.queue.length, standing: this.standing, stalled: this.stallSince !== null };
  }

  /** Admits the request at once, queues it, or refuses it; a queued request is answered when its turn comes or it is refused. */
  enter(): Admission | Promise<Admission> {
    const now = this.now();
    this.judge(now);
    this.arrivals++;
    if (this.running < this.opts.maxConcurrent && this.queue.length === 0) {
      this.observe(0);
      this.running++;
      return this.admission(0);
    }
    if (this.queue.length >= this.opts.maxQueue) return this.refuse('queue_full');
    const head = this.queue[0];
    if (this.standing && head && now - head.since > this.opts.targetMs) return this.refuse('standing_queue');
    return new Promise<Admission>((resolve) => {
      this.queue.push({ since: now, resolve });
      this.tick();
    });
  }

  /**
   * An admitted request holding one slot: leaves once; away from its slot and back any number of
   * times. Calls outside may overlap (a request asking two services at once): the slot is given
   * back when the first goes out and taken again when the last is back, not when the first is.
   */
  private admission(waitedMs: number): Admission {
    let left = false;
    /** Calls outside not back yet: the request holds its slot while there are none. */
    let outside = 0;
    return {
      admitted: true,
      waitedMs,
      leave: () => {
        if (left) return;
        left = true;
        this.finished++;
        this.lastFinished = this.now();
        if (outside > 0) return;
        this.running--;
        this.next();
      },
      away: () => {
        if (left) return () => undefined;
        if (outside++ === 0) {
          this.running--;
          this.next();
        }
        let back = false;
        return () => {
          if (back) return;
          back = true;
          if (--outside === 0 && !left) this.running++;
        };
      },
    };
  }

  /** Gives freed slots to the queue's head, refusing those that waited too long meanwhile. */
  private next(): void {
    const now = this.now();
    this.judge(now);
    this.refuseOverdue(now);
    while (this.running < this.opts.maxConcurrent && this.queue.length > 0) {
      const waiter = this.queue.shift()!;
      const waited = now - waiter.since;
      this.observe(waited);
      this.running++;
      waiter.resolve(this.admission(waited));
    }
  }

  /** Refuses, from the head, the waiters past their bound: maxWaitMs, or targetMs while the queue stands. */
  private refuseOverdue(now: number): void {
    const bound = this.standing ? this.opts.targetMs : this.opts.maxWaitMs;
    // FIFO: the head waited longest, so the overdue are a prefix of the queue
    while (this.queue.length > 0 && now - this.queue[0].since > bound) {
      this.queue.shift()!.resolve(this.refuse(this.standing ? 'standing_queue' : 'waited_too_long'));
    }
  }

  /** While anything waits, looks every target or interval (the shorter): judges the queue and refuses the overdue. */
  private tick(): void {
    if (this.ticker || this.queue.length === 0) return;
    const every = Math.max(1, Math.min(this.opts.targetMs, this.opts.intervalMs));
    this.ticker = setInterval(() => {
      const now = this.now();
      this.judge(now);
      this.refuseOverdue(now);
      if (this.queue.length === 0 && this.ticker) {
        clearInterval(this.ticker);
        this.ticker = null;
      }
    }, every);
    this.ticker.unref?.();
  }

  private refuse(reason: Refusal): Admission {
    this.refused++;
    return { admitted: false, reason };
  }

  private observe(waited: number): void {
    if (waited < this.shortestWait) this.shortestWait = waited;
  }

  /**
   * At each interval's end: the queue stands when even its shortest wait passed the target and
   * at least as many came as finished, unless a stall is being waited out: from an interval's end
   * at which requests wait, nothing has finished for longer than the target and four usual gaps
   * and no surge came (twice the usual arrivals and what chance adds), until the queue stops standing — for
   * `maxWaitMs` from the first request that waited, and while the queue drains after that, as
   * long as no surge comes.
   */
  private judge(now: number): void {
    const elapsed = now - this.intervalStart;
    if (elapsed < this.opts.intervalMs) return;
    // an interval in which nothing was admitted judges by the queue's head (still waiting)
    const shortest = this.shortestWait === Infinity ? (this.queue.length ? now - this.queue[0].since : 0) : this.shortestWait;
    const waitedPastTarget = shortest > this.opts.targetMs;
    const draining = this.finished > this.arrivals;
    // the service kept up with what came: nothing waited past the target, nothing was refused
    const keptUp = !waitedPastTarget && this.refused === 0;
    if (!waitedPastTarget) this.stallSince = null;
    if (keptUp) this.outlasted = false;
    // what came stayed about what usually comes while the service kept up: its clients did not
    // send more, so a queue is the service's doing; a surge is an overload, whatever else holds
    const usualLoad = this.arrivalPace !== null && this.arrivals <= surgeBound(SURGE * this.arrivalPace * elapsed);
    const known = usualLoad && this.pace !== null && this.pace > 0;
    // nothing finished for several usual gaps: the service stalled
    const quiet = known && this.queue.length > 0 && now - this.lastFinished > Math.max(this.opts.targetMs, STALL_GAPS / this.pace!);
    if (this.stallSince === null && !this.outlasted && quiet) this.stallSince = this.queue[0].since;
    // requests worked or waited through the interval at the usual load and none finished, but not
    // yet for four usual gaps: a stall may be beginning (a few slots fill before four gaps pass at
    // a low pace); the interval does not teach the pace, and a queue waiting is judged as it was
    // until the gaps tell (decision 276) — an empty one stands for nothing
    const undecided = known && this.finished === 0 && this.running + this.queue.length > 0 && this.stallSince === null && !this.outlasted;
    if (this.stallSince !== null && usualLoad && (now - this.stallSince <= this.opts.maxWaitMs || draining)) {
      this.standing = false;
      this.opts.onStall?.();
    } else {
      // a stall that outlasted a request's longest wait (or met a surge) is judged as an overload until the service keeps up again
      if (this.stallSince !== null) this.outlasted = true;
      this.stallSince = null;
      const usualGapMs = this.pace ? 1 / this.pace : null;
      const pace = this.finished / elapsed;
      if (!undecided) this.pace = this.pace === null ? pace : this.pace + PACE_WEIGHT * (pace - this.pace);
      // the usual load is what came while the service kept up: an overload's arrivals never become usual
      if (keptUp) {
        const arrivalPace = this.arrivals / elapsed;
        this.arrivalPace = this.arrivalPace === null ? arrivalPace : this.arrivalPace + PACE_WEIGHT * (arrivalPace - this.arrivalPace);
      }
      const wasStanding = this.standing;
      this.standing = undecided && this.queue.length > 0 ? wasStanding : waitedPastTarget && !draining;
      if (this.standing && !wasStanding) {
        this.opts.onStanding?.({
          intervalMs: elapsed,
          arrivals: this.arrivals,
          finished: this.finished,
          shortestWaitMs: shortest,
          running: this.running,
          queued: this.queue.length,
          sinceFinishedMs: now - this.lastFinished,
          usualGapMs,
        });
      }
    }
    this.shortestWait = Infinity;
    this.arrivals = 0;
    this.finished = 0;
    this.refused = 0;
    this.intervalStart = now;
  }
}

/** The most arrivals an interval whose expected count is `mean` brings by chance: the mean and CHANCE_SDS standard deviations of a Poisson count. */
function surgeBound(mean: number): number {
  return mean + CHANCE_SDS * Math.sqrt(mean);
}
