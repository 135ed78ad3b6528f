import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from './metrics.js';

const series = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));

describe('metric label sets', () => {
  it('counts label sets apart however their values are written, and one set given in any order as one', () => {
    const registry = new MetricsRegistry('t1');
    const c = registry.counter('hits_total', 'hits');
    // values that a plain join of names and values would run together
    c.inc({ a: 'x,b=1:y' });
    c.inc({ a: 'x', b: '1:y' });
    c.inc({ a: 'x', b: '1:y' });
    c.inc({ b: '1:y', a: 'x' });
    c.inc({ a: 'say "hi" \\ there' });
    expect(series(registry.render(), 't1_hits_total').sort()).toEqual(
      ['t1_hits_total{a="say \\"hi\\" \\\\ there"} 1', 't1_hits_total{a="x",b="1:y"} 3', 't1_hits_total{a="x,b=1:y"} 1'].sort(),
    );
  });

  it('keeps histogram series by their labels', () => {
    const registry = new MetricsRegistry('t2');
    const h = registry.histogram('took_seconds', 'took', [0.1, 1]);
    h.observe({ route: '/a', method: 'GET' }, 0.05);
    h.observe({ method: 'GET', route: '/a' }, 0.5);
    h.observe({ route: '/b', method: 'GET' }, 2);
    const text = registry.render();
    expect(text).toContain('t2_took_seconds_count{method="GET",route="/a"} 2');
    expect(text).toContain('t2_took_seconds_bucket{method="GET",route="/a",le="0.1"} 1');
    expect(text).toContain('t2_took_seconds_bucket{method="GET",route="/b",le="+Inf"} 1');
    expect(text).toContain('t2_took_seconds_bucket{method="GET",route="/b",le="1"} 0');
  });
});

describe('event-loop lag', () => {
  it('reports the longest the loop was held, past a synchronous stretch, and reading it twice reads the same', async () => {
    const registry = new MetricsRegistry('t3');
    const lag = (text: string, name: string) => Number(/ ([\d.e-]+)$/.exec(series(text, name)[0] ?? '')?.[1]);
    await new Promise((r) => setTimeout(r, 50));
    const start = performance.now();
    while (performance.now() - start < 150);
    await new Promise((r) => setTimeout(r, 40));
    const text = registry.render();
    const max = lag(text, 'nodejs_eventloop_lag_max_seconds');
    expect(max).toBeGreaterThanOrEqual(0.12);
    expect(lag(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(lag(registry.render(), 'nodejs_eventloop_lag_max_seconds')).toBe(max);
  });
});

describe('heap after a full collection', () => {
  it('reads what the last full collection kept: a retained 32 MB shows, and is gone once released and collected', async () => {
    // a full collection on demand, as --expose-gc would give it
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const registry = new MetricsRegistry('t4');
    const after = () => Number(/ (\d+)$/.exec(series(registry.render(), 'nodejs_heap_used_after_major_gc_bytes')[0] ?? '')?.[1]);
    // the observer is told of a collection a moment after it
    const collected = async () => {
      gc();
      await new Promise((r) => setTimeout(r, 50));
      return after();
    };
    let kept: number[][] | null = Array.from({ length: 32 }, () => new Array(128 * 1024).fill(1.5)); // 32 × 1 MB of doubles
    const holding = await collected();
    expect(kept.length).toBe(32);
    kept = null;
    const released = await collected();
    expect(holding - released).toBeGreaterThan(30 * 1024 * 1024);
    // garbage made since the collection is in the heap in use, not in what the collection left
    const garbage = Array.from({ length: 16 }, () => new Array(128 * 1024).fill(2.5));
    expect(garbage.length).toBe(16);
    expect(after()).toBe(released);
  });
});

