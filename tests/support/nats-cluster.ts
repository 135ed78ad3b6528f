import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { freePort } from './ports.js';

/**
 * A NATS cluster of `size` nats-servers with JetStream on loopback, each with a store of its own,
 * started and stopped by a test (the machine's nats-server binary). A node can be killed with
 * SIGKILL and started again on the same ports and store.
 */
export class NatsCluster {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'ledgerline-nats-cluster-'));
  readonly nodes: Array<{ name: string; port: number; routePort: number; proc: ChildProcess | null }> = [];

  constructor(private readonly size = 3) {}

  /** Every node's client URL, comma-separated, as the services' NATS_URL. */
  get url(): string {
    return this.nodes.map((n) => `nats://127.0.0.1:${n.port}`).join(',');
  }

  async start(timeoutMs = 30_000): Promise<void> {
    for (let i = 0; i < this.size; i++) this.nodes.push({ name: `n${i + 1}`, port: await freePort(), routePort: await freePort(), proc: null });
    for (let i = 0; i < this.size; i++) this.startNode(i);
    await this.waitForJetStream(timeoutMs);
  }

  startNode(i: number): void {
    const n = this.nodes[i];
    const routes = this.nodes.filter((_, j) => j !== i).map((o) => `nats://127.0.0.1:${o.routePort}`).join(',');
    const bin = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
    n.proc = spawn(
      bin,
      ['-a', '127.0.0.1', '-p', String(n.port), '-n', n.name, '-js', '-sd', path.join(this.dir, n.name), '--cluster_name', 'ledgerline-ha', '--cluster', `nats://127.0.0.1:${n.routePort}`, '--routes', routes],
      { stdio: 'ignore' },
    );
  }

  /** Until the cluster has a JetStream meta leader (streams can be made), at most `timeoutMs`. */
  async waitForJetStream(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < until) {
      try {
        const nc = await connect({ servers: this.url.split(','), timeout: 1000 });
        try {
          const jsm = await jetstreamManager(nc, { timeout: 2000 });
          const info = await jsm.getAccountInfo();
          if (info) return;
        } finally {
          await nc.close();
        }
      } catch (e) {
        last = e;
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    throw new Error(`the NATS cluster had no JetStream leader within ${timeoutMs} ms: ${String(last)}`);
  }

  kill(i: number): void {
    this.nodes[i].proc?.kill('SIGKILL');
    this.nodes[i].proc = null;
  }

  async destroy(): Promise<void> {
    for (const n of this.nodes) {
      const p = n.proc;
      if (!p || p.exitCode !== null) continue;
      await new Promise<void>((r) => {
        p.once('exit', () => r());
        p.kill('SIGTERM');
        setTimeout(() => p.kill('SIGKILL'), 5000);
      });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
