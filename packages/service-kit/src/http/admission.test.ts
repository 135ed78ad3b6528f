import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdmissionGate, type Admission, type StandingJudged } from './admission.js';

let clock = 0;
const gate = (over: Partial<ConstructorParameters<typeof AdmissionGate>[0]> = {}) =>
  new AdmissionGate({ maxConcurrent: 2, maxQueue: 3, targetMs: 50, intervalMs: 100, maxWaitMs: 1000, now: () => clock, ...over });
const admitted = (a: Admission | Promise<Admission>) => a as Extract<Admission, { admitted: true }>;
const advance = async (ms: number) => {
  clock += ms;
  await vi.advanceTimersByTimeAsync(ms);
};

beforeEach(() => {
  clock = 0;
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe('AdmissionGate', () => {
  it('admits up to maxConcurrent at once and the rest in order as requests end, saying how long each waited', async () => {
    const g = gate();
    const a = admitted(g.enter());
    const b = admitted(g.enter());
    expect([a.admitted, b.admitted, a.waitedMs]).toEqual([true, true, 0]);
    const c = g.enter() as Promise<Admission>;
    const d = g.enter() as Promise<Admission>;
    expect(g.load).toEqual({ running: 2, queued: 2, standing: false, stalled: false });
    await advance(30);
    a.leave();
    a.leave(); // a second call frees nothing more
    expect(await c).toMatchObject({ admitted: true, waitedMs: 30 });
    expect(g.load).toEqual({ running: 2, queued: 1, standing: false, stalled: false });
    b.leave();
    expect(await d).toMatchObject({ admitted: true, waitedMs: 30 });
  });

  it('refuses at once beyond maxQueue, and a queued request that waited maxWaitMs', async () => {
    const g = gate();
    g.enter();
    g.enter();
    const queued = [g.enter(), g.enter(), g.enter()] as Promise<Admission>[];
    expect(g.enter()).toEqual({ admitted: false, reason: 'queue_full' });
    await advance(1050);
    expect(await Promise.all(queued)).toEqual([0, 1, 2].map(() => ({ admitted: false, reason: 'waited_too_long' })));
    expect(g.load.queued).toBe(0);
  });

  it('absorbs a burst: waits past the target are admitted while the queue drains', async () => {
    const g = gate({ maxQueue: 100 });
    const [a, b] = [admitted(g.enter()), admitted(g.enter())];
    const [c, d, e] = [g.enter(), g.enter(), g.enter()] as Promise<Admission>[];
    await advance(30);
    a.leave();
    b.leave();
    const [cc, dd] = [admitted(await c), admitted(await d)];
    expect([cc.waitedMs, dd.waitedMs]).toEqual([30, 30]);
    await advance(30);
    cc.leave();
    expect(await e).toMatchObject({ admitted: true, waitedMs: 60 });
    dd.leave();
  });

  it('refuses early once the queue stands, and takes requests again once it drains', async () => {
    const g = gate({ maxQueue: 100 });
    const running = [admitted(g.enter()), admitted(g.enter())];
    const first = g.enter() as Promise<Admission>;
    await advance(120);
    // the first interval saw requests admitted without waiting: not standing, the queue waits
    const second = g.enter() as Promise<Admission>;
    expect(g.load).toMatchObject({ queued: 2, standing: false, stalled: false });
    // a whole interval in which nobody got a turn and the head waited past the target: standing,
    // and whatever waited past the target is refused without waiting for a slot
    await advance(120);
    expect(await first).toEqual({ admitted: false, reason: 'standing_queue' });
    expect(await second).toEqual({ admitted: false, reason: 'standing_queue' });
    expect(g.load).toEqual({ running: 2, queued: 0, standing: true, stalled: false });
    // nobody ahead: the next one queues; one arriving behind a head that waited past the target is refused at once
    const third = g.enter() as Promise<Admission>;
    clock += 60;
    expect(g.enter()).toEqual({ admitted: false, reason: 'standing_queue' });
    await advance(50);
    expect(await third).toEqual({ admitted: false, reason: 'standing_queue' });
    // a request that finds a free slot does not queue: the next interval judges the queue drained
    running[0].leave();
    const free = admitted(g.enter());
    await advance(100);
    const later = g.enter() as Promise<Admission>;
    expect(g.load).toMatchObject({ running: 2, queued: 1, standing: false, stalled: false });
    await advance(70);
    free.leave();
    expect(await later).toMatchObject({ admitted: true, waitedMs: 70 });
  });

  it('gives the slot of a request waiting outside the process to the queue, and takes one again when it is back, even past the limit', async () => {
    const g = gate();
    const a = admitted(g.enter());
    const b = admitted(g.enter());
    const c = g.enter() as Promise<Admission>;
    await advance(10);
    const back = a.away();
    const cc = admitted(await c);
    expect(cc.waitedMs).toBe(10);
    expect(g.load).toEqual({ running: 2, queued: 0, standing: false, stalled: false });
    // away, the request holds nothing: another one queues behind the two working
    const d = g.enter() as Promise<Admission>;
    expect(g.load.queued).toBe(1);
    back();
    back(); // a second return takes nothing more
    expect(g.load).toEqual({ running: 3, queued: 1, standing: false, stalled: false });
    // the three leave; the queued one has its turn only once fewer than two work
    b.leave();
    expect(g.load).toEqual({ running: 2, queued: 1, standing: false, stalled: false });
    cc.leave();
    expect(await d).toMatchObject({ admitted: true });
    a.leave();
    a.leave();
    expect(g.load).toEqual({ running: 1, queued: 0, standing: false, stalled: false });
  });

  it('leaving while away frees nothing twice; away after leaving does nothing', async () => {
    const g = gate();
    const a = admitted(g.enter());
    const b = admitted(g.enter());
    const back = a.away();
    expect(g.load.running).toBe(1);
    a.leave(); // left while away: its slot was already given back
    back(); // a return after leaving takes nothing
    expect(g.load.running).toBe(1);
    b.leave();
    b.away()();
    expect(g.load).toEqual({ running: 0, queued: 0, standing: false, stalled: false });
  });

  it('calls outside that overlap give the slot back once and take it again when the last is back', async () => {
    const g = gate();
    const a = admitted(g.enter());
    admitted(g.enter());
    const first = a.away();
    const second = a.away(); // a second service asked while the first has not answered
    expect(g.load.running).toBe(1);
    first();
    first(); // one return per call, however often it is called
    // the request still waits on the second call: it holds no slot, so a newcomer is let in
    expect(g.load.running).toBe(1);
    const c = admitted(g.enter());
    expect(g.load.running).toBe(2);
    second();
    expect(g.load.running).toBe(3);
    // away again and left before the answer: its slot is not taken again by the late return
    const late = a.away();
    a.leave();
    late();
    c.leave();
    expect(g.load).toEqual({ running: 1, queued: 0, standing: false, stalled: false });
  });

  describe('a stall and an overload told apart (decision 269)', () => {
    // Two slots, intervals of 100 ms, target 50 ms, a request waits at most a second. A request
    // arrives every 10 ms and takes 10 ms of the service's work: it could finish 200 a second,
    // and is offered half of that.
    const opts = { maxConcurrent: 2, maxQueue: 1000, targetMs: 50, intervalMs: 100, maxWaitMs: 1000 };
    interface Traffic {
      answered: Admission[];
      working: Array<{ leave: () => void; doneAt: number }>;
    }
    const traffic = (): Traffic => ({ answered: [], working: [] });
    /** Runs `ms` of traffic, `perStep` arrivals every 10 ms; a request finishes `workMs` after its turn, later while `stalled` holds the service. */
    const run = async (
      g: AdmissionGate,
      t: Traffic,
      ms: number,
      { perStep = 1 as number | ((at: number) => number), workMs = 10, stalled = (_at: number): boolean => false } = {},
    ) => {
      for (let step = 0; step < ms; step += 10) {
        const arriving = typeof perStep === 'number' ? perStep : perStep(clock);
        for (let i = 0; i < arriving; i++) {
          const a = g.enter();
          const take = (x: Admission) => {
            t.answered.push(x);
            if (x.admitted) t.working.push({ leave: x.leave, doneAt: clock + workMs });
          };
          if (a instanceof Promise) void a.then(take);
          else take(a);
        }
        await advance(10);
        if (stalled(clock)) {
          // held: nothing finishes; what was due finishes 10 ms after the stall
          for (const w of t.working) w.doneAt = Math.max(w.doneAt, clock + 10);
          continue;
        }
        const due = t.working.filter((w) => w.doneAt <= clock);
        t.working = t.working.filter((w) => w.doneAt > clock);
        for (const w of due) w.leave();
        await Promise.resolve();
      }
    };
    /**
     * Arrivals a client means to send every `everyMs`, from a process whose event loop is held
     * for `heldMs` of every `periodMs` (its own work, a busy machine): what fell due while it was
     * held goes out at once when it is free, in a lump.
     */
    const lumps = (everyMs: number, heldMs: number, periodMs: number) => {
      const origin = clock;
      let sent = 0;
      return (at: number) => {
        if ((at - origin) % periodMs < heldMs) return 0;
        const due = Math.floor((at - origin) / everyMs) + 1;
        const now = due - sent;
        sent = due;
        return now;
      };
    };
    const refusals = (t: Traffic) => t.answered.flatMap((a) => (a.admitted ? [] : [a.reason]));
    const waits = (answers: Admission[]) => answers.flatMap((a) => (a.admitted ? [a.waitedMs] : []));

    it('waits out a stall of 600 ms: nothing refused, the queue drains once the service works again', async () => {
      const stalls: number[] = [];
      const judged: StandingJudged[] = [];
      const g = new AdmissionGate({ ...opts, now: () => clock, onStall: () => stalls.push(clock), onStanding: (seen) => judged.push(seen) });
      const t = traffic();
      await run(g, t, 1000);
      expect(g.load).toMatchObject({ queued: 0, standing: false, stalled: false });
      // the service's database holds everything for 600 ms; requests keep coming at the same pace
      const from = clock;
      await run(g, t, 600, { stalled: (at) => at < from + 600 });
      expect(g.load).toMatchObject({ standing: false, stalled: true });
      expect(g.load.queued).toBeGreaterThan(50);
      await run(g, t, 1500);
      expect(refusals(t)).toEqual([]);
      expect(t.answered.length).toBe(310);
      expect(g.load).toMatchObject({ queued: 0, standing: false, stalled: false });
      expect(stalls.length).toBeGreaterThanOrEqual(5);
      expect(judged).toEqual([]);
      // the longest wait was the stall's and the drain's, under a request's bound
      expect(Math.max(...waits(t.answered))).toBeGreaterThan(500);
      expect(Math.max(...waits(t.answered))).toBeLessThan(1000);
    });

    it.each([
      // 4 a usual interval, each 25 ms, but held for 150 ms of every 300: lumps of six between quiet
      // stretches, so an interval sees none or twice the usual and more, and the slots fill at once
      { what: 'in lumps', slots: 2, targetMs: 50, maxWaitMs: 1000, everyMs: 25, heldMs: 150 },
      // the same with the service's settings in tests/platform/stall-waited-out.e2e.test.ts
      { what: 'in lumps', slots: 4, targetMs: 20, maxWaitMs: 2000, everyMs: 25, heldMs: 150 },
      // 2 a usual interval, evenly: the two slots fill and a request waits past the target before
      // four usual gaps (200 ms) pass without a request finishing
      { what: 'evenly at a low pace', slots: 2, targetMs: 50, maxWaitMs: 1000, everyMs: 50, heldMs: 0 },
    ])('waits out a stall whenever it begins while the usual load comes $what: $slots slots, target $targetMs ms', async ({ slots, targetMs, maxWaitMs, everyMs, heldMs }) => {
      // the usual pace learned over a stretch, a pause, and 700 ms before the stall
      for (let onset = 0; onset < 300; onset += 10) {
        clock = 0;
        const judged: StandingJudged[] = [];
        const stalls: number[] = [];
        const g = new AdmissionGate({ ...opts, maxConcurrent: slots, targetMs, maxWaitMs, now: () => clock, onStall: () => stalls.push(clock), onStanding: (seen) => judged.push(seen) });
        const t = traffic();
        await run(g, t, 1500, { perStep: lumps(everyMs, heldMs, 300) });
        expect(refusals(t)).toEqual([]);
        await run(g, t, 300, { perStep: 0 });
        const arrivals = lumps(everyMs, heldMs, 300);
        const from = clock + 700 + onset;
        await run(g, t, 700 + onset + 700 + 1300, { perStep: arrivals, stalled: (at) => at >= from && at < from + 700 });
        expect({ onset, refused: refusals(t), judged }).toEqual({ onset, refused: [], judged: [] });
        expect(stalls.length).toBeGreaterThan(0);
        expect(g.load).toMatchObject({ standing: false, stalled: false });
        // what waited, waited through most of the stall and no longer than a request may
        expect(Math.max(...waits(t.answered))).toBeGreaterThan(400);
        expect(Math.max(...waits(t.answered))).toBeLessThan(maxWaitMs);
        await vi.runOnlyPendingTimersAsync();
      }
    });

    it('still refuses an overload early: more come than the working service finishes', async () => {
      const judged: StandingJudged[] = [];
      const g = new AdmissionGate({ ...opts, now: () => clock, onStanding: (seen) => judged.push(seen) });
      const t = traffic();
      await run(g, t, 1000);
      // three times what it can finish, the service working at its pace throughout
      await run(g, t, 2000, { perStep: 6 });
      expect(g.load).toMatchObject({ standing: true, stalled: false });
      // told at each turn to refusing (the queue drains between them, as CoDel's does), never more often than intervals
      expect(judged.length).toBeGreaterThanOrEqual(1);
      expect(judged.length).toBeLessThanOrEqual(20);
      const [seen] = judged;
      expect(seen.arrivals).toBeGreaterThan(seen.finished);
      expect(seen.finished).toBeGreaterThanOrEqual(15);
      expect(seen.shortestWaitMs).toBeGreaterThan(opts.targetMs);
      expect(seen.sinceFinishedMs).toBeLessThanOrEqual(10);
      // half the capacity came before the overload: a request finished every 10 ms
      expect(seen.usualGapMs).toBeGreaterThan(5);
      expect(seen.usualGapMs).toBeLessThanOrEqual(10);
      expect(seen.running).toBe(2);
      expect(seen.queued).toBeGreaterThan(0);
      const refused = refusals(t);
      expect(refused.length).toBeGreaterThan(700);
      expect(new Set(refused)).toEqual(new Set(['standing_queue']));
      // what was admitted waited about the target and one interval (the queue judged again), not a second
      expect(Math.max(...waits(t.answered.slice(-300)))).toBeLessThanOrEqual(opts.targetMs + opts.intervalMs);
    });

    it('a service slowed to a quarter of its pace, still finishing work, is judged as an overload, not a stall', async () => {
      const stalls: number[] = [];
      const g = new AdmissionGate({ ...opts, now: () => clock, onStall: () => stalls.push(clock) });
      const t = traffic();
      await run(g, t, 1000);
      // each request now takes 40 ms (the machine's cores taken by others, say): 50 a second finish, 100 come
      await run(g, t, 3000, { workMs: 40 });
      expect(stalls).toEqual([]);
      expect(new Set(refusals(t))).toEqual(new Set(['standing_queue']));
      expect(Math.max(...waits(t.answered.slice(-100)))).toBeLessThanOrEqual(opts.targetMs + opts.intervalMs);
    });

    it('a surge that finds cold code finishing nothing is an overload, not a stall', async () => {
      const stalls: number[] = [];
      const g = new AdmissionGate({ ...opts, now: () => clock, onStall: () => stalls.push(clock) });
      const t = traffic();
      await run(g, t, 1000);
      // six times the usual arrivals, and for its first 300 ms nothing finishes
      const from = clock;
      await run(g, t, 1500, { perStep: 6, stalled: (at) => at < from + 300 });
      expect(stalls).toEqual([]);
      expect(refusals(t).filter((r) => r === 'standing_queue').length).toBeGreaterThan(300);
      expect(Math.max(...waits(t.answered.slice(-200)))).toBeLessThanOrEqual(opts.targetMs + opts.intervalMs);
    });

    it('a surge of what comes is an overload while the service is slower too', async () => {
      const stalls: number[] = [];
      const g = new AdmissionGate({ ...opts, now: () => clock, onStall: () => stalls.push(clock) });
      const t = traffic();
      await run(g, t, 1000);
      // twice what came before, each request taking twice as long: the load rose, refused at once
      await run(g, t, 1000, { perStep: 2, workMs: 20 });
      expect(stalls).toEqual([]);
      expect(refusals(t).filter((r) => r === 'standing_queue').length).toBeGreaterThan(50);
    });

    it('an overload that begins during a stall ends the wait: refused once more come than usually do', async () => {
      const g = new AdmissionGate({ ...opts, now: () => clock });
      const t = traffic();
      await run(g, t, 1000);
      const from = clock;
      await run(g, t, 300, { stalled: (at) => at < from + 300 });
      expect(g.load.stalled).toBe(true);
      expect(refusals(t)).toEqual([]);
      // the service works again, but three times what it finishes keeps coming: an overload, judged as one
      await run(g, t, 200, { perStep: 6 });
      expect(g.load.stalled).toBe(false);
      expect(refusals(t)).toContain('standing_queue');
      await run(g, t, 1000, { perStep: 6 });
      expect(refusals(t).filter((r) => r === 'standing_queue').length).toBeGreaterThan(300);
      expect(Math.max(...waits(t.answered.slice(-200)))).toBeLessThanOrEqual(opts.targetMs + opts.intervalMs);
    });

    it('a stall longer than a request may wait becomes the pace the queue is judged by', async () => {
      const g = new AdmissionGate({ ...opts, now: () => clock });
      const t = traffic();
      await run(g, t, 1000);
      // held for three seconds: the requests that waited a second are refused, then the queue stands
      const from = clock;
      await run(g, t, 3000, { stalled: (at) => at < from + 3000 });
      expect(g.load).toMatchObject({ standing: true, stalled: false });
      expect(new Set(refusals(t))).toEqual(new Set(['waited_too_long', 'standing_queue']));
      // nothing waits long any more: a standing queue, refused past the target
      expect(g.load.queued).toBeLessThanOrEqual(7);
    });
  });
});
