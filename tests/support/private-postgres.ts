import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.js';
import { asPostgres, findPostgresProgram, postgresUser } from '../../scripts/postgres-programs.js';

const run = promisify(execFile);

/** The machine's Postgres programs, found as `npm start` finds them. */
export function postgresBin(name: string): string {
  return findPostgresProgram(name, process.env) ?? name;
}

/** The Postgres programs run as `npm start` runs them: as root, as the `postgres` user, which owns their folders. */
function command(bin: string, args: string[]): [string, string[]] {
  return asPostgres(postgresBin(bin), args);
}
function ownFolder(dir: string): void {
  const owner = postgresUser();
  if (owner) chownSync(dir, owner.uid, owner.gid);
}

export async function pgTool(bin: string, args: string[], opts: { timeoutMs?: number } = {}): Promise<string> {
  const [cmd, argv] = command(bin, args);
  const { stdout } = await run(cmd, argv, { timeout: opts.timeoutMs ?? 60_000 });
  return stdout;
}

/**
 * A Postgres cluster of a test's own, on a loopback port and in a temporary folder, so that a
 * test can stop, crash, promote or restore it without disturbing the server other tests use.
 * Everything it starts it stops (`destroy`), and every wait is bounded.
 */
export class PrivatePostgres {
  readonly dir: string;
  port = 0;
  private proc: ChildProcess | null = null;

  constructor(readonly name = 'pg', dir?: string) {
    this.dir = dir ?? mkdtempSync(path.join(os.tmpdir(), `ledgerline-${name}-`));
    ownFolder(this.dir);
  }

  get dataDir(): string {
    return path.join(this.dir, 'data');
  }
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** A new cluster: trust on loopback, replication allowed, `settings` added to postgresql.conf. */
  async init(settings: Record<string, string | number> = {}): Promise<this> {
    if (!this.port) this.port = await freePort();
    await pgTool('initdb', ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'], { timeoutMs: 120_000 });
    this.configure({ listen_addresses: "'127.0.0.1'", unix_socket_directories: `'${this.dir}'`, fsync: 'off', max_connections: 200, wal_level: 'replica', max_wal_senders: 10, ...settings });
    appendFileSync(path.join(this.dataDir, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    return this;
  }

  /** A standby cloned from `primary` (pg_basebackup), streaming from it; `settings` go to its postgresql.conf. */
  async cloneFrom(primary: PrivatePostgres, settings: Record<string, string | number> = {}): Promise<this> {
    if (!this.port) this.port = await freePort();
    await pgTool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', this.dataDir, '-X', 'stream', '-R', '--no-sync', '-c', 'fast'], { timeoutMs: 120_000 });
    this.configure({ port: this.port, unix_socket_directories: `'${this.dir}'`, ...settings });
    return this;
  }

  configure(settings: Record<string, string | number>): void {
    const lines = Object.entries({ port: this.port, ...settings }).map(([k, v]) => `${k} = ${v}`);
    appendFileSync(path.join(this.dataDir, 'postgresql.conf'), `${lines.join('\n')}\n`);
  }

  /** Starts the postmaster and waits (at most `timeoutMs`) until it accepts sessions. */
  async start(timeoutMs = 30_000): Promise<void> {
    const [cmd, argv] = command('postgres', ['-D', this.dataDir]);
    // a process group of its own: a SIGKILL of the group is the whole server dying at once
    this.proc = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'ignore'], detached: true });
    await this.waitReady(timeoutMs);
  }

  async waitReady(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < until) {
      const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 1000 });
      try {
        await c.connect();
        await c.query('select 1');
        await c.end();
        return;
      } catch (e) {
        last = e;
        await c.end().catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`the private Postgres on port ${this.port} did not accept sessions within ${timeoutMs} ms: ${String(last)}`);
  }

  /** `fast`: a clean stop (sessions ended with 57P01); `immediate`: a crash (recovery on the next start); `kill`: SIGKILL of the postmaster. */
  async stop(how: 'fast' | 'immediate' | 'kill' = 'fast'): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    if (how === 'kill') {
      // the postmaster and every backend at once, as when the machine or the pod dies
      process.kill(-p.pid!, 'SIGKILL');
    } else await pgTool('pg_ctl', ['stop', '-D', this.dataDir, '-m', how, '-w', '-t', '30']).catch(() => p.kill(how === 'fast' ? 'SIGINT' : 'SIGQUIT'));
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000).unref())]);
    this.proc = null;
    // the children of a killed postmaster hold the port a moment more
    if (how === 'kill') await this.waitPortFree(10_000);
  }

  private async waitPortFree(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 500 });
      const open = await c.connect().then(
        () => true,
        (e: { code?: string }) => e.code !== 'ECONNREFUSED',
      );
      await c.end().catch(() => undefined);
      if (!open) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Promotes a standby to primary and waits until it takes writes. */
  async promote(timeoutMs = 30_000): Promise<void> {
    await pgTool('pg_ctl', ['promote', '-D', this.dataDir, '-w', '-t', String(Math.ceil(timeoutMs / 1000))]);
  }

  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
