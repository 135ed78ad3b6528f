import { describe, expect, it } from 'vitest';
import { batchedLookup } from './batched-lookup.js';

describe('batchedLookup', () => {
  const recording = () => {
    const calls: number[][] = [];
    const lookup = batchedLookup<number, string[]>(async (keys) => {
      calls.push(keys);
      if (keys.includes(666)) throw new Error('the database went away');
      return new Map(keys.filter((k) => k % 2 === 0).map((k) => [k, [`endpoint of ${k}`]]));
    }, []);
    return { calls, lookup };
  };

  it('gathers the keys asked for in one turn into one load, each key once, and answers every asker', async () => {
    const { calls, lookup } = recording();
    const answers = await Promise.all([lookup(2), lookup(3), lookup(2), lookup(4)]);
    expect(calls).toEqual([[2, 3, 4]]);
    expect(answers).toEqual([['endpoint of 2'], [], ['endpoint of 2'], ['endpoint of 4']]);
  });

  it('keeps nothing: a later ask loads again', async () => {
    const { calls, lookup } = recording();
    await lookup(2);
    await lookup(2);
    expect(calls).toEqual([[2], [2]]);
  });

  it('a failed load fails only the askers of its batch', async () => {
    const { calls, lookup } = recording();
    const failed = Promise.allSettled([lookup(666), lookup(2)]);
    expect((await failed).map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await lookup(2)).toEqual(['endpoint of 2']);
    expect(calls).toEqual([[666, 2], [2]]);
  });
});
