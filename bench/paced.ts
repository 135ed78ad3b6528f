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

const source = path.join(import.meta.dirname, 'paced', 'paced.c');
const binary = path.join(import.meta.dirname, 'paced', '.bin', 'paced');

/**
 * The paced generator, compiled from its source the first time it is needed (and again when the
 * source is newer): C, so any machine with a C compiler (Debian's `gcc`, which node-gyp needs
 * anyway) builds it in a second, and no binary is committed.
 */
export function pacedBinary(): string {
  if (existsSync(binary) && statSync(binary).mtimeMs >= statSync(source).mtimeMs) return binary;
  mkdirSync(path.dirname(binary), { recursive: true });
  const compiler = process.env.CC ?? 'cc';
  try {
    execFileSync(compiler, ['-O2', '-Wall', '-o', binary, source], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new Error(`cannot build the paced load generator with ${compiler} (install gcc, or set CC): ${(err as { stderr?: Buffer }).stderr?.toString() ?? err}`);
  }
  return binary;
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
