import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/ports.js';

async function waitForPort(port: number, up: boolean, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const open = await new Promise<boolean>((r) => {
      const sock = net.connect(port, '127.0.0.1', () => {
        sock.destroy();
        r(true);
      });
      sock.on('error', () => r(false));
    });
    if (open === up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server port ${port} did not become ${up ? 'open' : 'closed'}`);
}

/**
 * A private nats-server (same binary as the machine's) with its own JetStream store, so a test
 * can stop and restart NATS without disturbing the shared server other tests use.
 */
export class PrivateNats {
  private proc: ChildProcess | null = null;
  readonly storeDir = mkdtempSync(path.join(os.tmpdir(), 'ledgerline-nats-'));
  port = 0;

  /**
   * `configFile`: run with that configuration (its port and address overridden, its store
   * directory given as LEDGERLINE_NATS_STORE_DIR); `env`: the server's environment, which the
   * configuration's `$VARIABLES` (passwords) are read from.
   */
  constructor(private readonly opts: { configFile?: string; env?: Record<string, string> } = {}) {}

  get url() {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!this.port) this.port = await freePort();
    const bin = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
    const args = this.opts.configFile
      ? ['-c', this.opts.configFile, '-a', '127.0.0.1', '-p', String(this.port)]
      : ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir];
    this.proc = spawn(bin, args, { stdio: 'ignore', env: { ...process.env, ...this.opts.env, LEDGERLINE_NATS_STORE_DIR: this.storeDir } });
    await waitForPort(this.port, true);
  }

  async stop(): Promise<void> {
    if (!this.proc) return;
    const p = this.proc;
    this.proc = null;
    await new Promise<void>((r) => {
      p.once('exit', () => r());
      p.kill('SIGTERM');
    });
    await waitForPort(this.port, false);
  }
}
