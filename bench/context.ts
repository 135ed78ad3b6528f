/**
 * What every benchmark is handed and reports: the running system, the figures it adds, and the
 * windows its profile is read over. Apart from bench/run.ts, so that the suites it runs need not
 * import the runner back.
 */
import type { BenchStack } from './stack.js';
import type { ProfileWindow } from './profiles.js';

export interface Figure {
  name: string;
  value: number | null;
  unit: string;
  ceiling?: number | null;
  ceilingName?: string;
  ratio?: number | null;
  target?: string;
  met?: boolean | null;
  note?: string;
}

export interface BenchContext {
  stack: BenchStack;
  quick: boolean;
  figures: Figure[];
  auth: Record<string, string>;
  /**
   * The stretches `--profile` reads the profiles over: a benchmark marks its measured window
   * (`markWindow`); one that marks none is read over the whole of its run.
   */
  windows: ProfileWindow[];
  /** Each process's CPU ms per wall ms with nothing to do, read before the first benchmark. */
  idleFloor?: Record<string, number>;
  /** Invoices a second the system took through the gateway this hour (`documentCapacity`), once measured. */
  capacity?: number;
}

/** One benchmark: its title (what `--only` matches) and what it runs. */
export interface Benchmark {
  title: string;
  run: (ctx: BenchContext) => Promise<void>;
}
