import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { generateSecret } from '@ledgerline/service-kit';
import { dropIsolation, eventually, isolation } from './stack.js';

/*
 * `npm start` as an operator runs it (scripts/start-all.ts): every process supervised, on ports
 * and databases of this test alone. The supervisor's "started, pid N" lines tell the test which
 * process to kill.
 */

const root = path.resolve(import.meta.dirname, '../..');

export interface RunningSystem {
  gateway: string;
  /** The run's database prefix and subject prefix (and the rest of its isolation). */
  env: ReturnType<typeof isolation>;
  key: string;
  /** Pid of each supervised process by name (`sales`, `sales-2`, …), updated as they restart. */
  pids: Record<string, number>;
  /** Everything the supervisor printed so far. */
  output: () => string;
  /** SIGTERM, SIGKILL after 10 s, then the databases and streams are dropped. */
  stop: () => Promise<void>;
}

export async function startSystem(name: string, extraEnv: Record<string, string> = {}, readyMs = 90_000): Promise<RunningSystem> {
  const env = isolation();
  // below Linux's ephemeral range (32768 and up), where the system's own outgoing connections
  // (to Postgres, NATS) take their local ports: a service told to listen on one of those fails
  // with EADDRINUSE. Replicas listen 100 ports above, so the base leaves room for them.
  const port = 20_000 + Math.floor(Math.random() * 12_000);
  const key = generateSecret('ak');
  const pids: Record<string, number> = {};
  let output = '';
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/start-all.ts')], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      LOG_LEVEL: 'warn',
      PORT: String(port),
      BOOTSTRAP_API_KEY: key,
      INTERNAL_TOKEN: randomBytes(16).toString('hex'),
      RATE_LIMIT_PER_SECOND: '10000',
      RATE_LIMIT_BURST: '10000',
      DATA_DIR: path.join('/tmp', `ledgerline-${name}-${env.DATABASE_PREFIX}`),
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (d: Buffer) => {
    output += d.toString();
    for (const m of output.matchAll(/^([\w-]+)\s*\| supervisor: started, pid (\d+)$/gm)) pids[m[1]] = Number(m[2]);
  };
  proc.stdout!.on('data', collect);
  proc.stderr!.on('data', collect);
  const stop = async () => {
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
    await dropIsolation(env);
  };
  try {
    await eventually(async () => output.includes('Ledgerline is up'), readyMs, 200);
  } catch (err) {
    await stop();
    // what the processes said is what tells why they never came up
    throw new Error(`${(err as Error).message}; the system's last output:\n${output.slice(-4000)}`);
  }
  return { gateway: `http://127.0.0.1:${port}`, env, key, pids, output: () => output, stop };
}
