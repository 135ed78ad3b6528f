import { describe, expect, it } from 'vitest';
import { LookupCache } from './lookup-cache.js';

interface Answer {
  ok: boolean;
  expiresAt: number;
  n: number;
}

/** A lookup the test answers by hand, counting how often it was asked. */
function controlledLookup() {
  const asked: Array<{ resolve: (a: Answer) => void; reject: (e: Error) => void }> = [];
  const lookup = () => new Promise<Answer>((resolve, reject) => asked.push({ resolve, reject }));
  return { asked, lookup };
}

const usable = (a: Answer) => a.ok;

/** A cache holding settings' first answer for 'k' (looked up at 0), the lookup asked once so far. */
async function seeded(first: Answer) {
  const cache = new LookupCache<string, Answer>(10);
  const { asked, lookup } = controlledLookup();
  const pending = cache.current('k', lookup, 5_000, usable, 0);
  asked[0].resolve(first);
  await pending;
  return { cache, asked, lookup };
}
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('LookupCache.current: a credential answer past its TTL', () => {
  it('answers a fresh entry without a lookup', async () => {
    const { cache, asked, lookup } = await seeded({ ok: true, expiresAt: 2_000, n: 1 });
    expect(await cache.current('k', lookup, 5_000, usable, 1_999)).toMatchObject({ n: 1 });
    expect(asked).toHaveLength(1);
  });

  it('serves an expired answer that lets in for up to staleMs, looking it up once in the background; the new answer serves next', async () => {
    const { cache, asked, lookup } = await seeded({ ok: true, expiresAt: 1_000, n: 1 });
    // expired at 1 000: answered at once from the stale entry, two requests, one lookup between them
    expect(await cache.current('k', lookup, 5_000, usable, 1_500)).toMatchObject({ n: 1 });
    expect(await cache.current('k', lookup, 5_000, usable, 1_600)).toMatchObject({ n: 1 });
    expect(asked).toHaveLength(2);
    // settings now says no (a revocation the gateway missed): the next request reads it
    asked[1].resolve({ ok: false, expiresAt: 60_000, n: 2 });
    await settle();
    expect(await cache.current('k', lookup, 5_000, usable, 1_700)).toMatchObject({ ok: false, n: 2 });
  });

  it('keeps the stale answer when the background lookup fails, and tries again on the next request', async () => {
    const { cache, asked, lookup } = await seeded({ ok: true, expiresAt: 1_000, n: 1 });
    expect(await cache.current('k', lookup, 5_000, usable, 2_000)).toMatchObject({ n: 1 });
    asked[1].reject(new Error('settings is down'));
    await settle();
    expect(await cache.current('k', lookup, 5_000, usable, 3_000)).toMatchObject({ n: 1 });
    expect(asked).toHaveLength(3);
  });

  it('waits for the lookup past the stale window, for an answer that refuses, and when staleMs is 0', async () => {
    const { cache, asked, lookup } = await seeded({ ok: true, expiresAt: 1_000, n: 1 });

    // 1 000 + 5 000 is the window's end: no longer served
    let pending = cache.current('k', lookup, 5_000, usable, 6_000);
    expect(asked).toHaveLength(2);
    asked[1].resolve({ ok: false, expiresAt: 7_000, n: 2 });
    expect(await pending).toMatchObject({ n: 2 });

    // a refusal past its TTL is looked up again before it answers, whatever the window
    pending = cache.current('k', lookup, 5_000, usable, 7_500);
    expect(asked).toHaveLength(3);
    asked[2].resolve({ ok: true, expiresAt: 8_000, n: 3 });
    expect(await pending).toMatchObject({ ok: true, n: 3 });

    pending = cache.current('k', lookup, 0, usable, 8_001);
    expect(asked).toHaveLength(4);
    asked[3].reject(new Error('settings is down'));
    await expect(pending).rejects.toThrow('settings is down');
  });

  it('rejects a lookup that fails with nothing cached (the gateway answers 503)', async () => {
    const cache = new LookupCache<string, Answer>(10);
    const { asked, lookup } = controlledLookup();
    const pending = cache.current('k', lookup, 5_000, usable, 0);
    asked[0].reject(new Error('settings is down'));
    await expect(pending).rejects.toThrow('settings is down');
    expect(cache.peek('k')).toBeUndefined();
  });
});
