/**
 * Answers lookups by key, gathering the keys asked for in the same turn of the event loop into
 * one call of `load` (one statement for many concurrent events, not one each). Nothing is
 * cached: every lookup reads after it was asked, so a change committed before the ask is seen.
 * `load` answers a map by key; a key it leaves out answers `missing`.
 */
export function batchedLookup<K, V>(load: (keys: K[]) => Promise<Map<K, V>>, missing: V): (key: K) => Promise<V> {
  let waiting: Map<K, Array<{ resolve: (v: V) => void; reject: (e: unknown) => void }>> | null = null;
  const flush = async (batch: NonNullable<typeof waiting>) => {
    try {
      const found = await load([...batch.keys()]);
      for (const [key, askers] of batch) for (const a of askers) a.resolve(found.has(key) ? found.get(key)! : missing);
    } catch (err) {
      for (const askers of batch.values()) for (const a of askers) a.reject(err);
    }
  };
  return (key) =>
    new Promise<V>((resolve, reject) => {
      if (!waiting) {
        const batch = (waiting = new Map());
        setImmediate(() => {
          waiting = null;
          void flush(batch);
        });
      }
      const askers = waiting.get(key);
      if (askers) askers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
    });
}
