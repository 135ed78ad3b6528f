/**
 * What `npm start` needs besides itself: a Postgres and a NATS with JetStream. When one does not
 * answer at its URL, and the URL is on this machine, it is started from the binaries installed
 * here — Postgres from its own cluster in `<DATA_DIR>/postgres` (made with `initdb` on first
 * start), NATS with its store in `<DATA_DIR>/nats` — and stopped again when `npm start` stops.
 * When it cannot be (a remote URL, no binaries), one line says exactly what to run, and
 * `npm start` stops there instead of restarting every process on `connect ECONNREFUSED`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { databaseHosts, singleHostUrl } from '@ledgerline/service-kit/db/database-url';
import { asPostgres, findPostgresProgram, MissingInfrastructure, postgresUser } from './postgres-programs.js';

export interface Infrastructure {
  /** What was started here, for the first lines of `npm start`. */
  started: string[];
  stop: () => Promise<void>;
}

export { MissingInfrastructure };

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function reachable(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function waitReachable(host: string, port: number, timeoutMs: number, proc: ChildProcess): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && proc.exitCode === null) {
    if (await reachable(host, port, 500)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

function findNatsServer(env: NodeJS.ProcessEnv): string | null {
  if (env.NATS_SERVER_BIN) return existsSync(env.NATS_SERVER_BIN) ? env.NATS_SERVER_BIN : null;
  for (const d of [...(env.PATH ?? '').split(':').filter(Boolean), '/usr/sbin', '/usr/local/bin']) if (existsSync(path.join(d, 'nats-server'))) return path.join(d, 'nats-server');
  return null;
}

async function startPostgres(url: URL, dataRoot: string, env: NodeJS.ProcessEnv, say: (l: string) => void): Promise<ChildProcess> {
  const initdb = findPostgresProgram('initdb', env);
  const postgres = findPostgresProgram('postgres', env);
  const port = Number(url.port || 5432);
  if (!initdb || !postgres) {
    throw new MissingInfrastructure(
      `Postgres does not answer at ${url.host} and none is installed here: install it (Debian/Ubuntu: \`sudo apt install postgresql\`) or run one (\`docker run -d -p ${port}:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15\`), then \`npm start\` again`,
    );
  }
  const dir = path.resolve(dataRoot, 'postgres');
  const owner = postgresUser();
  mkdirSync(dir, { recursive: true });
  if (owner) chownSync(dir, owner.uid, owner.gid);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    say(`no Postgres answers at ${url.host}: making a cluster of this checkout in ${dir} (initdb)`);
    const [cmd, args] = asPostgres(initdb, ['-D', dir, '-U', decodeURIComponent(url.username || 'postgres'), '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
    execFileSync(cmd, args, { stdio: 'ignore', timeout: 120_000 });
  }
  say(`starting Postgres from ${dir} on ${url.hostname}:${port}`);
  const [cmd, args] = asPostgres(postgres, ['-D', dir, '-p', String(port), '-c', `listen_addresses=${url.hostname.replace(/^\[|\]$/g, '')}`, '-c', `unix_socket_directories=${dir}`]);
  const proc = spawn(cmd, args, { stdio: 'ignore', detached: true });
  if (!(await waitReachable(url.hostname, port, 30_000, proc))) {
    proc.kill('SIGTERM');
    throw new MissingInfrastructure(`Postgres from ${dir} did not start on port ${port}: run \`${postgres} -D ${dir} -p ${port}\` to see why`);
  }
  return proc;
}

async function startNats(url: URL, dataRoot: string, env: NodeJS.ProcessEnv, say: (l: string) => void): Promise<ChildProcess> {
  const bin = findNatsServer(env);
  const port = Number(url.port || 4222);
  if (!bin) {
    throw new MissingInfrastructure(
      `NATS does not answer at ${url.host} and no nats-server is installed here: install it (Debian/Ubuntu: \`sudo apt install nats-server\`) or run one (\`docker run -d -p ${port}:4222 nats:2.9 -js\`), then \`npm start\` again`,
    );
  }
  const store = path.resolve(dataRoot, 'nats');
  mkdirSync(store, { recursive: true });
  say(`no NATS answers at ${url.host}: starting ${bin} with JetStream, its store in ${store}`);
  const proc = spawn(bin, ['-a', url.hostname.replace(/^\[|\]$/g, ''), '-p', String(port), '-js', '-sd', store], { stdio: 'ignore', detached: true });
  if (!(await waitReachable(url.hostname, port, 15_000, proc))) {
    proc.kill('SIGTERM');
    throw new MissingInfrastructure(`nats-server did not start on port ${port}: run \`${bin} -js -p ${port} -sd ${store}\` to see why`);
  }
  return proc;
}

async function stopProcess(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  // the whole group: runuser and the postmaster under it
  try {
    process.kill(-proc.pid!, signal);
  } catch {
    proc.kill(signal);
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000).unref())]);
}

/**
 * Makes sure the Postgres at `DATABASE_URL` and the NATS at the first of `NATS_URL` answer,
 * starting the missing one here when its URL is on this machine. Throws MissingInfrastructure
 * with the one line to show when it cannot.
 */
export async function ensureInfrastructure(env: NodeJS.ProcessEnv, say: (l: string) => void): Promise<Infrastructure> {
  const started: Array<{ name: string; proc: ChildProcess; signal: NodeJS.Signals }> = [];
  const dataRoot = env.DATA_DIR ?? './data';
  const stop = async () => {
    // NATS first: the services' last events wait in their outboxes, never the other way round
    for (const s of started.reverse()) await stopProcess(s.proc, s.signal);
  };
  try {
    const dbUrl = env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const hosts = databaseHosts(dbUrl);
    // several servers (a primary and standbys): the services find the one that takes writes; only a lone one is started here
    const answering = await Promise.all(hosts.map((h) => reachable(h.host, h.port)));
    const db = new URL(singleHostUrl(dbUrl, hosts[0] ?? { host: '127.0.0.1', port: 5432 }));
    if (!answering.some(Boolean) && hosts.length > 1) throw new MissingInfrastructure(`none of the Postgres servers of DATABASE_URL answers (${hosts.map((h) => `${h.host}:${h.port}`).join(', ')})`);
    if (!answering.some(Boolean)) {
      if (!LOOPBACK.has(db.hostname)) throw new MissingInfrastructure(`Postgres does not answer at ${db.host} (DATABASE_URL): start it there, or point DATABASE_URL at a running one`);
      // SIGINT: Postgres's fast shutdown (sessions ended, a clean checkpoint)
      started.push({ name: `Postgres (${path.resolve(dataRoot, 'postgres')})`, proc: await startPostgres(db, dataRoot, env, say), signal: 'SIGINT' });
    }
    const nats = new URL((env.NATS_URL ?? 'nats://127.0.0.1:4222').split(',')[0]);
    if (!(await reachable(nats.hostname, Number(nats.port || 4222)))) {
      if (!LOOPBACK.has(nats.hostname)) throw new MissingInfrastructure(`NATS does not answer at ${nats.host} (NATS_URL): start it there, or point NATS_URL at a running one`);
      started.push({ name: `NATS (${path.resolve(dataRoot, 'nats')})`, proc: await startNats(nats, dataRoot, env, say), signal: 'SIGTERM' });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { started: started.map((s) => s.name), stop };
}
