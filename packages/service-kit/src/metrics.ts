/**
 * A small Prometheus text-format registry: counters and histograms with labels. Enough for
 * request rates, latencies, outbox backlog and consumer outcomes without a dependency.
 */
type Labels = Record<string, string>;
const key = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}="${String(labels[k]).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)
    .join(',');

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

export class MetricsRegistry {
  /** One family per name: asking again for a name gives the family already registered. */
  private metrics = new Map<string, Counter | Gauge | Histogram>();
  constructor(readonly prefix: string) {}

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
    ];
    return [...[...this.metrics.values()].map((m) => m.render()), ...proc].join('\n') + '\n';
  }
}
