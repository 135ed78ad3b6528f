/*
 * The soak's retained-heap figure for one process (decision 262): V8's heap as its last full
 * collection left it (`nodejs_heap_used_after_major_gc_bytes`), read once a second over the soak's
 * second half, the trough of the half's first readings against the trough of its last.
 *
 * Only a collection made while the soak ran counts. A process the soak loads lightly (settings,
 * which sees the events only) may make its first full collection under load minutes in: until
 * then the gauge still holds what the collection at boot left, and the figure read the boot's
 * heap against the loaded process's — settings +14.7 % (41 → 47 MB), where two heap snapshots a
 * few minutes apart under the soak differed by 1.6 MB, nearly all of it code V8 compiled as more
 * functions ran hot (baseline and optimised code, a bundle's line ends once): warm-up, not
 * something kept per request.
 */

/** One second's reading of a process. */
export interface HeapReading {
  /** MB: what the last full collection left, or the heap in use before the first (`retained` false). */
  mb: number;
  retained: boolean;
  /** Full collections the process had made by then (`nodejs_gc_collections_total{kind="major"}`). */
  majors: number;
}

export type HeapComparison = { start: number; end: number; growth: number } | { notCompared: string };

/**
 * The growth of what a process retained over the readings, or why it cannot be told: the readings
 * left by collections made after the soak began (`majorsAtBegin`), at least two collections among
 * them and `windowSeconds` readings at each end.
 */
export function retainedHeapGrowth(readings: HeapReading[], windowSeconds: number, majorsAtBegin: number): HeapComparison {
  const valid = readings.filter((r) => r.retained && r.majors > majorsAtBegin);
  const collections = new Set(valid.map((r) => r.majors)).size;
  if (collections < 2) return { notCompared: `${collections === 0 ? 'no' : 'one'} full collection under the soak's load` };
  if (valid.length < 2 * windowSeconds) return { notCompared: `${valid.length} s of readings after its first full collection under the soak's load` };
  const trough = (rs: HeapReading[]) => Math.min(...rs.map((r) => r.mb));
  const start = trough(valid.slice(0, windowSeconds));
  const end = trough(valid.slice(-windowSeconds));
  return { start, end, growth: (end - start) / (start || 1) };
}
