import { describe, expect, it } from 'vitest';
import { retainedHeapGrowth, type HeapReading } from '../../bench/heap-growth.js';

/**
 * The soak's retained-heap figure (bench/heap-growth.ts): only what a full collection made under
 * the soak's load left is compared, or a lightly loaded process reads its boot heap against its
 * loaded one and looks like a leak.
 */
const seconds = (n: number, r: HeapReading): HeapReading[] => Array.from({ length: n }, () => ({ ...r }));

describe("the soak's retained heap, per process", () => {
  it('compares the troughs of the first and last readings left by collections made during the soak', () => {
    const readings = [
      ...seconds(5, { mb: 50, retained: true, majors: 4 }),
      ...seconds(5, { mb: 48, retained: true, majors: 5 }),
      ...seconds(20, { mb: 52, retained: true, majors: 6 }),
      ...seconds(5, { mb: 60, retained: true, majors: 7 }),
      ...seconds(5, { mb: 55, retained: true, majors: 8 }),
    ];
    // majors 3 at the soak's start: every reading counts; troughs 48 and 55
    const h = retainedHeapGrowth(readings, 10, 3);
    expect(h).toEqual({ start: 48, end: 55, growth: (55 - 48) / 48 });
  });

  it("leaves out what the boot's collection left: settings' +14.7 % was its boot heap against its loaded one", () => {
    // the boot's collection (1) stands until minutes in, then one under load (2) and another (3)
    const readings = [
      ...seconds(15, { mb: 41, retained: true, majors: 1 }),
      ...seconds(10, { mb: 47, retained: true, majors: 2 }),
      ...seconds(10, { mb: 47.5, retained: true, majors: 3 }),
    ];
    const h = retainedHeapGrowth(readings, 5, 1);
    expect(h).toEqual({ start: 47, end: 47.5, growth: 0.5 / 47 });
  });

  it('says why it cannot tell: one collection under load, none, or too few readings after the first', () => {
    const boot = seconds(30, { mb: 41, retained: true, majors: 1 });
    expect(retainedHeapGrowth(boot, 5, 1)).toEqual({ notCompared: "no full collection under the soak's load" });
    expect(retainedHeapGrowth([...boot, ...seconds(30, { mb: 47, retained: true, majors: 2 })], 5, 1)).toEqual({ notCompared: "one full collection under the soak's load" });
    const late = [...boot, ...seconds(4, { mb: 47, retained: true, majors: 2 }), ...seconds(4, { mb: 48, retained: true, majors: 3 })];
    expect(retainedHeapGrowth(late, 5, 1)).toEqual({ notCompared: "8 s of readings after its first full collection under the soak's load" });
  });

  it('never reads the heap in use (garbage included) as retained', () => {
    const readings = [...seconds(10, { mb: 90, retained: false, majors: 0 }), ...seconds(10, { mb: 40, retained: true, majors: 1 }), ...seconds(10, { mb: 41, retained: true, majors: 2 })];
    expect(retainedHeapGrowth(readings, 5, 0)).toEqual({ start: 40, end: 41, growth: 1 / 40 });
  });
});
