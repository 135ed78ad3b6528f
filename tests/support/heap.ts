import { Session } from 'node:inspector/promises';
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

interface ProfileNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: ProfileNode[];
}

/** Bytes allocated in files whose path ends with `suffix` during `work` that outlived young-generation collections (sampled). */
export async function survivingBytesFrom(suffix: string, work: () => Promise<void>): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
    await work();
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
    let bytes = 0;
    const walk = (n: ProfileNode) => {
      if (n.callFrame.url.endsWith(suffix)) bytes += n.selfSize;
      n.children.forEach(walk);
    };
    walk(profile.head);
    return bytes;
  } finally {
    session.disconnect();
  }
}
