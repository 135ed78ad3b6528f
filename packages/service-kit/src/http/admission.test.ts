import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdmissionGate, type Admission } from './admission.js';

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
    expect(g.load).toEqual({ running: 2, queued: 2, standing: false });
    await advance(30);
    a.leave();
    a.leave(); // a second call frees nothing more
    expect(await c).toMatchObject({ admitted: true, waitedMs: 30 });
    expect(g.load).toEqual({ running: 2, queued: 1, standing: false });
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
    expect(g.load).toMatchObject({ queued: 2, standing: false });
    // a whole interval in which nobody got a turn and the head waited past the target: standing,
    // and whatever waited past the target is refused without waiting for a slot
    await advance(120);
    expect(await first).toEqual({ admitted: false, reason: 'standing_queue' });
    expect(await second).toEqual({ admitted: false, reason: 'standing_queue' });
    expect(g.load).toEqual({ running: 2, queued: 0, standing: true });
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
    expect(g.load).toMatchObject({ running: 2, queued: 1, standing: false });
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
    expect(g.load).toEqual({ running: 2, queued: 0, standing: false });
    // away, the request holds nothing: another one queues behind the two working
    const d = g.enter() as Promise<Admission>;
    expect(g.load.queued).toBe(1);
    back();
    back(); // a second return takes nothing more
    expect(g.load).toEqual({ running: 3, queued: 1, standing: false });
    // the three leave; the queued one has its turn only once fewer than two work
    b.leave();
    expect(g.load).toEqual({ running: 2, queued: 1, standing: false });
    cc.leave();
    expect(await d).toMatchObject({ admitted: true });
    a.leave();
    a.leave();
    expect(g.load).toEqual({ running: 1, queued: 0, standing: false });
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
    expect(g.load).toEqual({ running: 0, queued: 0, standing: false });
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
    expect(g.load).toEqual({ running: 1, queued: 0, standing: false });
  });
});
