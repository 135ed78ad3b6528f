import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Restart policy of `npm start`: a process that exits unexpectedly is started again after a
 * delay that doubles with each quick failure (0.5 s, 1 s, 2 s … at most 30 s) and goes back to
 * the first step once the process has stayed up for a minute. Decision 54.
 */
export const RESTART_POLICY = { firstDelayMs: 500, maxDelayMs: 30_000, stableAfterMs: 60_000 };

/** Delay before restart number `attempt` (1-based) of a process that keeps failing. */
export function restartDelay(attempt: number, policy = RESTART_POLICY): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, attempt - 1));
}

export interface SupervisedSpec {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

type Log = (line: string) => void;

/** One supervised process: started, its output prefixed, restarted with backoff when it dies. */
export class Supervised {
  child: ChildProcess | undefined;
  private attempts = 0;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    private readonly spec: SupervisedSpec,
    private readonly out: Log,
    private readonly err: Log,
  ) {}

  start(): void {
    const { name } = this.spec;
    const child = spawn(this.spec.command, this.spec.args, { cwd: this.spec.cwd, env: this.spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.startedAt = Date.now();
    const prefix = `${name.padEnd(10)}| `;
    pipeLines(child.stdout!, (l) => this.out(prefix + l));
    pipeLines(child.stderr!, (l) => this.err(prefix + l));
    this.out(`${prefix}supervisor: started, pid ${child.pid}`);
    child.on('exit', (code, signal) => {
      if (this.stopping) return;
      if (Date.now() - this.startedAt >= RESTART_POLICY.stableAfterMs) this.attempts = 0;
      this.attempts++;
      const delay = restartDelay(this.attempts);
      this.err(`${prefix}supervisor: exited (${signal ?? `code ${code}`}); restart ${this.attempts} in ${delay} ms, the other processes keep serving`);
      this.timer = setTimeout(() => this.start(), delay);
    });
  }

  stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}

function pipeLines(stream: NodeJS.ReadableStream, write: Log) {
  let buf = '';
  stream.on('data', (d: Buffer) => {
    buf += d.toString();
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    for (const l of lines) write(l);
  });
}
