/**
 * `npm start`: runs the five services and the gateway as separate supervised processes against
 * the local Postgres and NATS, prefixes their logs, and prints where the gateway listens once all
 * are ready. The processes run as the container image runs them: built to JavaScript first (about
 * a second, scripts/bundle.ts), then on plain node, without a TypeScript loader (decision 135). A process that dies is restarted with backoff while the others keep serving
 * (scripts/supervisor.ts). Every process creates its own database, schema and streams on first start.
 * A Postgres or NATS that does not answer on this machine is started from the installed binaries
 * first, with its data in `<DATA_DIR>` (scripts/local-infrastructure.ts), or named in one line.
 *
 * `PORT` (default 8080) is the gateway's port; the services listen on the five ports after it.
 * `REPLICAS=2` (1–9) runs every service as that many processes (replica n listens 100 × (n − 1)
 * ports above the first); the gateway balances over them.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { bundleForRun, type ProcessName } from './bundle.js';
import { nodeFlagsOf } from './node-flags.js';
import { Supervised } from './supervisor.js';
import { ensureInfrastructure, MissingInfrastructure, type Infrastructure } from './local-infrastructure.js';

const root = path.resolve(import.meta.dirname, '..');
const gatewayPort = Number(process.env.PORT ?? 8080);
const services: Array<{ name: ProcessName; port: number }> = [
  { name: 'settings', port: gatewayPort + 5 },
  { name: 'sales', port: gatewayPort + 1 },
  { name: 'purchase', port: gatewayPort + 2 },
  { name: 'finance', port: gatewayPort + 3 },
  { name: 'accounting', port: gatewayPort + 4 },
];
const replicas = Math.max(1, Math.min(9, Number(process.env.REPLICAS ?? 1) || 1));
const replicaPorts = (port: number) => Array.from({ length: replicas }, (_, i) => port + 100 * i);
const replicaName = (name: string, i: number) => (i === 0 ? name : `${name}-${i + 1}`);
const urls = Object.fromEntries(
  services.map((s) => [
    `${s.name.toUpperCase()}_URL`,
    process.env[`${s.name.toUpperCase()}_URL`] ?? replicaPorts(s.port).map((p) => `http://127.0.0.1:${p}`).join(','),
  ]),
);
// One internal token shared by the gateway and the services for this run, unless configured.
const env = {
  ...process.env,
  INTERNAL_TOKEN: process.env.INTERNAL_TOKEN ?? randomBytes(24).toString('hex'),
  // a development machine's webhook receivers live on localhost; production never sets this
  WEBHOOKS_ALLOW_PRIVATE: process.env.WEBHOOKS_ALLOW_PRIVATE ?? (process.env.NODE_ENV === 'production' ? '0' : '1'),
};
const out = (l: string) => process.stdout.write(`${l}\n`);
const err = (l: string) => process.stderr.write(`${l}\n`);
const processes: Supervised[] = [];
let stopping = false;

// a Postgres or NATS missing on this machine is started here, or named in one line (scripts/local-infrastructure.ts)
let infrastructure: Infrastructure;
try {
  infrastructure = await ensureInfrastructure(env, (l) => out(`start | ${l}`));
} catch (e) {
  if (!(e instanceof MissingInfrastructure)) throw e;
  err(`npm start: ${e.message}`);
  process.exit(1);
}

let bundles: Awaited<ReturnType<typeof bundleForRun>>;
try {
  bundles = await bundleForRun('start');
} catch (e) {
  err(`could not build the processes: ${(e as Error).message}`);
  await infrastructure.stop();
  process.exit(1);
}

function run(name: string, port: number, extra: Record<string, string> = {}, app: ProcessName = name as ProcessName) {
  const p = new Supervised(
    {
      name,
      command: process.execPath,
      args: [...nodeFlagsOf(app), bundles.entry(app)],
      cwd: root,
      env: { ...env, ...extra, PORT: String(port) },
    },
    out,
    err,
  );
  p.start();
  processes.push(p);
}

async function ready(port: number, timeoutMs = 60_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && !stopping) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (r.ok) return true;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return false;
}

async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  await Promise.all(processes.map((p) => p.stop()));
  await bundles.remove().catch(() => undefined);
  await infrastructure.stop();
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

// settings first: it bootstraps the first organisation and the gateway verifies keys with it.
run('settings', services[0].port);
if (!(await ready(services[0].port))) {
  err('settings did not become ready');
  await shutdown(1);
} else {
  const all = [{ name: 'settings', port: services[0].port }];
  for (const s of services) {
    replicaPorts(s.port).forEach((port, i) => {
      if (s.name === 'settings' && i === 0) return; // running already
      run(replicaName(s.name, i), port, {}, s.name);
      all.push({ name: replicaName(s.name, i), port });
    });
  }
  run('gateway', gatewayPort, urls);
  all.push({ name: 'gateway', port: gatewayPort });
  const ok = await Promise.all(all.map((s) => ready(s.port)));
  if (ok.every(Boolean)) {
    out(`\nLedgerline is up: gateway http://127.0.0.1:${gatewayPort}/v1  (API reference http://127.0.0.1:${gatewayPort}/docs)\n`);
  } else {
    err(`not ready yet: ${all.filter((_, i) => !ok[i]).map((s) => s.name).join(', ')} (restarting with backoff)`);
  }
}
