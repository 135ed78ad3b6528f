import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** What `bench/paced/paced.c` prints: one open-loop run at a fixed offered rate. */
export interface PacedResult {
  offered_rate: number;
  /** answers per second of the run */
  rate: number;
  seconds: number;
  completed: number;
  /** connections lost or refused mid-request */
  errors: number;
  /** requests still unanswered 2 s after the end */
  unanswered: number;
  /** requests that never found a free connection before the end */
  unsent: number;
  status: Record<string, number>;
  /** latency in ms from when each request was due (not when it was sent) */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/**
 * A tool of `bench/paced/`, compiled from its C source the first time it is needed (and again
 * when the source is newer): any machine with a C compiler (Debian's `gcc`, which node-gyp needs
 * anyway) builds it in a second, and no binary is committed.
 */
function cTool(name: 'paced' | 'stalls'): string {
  const source = path.join(import.meta.dirname, 'paced', `${name}.c`);
  const binary = path.join(import.meta.dirname, 'paced', '.bin', name);
  if (existsSync(binary) && statSync(binary).mtimeMs >= statSync(source).mtimeMs) return binary;
  mkdirSync(path.dirname(binary), { recursive: true });
  const compiler = process.env.CC ?? 'cc';
  try {
    execFileSync(compiler, ['-O2', '-Wall', '-o', binary, source], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new Error(`cannot build bench/paced/${name}.c with ${compiler} (install gcc, or set CC): ${(err as { stderr?: Buffer }).stderr?.toString() ?? err}`);
  }
  return binary;
}

/** The paced load generator (`bench/paced/paced.c`). */
export const pacedBinary = () => cTool('paced');
/** The stall probe (`bench/paced/stalls.c`). */
export const stallsBinary = () => cTool('stalls');

/** What `bench/paced/stalls.c` prints: how late a process that only sleeps was woken. */
export interface StallResult {
  /** whether it ran with real-time priority (else its lateness includes waiting for a core) */
  realtime: boolean;
  seconds: number;
  wakeups: number;
  /** lateness of the wake-ups in ms */
  p50: number;
  p99: number;
  p999: number;
  max: number;
  over_2ms: number;
  over_5ms: number;
  over_10ms: number;
  /** ms lost to lateness beyond 1 ms, all wake-ups together */
  lost_ms: number;
}

/**
 * Sleeps a millisecond at a time for `seconds` and reports how late each wake-up came: the stalls
 * the machine imposes on every process whatever its code, to read the latency figures against.
 */
export function stallProbe(seconds: number, periodMs = 1): Promise<StallResult> {
  return new Promise((resolve, reject) => {
    execFile(stallsBinary(), ['--seconds', String(seconds), '--period-ms', String(periodMs)], { timeout: (seconds + 10) * 1000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`stall probe failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout) as StallResult);
    });
  });
}

/** A stall probe's reading as a figure's note. */
export function stallNote(r: StallResult): string {
  const perMinute = (k: number) => ((k * 60) / Math.max(0.001, r.seconds)).toFixed(0);
  return (
    `a process that only sleeps 1 ms at a time${r.realtime ? ' (real-time priority)' : ' (ordinary priority: real-time was refused)'}, ${r.seconds.toFixed(0)} s: ` +
    `woken late p50 ${r.p50.toFixed(2)}, p99 ${r.p99.toFixed(2)}, p99.9 ${r.p999.toFixed(2)}, max ${r.max.toFixed(1)} ms; ` +
    `per minute ${perMinute(r.over_2ms)} stalls over 2 ms, ${perMinute(r.over_5ms)} over 5, ${perMinute(r.over_10ms)} over 10`
  );
}

/**
 * An open-loop GET load at `rate` requests per second for `seconds`: request i is due at
 * start + i / rate and its latency counts from then, so time a server spends stalled is charged
 * to every request due meanwhile (autocannon's closed loop would send fewer instead).
 */
export function pacedLoad(opts: { url: string; rate: number; seconds: number; connections?: number; headers?: Record<string, string> }): Promise<PacedResult> {
  const args = ['--url', opts.url, '--rate', String(opts.rate), '--seconds', String(opts.seconds), '--connections', String(opts.connections ?? 64)];
  for (const [name, value] of Object.entries(opts.headers ?? {})) args.push('--header', `${name}: ${value}`);
  return new Promise((resolve, reject) => {
    execFile(pacedBinary(), args, { timeout: (opts.seconds + 30) * 1000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`paced load failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout) as PacedResult);
    });
  });
}
