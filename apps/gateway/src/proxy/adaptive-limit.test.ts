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

  it('climbs back one request per limit of answers while the service still refuses now and then, never past the maximum', () => {
    let clock = 0;
    const l = new AdaptiveLimit(64, 8, 100, () => clock);
    l.answered(true, 60);
    expect(l.limit).toBe(30);
    for (let i = 0; i < 31; i++) l.answered(false, 10);
    expect(l.limit).toBe(31);
    for (let i = 0; i < 10_000; i++) l.answered(false, 10);
    expect(l.limit).toBe(64);
  });

  it('doubles once a second after a second without a refusal, back to the maximum in a few seconds of calm (decision 270)', () => {
    let clock = 0;
    const l = new AdaptiveLimit(512, 8, 100, () => clock);
    for (let i = 0; i < 6; i++) {
      clock += 100;
      l.answered(true, 1);
    }
    expect(l.limit).toBe(8);
    // answers within the second after the last refusal climb one step per limit's worth
    clock += 900;
    for (let i = 0; i < 9; i++) l.answered(false, 8);
    expect(l.limit).toBe(9);
    // a second after the refusal: doubled once, then a step per limit's worth until the next second
    clock += 100;
    l.answered(false, 8);
    expect(l.limit).toBe(18);
    for (let i = 0; i < 18; i++) l.answered(false, 8);
    expect(l.limit).toBe(19);
    const limits: number[] = [];
    for (let second = 0; second < 6; second++) {
      clock += 1_000;
      l.answered(false, 8);
      limits.push(l.limit);
    }
    expect(limits).toEqual([38, 76, 152, 305, 512, 512]);
    // a refusal halves what was in flight and the calm starts again
    l.answered(true, 300);
    expect(l.limit).toBe(150);
    clock += 500;
    l.answered(false, 100);
    expect(l.limit).toBe(150);
    clock += 500;
    l.answered(false, 100);
    expect(l.limit).toBe(300);
  });

  it('stays low through an overload in which the service refuses every few tenths of a second', () => {
    let clock = 0;
    const l = new AdaptiveLimit(512, 8, 100, () => clock);
    l.answered(true, 64);
    for (let i = 0; i < 100; i++) {
      clock += 300;
      for (let j = 0; j < 20; j++) l.answered(false, 32);
      l.answered(true, 40);
    }
    expect(l.limit).toBeLessThanOrEqual(40);
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

