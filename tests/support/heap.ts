import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

const oldSpaceUsed = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;

/**
 * Runs `work` and says what it left in V8's old generation: how much old space grew and how many
 * full collections ran meanwhile (decision 127: garbage that outlives young-generation
 * collections fills old space, or makes V8 run a full collection to clear it).
 */
export async function oldGenerationAfter(work: () => Promise<void>): Promise<{ fullCollections: number; grownBytes: number }> {
  let fullCollections = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullCollections++;
  });
  observer.observe({ entryTypes: ['gc'] });
  const before = oldSpaceUsed();
  await work();
  const grownBytes = oldSpaceUsed() - before;
  await new Promise((r) => setTimeout(r, 50)); // the observer hears of collections asynchronously
  observer.disconnect();
  return { fullCollections, grownBytes };
}
