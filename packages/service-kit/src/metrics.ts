import { PerformanceObserver, constants, monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import v8 from 'node:v8';

/**
 * A small Prometheus text-format registry: counters and histograms with labels. Enough for
 * request rates, latencies, outbox backlog and consumer outcomes without a dependency.
 */
type Labels = Record<string, string>;
const renderLabels = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}="${String(labels[k]).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)
    .join(',');
/**
 * Rendered label sets by their names and values as given: every request counts itself with the
 * same few sets, and rendering one (sort, escape, join) cost more than the count.
 */
const rendered = new Map<string, string>();
const RENDERED_AT_MOST = 10_000;
const key = (labels: Labels): string => {
  let raw = '';
  // a value's length before it: no two label sets give one string, whatever their values hold
  for (const k in labels) raw += `${k}=${String(labels[k]).length}:${labels[k]},`;
  let k = rendered.get(raw);
  if (k === undefined) {
    k = renderLabels(labels);
    if (rendered.size < RENDERED_AT_MOST) rendered.set(raw, k);
  }
  return k;
};

class Counter {
  private values = new Map<string, number>();
  constructor(readonly name: string, readonly help: string) {}
  inc(labels: Labels = {}, by = 1) {
    const k = key(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ''} ${v}`);
    return lines.join('\n');
  }
}

class Gauge {
  private values = new Map<string, () => number>();
  constructor(readonly name: string, readonly help: string) {}
  set(labels: Labels, read: () => number) {
    this.values.set(key(labels), read);
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`];
    for (const [k, read] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ''} ${read()}`);
    return lines.join('\n');
  }
}

class Histogram {
  private series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string, readonly buckets: number[]) {}
  observe(labels: Labels, value: number) {
    const k = key(labels);
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]) s.counts[i]++;
    s.sum += value;
    s.count++;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [k, s] of this.series) {
      const sep = k ? ',' : '';
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket{${k}${sep}le="${b}"} ${s.counts[i]}`));
      lines.push(`${this.name}_bucket{${k}${sep}le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum${k ? `{${k}}` : ''} ${s.sum}`);
      lines.push(`${this.name}_count${k ? `{${k}}` : ''} ${s.count}`);
    }
    return lines.join('\n');
  }
}

/*
 * V8's collections, process-wide: how often each kind ran and how long it held the main thread.
 * A full ("major") collection every second or two under load is the sign of garbage that
 * outlives young-generation collections (decision 127); old space's size says how close the next
 * one is. Observed from the first registry made in the process.
 */
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
const gcTotals = new Map<string, { collections: number; seconds: number }>();
let gcObserver: PerformanceObserver | null = null;
/**
 * The V8 heap in use as the last full collection left it (read when its entry is observed, a few
 * milliseconds after): what the process retains, where the heap in use also counts garbage not
 * collected yet — which an idle process, its memory reducer off (decision 262), keeps for minutes.
 * A leak shows here; null until the first full collection.
 */
let heapAfterMajorGc: number | null = null;

function observeCollections(): void {
  if (gcObserver) return;
  gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      const total = gcTotals.get(kind) ?? { collections: 0, seconds: 0 };
      total.collections++;
      total.seconds += entry.duration / 1000;
      gcTotals.set(kind, total);
      if (kind === 'major') heapAfterMajorGc = v8.getHeapStatistics().used_heap_size;
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  loopDelay.enable();
}

/*
 * How late the process's event loop ran a timer due every 10 ms, since the process started: a
 * long synchronous stretch (a big answer serialised, a full collection, a machine that took the
 * core away) holds every request of the process, and an admission gate whose queue waited on it
 * refuses (decision 243). The maximum names the process and, read over time, the moment; never
 * reset, so reading /metrics changes nothing.
 */
const LOOP_DELAY_RESOLUTION_MS = 10;
let loopDelay: IntervalHistogram | null = null;

function loopDelayLines(): string[] {
  if (!loopDelay || loopDelay.count === 0) return [];
  // the histogram holds nanoseconds and counts the resolution itself in every sample
  const seconds = (ns: number) => Math.max(0, ns / 1e9 - LOOP_DELAY_RESOLUTION_MS / 1000);
  return [
    '# HELP nodejs_eventloop_lag_max_seconds The longest the event loop was late, since the process started',
    '# TYPE nodejs_eventloop_lag_max_seconds gauge',
    `nodejs_eventloop_lag_max_seconds ${seconds(loopDelay.max)}`,
    '# HELP nodejs_eventloop_lag_p99_seconds The 99th percentile of how late the event loop was, since the process started',
    '# TYPE nodejs_eventloop_lag_p99_seconds gauge',
    `nodejs_eventloop_lag_p99_seconds ${seconds(loopDelay.percentile(99))}`,
  ];
}

function collectionLines(): string[] {
  const kinds = [...gcTotals.keys()].sort();
  return [
    '# HELP nodejs_gc_collections_total V8 garbage collections by kind',
    '# TYPE nodejs_gc_collections_total counter',
    ...kinds.map((k) => `nodejs_gc_collections_total{kind="${k}"} ${gcTotals.get(k)!.collections}`),
    '# HELP nodejs_gc_pause_seconds_total Time V8 held the main thread collecting, by kind',
    '# TYPE nodejs_gc_pause_seconds_total counter',
    ...kinds.map((k) => `nodejs_gc_pause_seconds_total{kind="${k}"} ${gcTotals.get(k)!.seconds}`),
    ...(heapAfterMajorGc === null
      ? []
      : [
          '# HELP nodejs_heap_used_after_major_gc_bytes V8 heap in use as the last full collection left it (what the process retains)',
          '# TYPE nodejs_heap_used_after_major_gc_bytes gauge',
          `nodejs_heap_used_after_major_gc_bytes ${heapAfterMajorGc}`,
        ]),
    '# HELP nodejs_heap_space_used_bytes V8 heap in use by space',
    '# TYPE nodejs_heap_space_used_bytes gauge',
    ...v8.getHeapSpaceStatistics().map((sp) => `nodejs_heap_space_used_bytes{space="${sp.space_name}"} ${sp.space_used_size}`),
  ];
}

export class MetricsRegistry {
  /** One family per name: asking again for a name gives the family already registered. */
  private metrics = new Map<string, Counter | Gauge | Histogram>();
  constructor(readonly prefix: string) {
    observeCollections();
  }

  private family<M extends Counter | Gauge | Histogram>(name: string, kind: new (...args: never[]) => M, create: (full: string) => M): M {
    const full = `${this.prefix}_${name}`;
    const existing = this.metrics.get(full);
    if (existing) {
      if (!(existing instanceof kind)) throw new Error(`metric ${full} is already registered as another type`);
      return existing;
    }
    const m = create(full);
    this.metrics.set(full, m);
    return m;
  }
  counter(name: string, help: string): Counter {
    return this.family(name, Counter, (full) => new Counter(full, help));
  }
  gauge(name: string, help: string): Gauge {
    return this.family(name, Gauge, (full) => new Gauge(full, help));
  }
  histogram(name: string, help: string, buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]): Histogram {
    return this.family(name, Histogram, (full) => new Histogram(full, help, buckets));
  }
  render(): string {
    const mem = process.memoryUsage();
    const proc = [
      '# HELP process_resident_memory_bytes Resident memory of the process',
      '# TYPE process_resident_memory_bytes gauge',
      `process_resident_memory_bytes ${mem.rss}`,
      '# HELP nodejs_heap_used_bytes V8 heap in use',
      '# TYPE nodejs_heap_used_bytes gauge',
      `nodejs_heap_used_bytes ${mem.heapUsed}`,
      '# HELP process_uptime_seconds Seconds since the process started',
      '# TYPE process_uptime_seconds gauge',
      `process_uptime_seconds ${process.uptime()}`,
      ...collectionLines(),
      ...loopDelayLines(),
    ];
    return [...[...this.metrics.values()].map((m) => m.render()), ...proc].join('\n') + '\n';
  }
}
