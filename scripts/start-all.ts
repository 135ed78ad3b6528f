/**
 * `npm start`: runs the five services and the gateway as separate processes against the local
 * Postgres and NATS, prefixes their logs, and prints where the gateway listens once all are ready.
 * Every process creates its own database, schema and streams on first start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { serviceNodeFlags } from './node-flags.js';

const root = path.resolve(import.meta.dirname, '..');
const services = [
  { name: 'settings', port: 8085 },
  { name: 'sales', port: 8081 },
  { name: 'purchase', port: 8082 },
  { name: 'finance', port: 8083 },
  { name: 'accounting', port: 8084 },
  { name: 'gateway', port: Number(process.env.PORT ?? 8080) },
];
// One internal token shared by the gateway and the services for this run, unless configured.
const env = { ...process.env, INTERNAL_TOKEN: process.env.INTERNAL_TOKEN ?? randomBytes(24).toString('hex') };
const children: ChildProcess[] = [];
let stopping = false;

function run(name: string, port: number) {
  const child = spawn(process.execPath, [...serviceNodeFlags(), '--import', 'tsx', path.join(root, 'apps', name, 'src', 'main.ts')], {
    cwd: root,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `${name.padEnd(10)}| `;
  const pipe = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream) => {
    let buf = '';
    stream.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const l of lines) out.write(prefix + l + '\n');
    });
  };
  pipe(child.stdout!, process.stdout);
  pipe(child.stderr!, process.stderr);
  child.on('exit', (code) => {
    if (stopping) return;
    process.stderr.write(`${prefix}exited with code ${code}; stopping everything\n`);
    shutdown(1);
  });
  children.push(child);
}

async function ready(port: number, timeoutMs = 60_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
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

function shutdown(code: number) {
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

// settings first: it bootstraps the first organisation and the gateway verifies keys with it.
run('settings', 8085);
if (!(await ready(8085))) {
  process.stderr.write('settings did not become ready\n');
  shutdown(1);
} else {
  for (const s of services.slice(1)) run(s.name, s.port);
  const ok = await Promise.all(services.map((s) => ready(s.port)));
  if (ok.every(Boolean)) {
    const gw = services[services.length - 1].port;
    process.stdout.write(`\nLedgerline is up: gateway http://127.0.0.1:${gw}/v1  (API reference http://127.0.0.1:${gw}/docs)\n\n`);
  } else {
    process.stderr.write(`not ready: ${services.filter((_, i) => !ok[i]).map((s) => s.name).join(', ')}\n`);
  }
}
