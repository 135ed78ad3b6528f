import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from './adaptive-limit.js';

describe('AdaptiveLimit', () => {
  it('starts at the maximum and lets requests go below it', () => {
    const l = new AdaptiveLimit(512);
    expect(l.limit).toBe(512);
    expect([l.allows(511), l.allows(512)]).toEqual([true, false]);
  });

  it("halves what was in flight on a service's overload answer, once per interval", () => {
    let clock = 0;
    const l = new AdaptiveLimit(512, 8, 100, () => clock);
    l.answered(true, 200);
    expect(l.limit).toBe(100);
    // the rest of the same burst of refusals changes nothing
    l.answered(true, 150);
    expect(l.limit).toBe(100);
    clock = 100;
    l.answered(true, 190); // never above the limit it had
    expect(l.limit).toBe(50);
    for (let i = 0; i < 100; i++) {
      clock += 100;
      l.answered(true, 1);
    }
    expect(l.limit).toBe(8);
  });

  it('climbs back one request per limit of answers, never past the maximum', () => {
    let clock = 0;
    const l = new AdaptiveLimit(64, 8, 100, () => clock);
    l.answered(true, 60);
    expect(l.limit).toBe(30);
    for (let i = 0; i < 31; i++) l.answered(false, 10);
    expect(l.limit).toBe(31);
    for (let i = 0; i < 10_000; i++) l.answered(false, 10);
    expect(l.limit).toBe(64);
  });

  it('never rises past a maximum set below the usual floor when the service refuses', () => {
    let clock = 0;
    const l = new AdaptiveLimit(4, 8, 100, () => clock);
    l.answered(true, 4);
    expect(l.limit).toBe(4);
    expect(l.allows(4)).toBe(false);
    clock += 200;
    l.answered(true, 1);
    expect(l.limit).toBe(4);
  });
});

