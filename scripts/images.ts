/**
 * Builds one container image per process (`ledgerline/gateway`, `ledgerline/sales`, …) and the
 * PostgreSQL and NATS images the container tests run, all without an image registry:
 *
 *   1. `ledgerline/debian:bookworm`: a Debian root file system made by `debootstrap
 *      --variant=minbase` from the machine's own apt mirror, loaded with `docker import`
 *      (skipped when the image exists; `--rebuild-base` makes it anew);
 *   2. `ledgerline/node:20`: that plus this machine's Node.js binary (deploy/images/node.Dockerfile);
 *   3. `ledgerline/runtime:20` (and `runtime-chromium:20`, for the sales service's PDFs): what
 *      every process image shares (deploy/images/runtime.Dockerfile);
 *   4. per process: its bundle (the third-party packages in it), the packages it still imports (those
 *      that read files of their own, decision 257) and its start script, nothing else
 *      (deploy/images/process.Dockerfile), tagged with the release version and `latest`;
 *   5. `ledgerline/postgres:15` and `ledgerline/nats:2.9` from Debian's packages.
 *
 *   npm run images                                  everything
 *   npm run images -- --only=sales,gateway          some processes (and the images under them)
 *   npm run images -- --node-image=node:20-bookworm-slim   build on the official image (needs a registry)
 *
 * Needs a running Docker engine (and debootstrap, for the base image); builds use the host network.
 *
 * Steps that do not need each other run at once: the processes' contexts (bundles and packages) are
 * made while the base is built, and the engine builds two images at a time, the longest path first.
 * Each step's output is kept and printed when it fails (`--verbose` prints it all as it comes, each
 * line led by its step's name).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROCESSES, bundleOneProcess, packageFolder, root, type ProcessName } from './bundle.js';
import { GATEWAY_MAX_OLD_SPACE_MB, IDLE_HEAP_FLAGS, MAX_OLD_SPACE_MB } from './node-flags.js';

const args = new Map(process.argv.slice(2).map((a) => [a.replace(/^--/, '').split('=')[0], a.includes('=') ? a.slice(a.indexOf('=') + 1) : 'true']));
const only = args.get('only')?.split(',') as ProcessName[] | undefined;
const nodeImage = args.get('node-image') ?? 'ledgerline/node:20';
const verbose = args.has('verbose');
const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
const CONTEXTS = path.join(root, '.images');
const DOCKERFILES = path.join(root, 'deploy/images');
export const BASE_IMAGE = 'ledgerline/debian:bookworm';

/** The images the container tests run beside the processes (deploy/images/<name>.Dockerfile). */
const INFRASTRUCTURE = { postgres: 'ledgerline/postgres:15', nats: 'ledgerline/nats:2.9' };

/** Debian packages a process needs beside Node.js: the sales service prints PDFs with Chromium. */
const APT_PACKAGES: Partial<Record<ProcessName, string>> = {
  sales: 'chromium fonts-dejavu-core fonts-liberation',
};

/** Images the engine builds at once (2026-12-05: every one at once 189 s, two at a time 184 s, one 235-257 s). */
const ENGINE_BUILDS_AT_ONCE = 2;

/** A failed command, with what it printed (kept, so steps running at once do not mix their output). */
class StepFailure extends Error {
  constructor(message: string, readonly output: string) {
    super(message);
  }
}

/** Runs a command of step `label`: its output kept (or, with --verbose, printed led by the label). */
function run(label: string, cmd: string, argv: string[], opts: { cwd?: string } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd: opts.cwd ?? root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    const keep = (chunk: Buffer) => {
      if (verbose) process.stdout.write(chunk.toString().replace(/^(?=.)/gm, `[${label}] `));
      else chunks.push(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => reject(new StepFailure(`${cmd}: ${err.message}`, Buffer.concat(chunks).toString())));
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new StepFailure(`${cmd} ${argv.join(' ')} failed (${code ?? signal})`, Buffer.concat(chunks).toString()));
    });
  });
}

const imageExists = (name: string) => spawnSync('docker', ['image', 'inspect', name], { stdio: 'ignore' }).status === 0;

/** The machine's Debian mirror (deb822 or one-line sources), else Debian's own. */
function debianMirror(): string {
  if (process.env.DEBIAN_MIRROR) return process.env.DEBIAN_MIRROR;
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const m = /^URIs:\s*(\S+\/debian)\s*$/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+bookworm\b/m.exec(text);
    if (m) return m[1];
  }
  return 'http://deb.debian.org/debian';
}

async function buildBase(): Promise<void> {
  if (imageExists(BASE_IMAGE) && !args.has('rebuild-base')) return;
  const dir = fs.mkdtempSync('/tmp/ledgerline-rootfs-');
  try {
    process.stdout.write(`debootstrap bookworm from ${debianMirror()}\n`);
    await run('base', 'debootstrap', ['--variant=minbase', '--include=ca-certificates', 'bookworm', dir, debianMirror()]);
    // no apt caches in the image; its root readable by every user (mkdtemp made it 0700)
    for (const sub of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
      fs.rmSync(path.join(dir, sub), { recursive: true, force: true });
      fs.mkdirSync(path.join(dir, sub, 'partial'), { recursive: true });
    }
    fs.chmodSync(dir, 0o755);
    // the file system streamed into the engine (not held in memory while other steps run)
    const script = 'set -o pipefail; tar -C "$1" --numeric-owner -c . | docker import --change \'CMD ["/bin/bash"]\' --change \'ENV LANG=C.UTF-8\' - "$2"';
    await run('base', 'bash', ['-c', script, 'import', dir, BASE_IMAGE]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function dockerBuild(label: string, tags: string[], dockerfile: string, context: string, buildArgs: Record<string, string> = {}): Promise<void> {
  const argv = ['build', '--network', 'host', '-f', path.join(DOCKERFILES, dockerfile)];
  for (const t of tags) argv.push('-t', t);
  for (const [k, v] of Object.entries(buildArgs)) argv.push('--build-arg', `${k}=${v}`);
  return run(label, 'docker', [...argv, context]);
}

async function buildNode(): Promise<void> {
  if (nodeImage !== 'ledgerline/node:20') return; // an official image: nothing to make
  const ctx = path.join(CONTEXTS, 'node');
  fs.rmSync(ctx, { recursive: true, force: true });
  fs.mkdirSync(ctx, { recursive: true });
  fs.copyFileSync(process.execPath, path.join(ctx, 'node'));
  fs.chmodSync(path.join(ctx, 'node'), 0o755);
  await dockerBuild('node', [nodeImage], 'node.Dockerfile', ctx, { BASE_IMAGE });
}

/**
 * The packages `imported` need at run time, each as the folder Node resolves it to: their
 * dependencies (and optional and peer ones installed), transitively. A package nested in
 * another's node_modules travels with its parent.
 */
export function runtimePackages(imported: string[]): string[] {
  const topLevel = new Set<string>();
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    if (!path.relative(path.join(root, 'node_modules'), dir).split(path.sep).includes('node_modules')) topLevel.add(dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const deps = { ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies };
    for (const dep of Object.keys(deps)) {
      const found = packageFolder(dep, dir);
      if (found) visit(found);
    }
  };
  for (const name of imported) {
    const found = packageFolder(name, root);
    if (!found) throw new Error(`${name} is imported but not installed`);
    visit(found);
  }
  return [...topLevel].sort();
}

/** The runtime every process image builds on: plain, or with the Debian packages a process needs. */
const runtimeImage = (packages: string | undefined) => (packages ? 'ledgerline/runtime-chromium:20' : 'ledgerline/runtime:20');

/** One runtime image: plain, or with the Debian packages a process needs. */
async function buildRuntime(packages: string): Promise<void> {
  const empty = fs.mkdtempSync('/tmp/ledgerline-runtime-');
  try {
    await dockerBuild(runtimeImage(packages), [runtimeImage(packages)], 'runtime.Dockerfile', empty, { NODE_IMAGE: nodeImage, ...(packages ? { APT_PACKAGES: packages } : {}) });
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
}

/** A process's build context: its bundle, the packages it imports and its start script. */
async function processContext(name: ProcessName): Promise<string> {
  const ctx = path.join(CONTEXTS, name);
  await fs.promises.rm(ctx, { recursive: true, force: true });
  const imported = await bundleOneProcess(name, path.join(ctx, 'dist'), { printsPdfs: name in APT_PACKAGES });
  const modules = path.join(ctx, 'node_modules');
  await fs.promises.mkdir(modules, { recursive: true });
  for (const dir of runtimePackages(imported)) {
    const target = path.join(modules, path.relative(path.join(root, 'node_modules'), dir));
    await fs.promises.cp(dir, target, { recursive: true, dereference: true, filter: (src) => !src.endsWith('/.bin') });
  }
  // the process's own old-space cap, as `npm start` gives it (MAX_OLD_SPACE_MB overrides it), and
  // the memory reducer off (decision 262; V8 refuses that flag in NODE_OPTIONS)
  const cap = name === 'gateway' ? GATEWAY_MAX_OLD_SPACE_MB : MAX_OLD_SPACE_MB;
  await fs.promises.writeFile(path.join(ctx, 'start.sh'), `# ${name}: written by npm run images\nexec node --max-old-space-size="\${MAX_OLD_SPACE_MB:-${cap}}" ${IDLE_HEAP_FLAGS.join(' ')} dist/${name}.mjs\n`);
  return ctx;
}

/**
 * At most `limit` of the calls given to the answered function run at once; of those waiting, the
 * one of the lowest rank goes first (then the earliest).
 */
function limited(limit: number): <T>(rank: number, work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<{ rank: number; go: () => void }> = [];
  return async (rank, work) => {
    // a finishing call hands its slot to the next waiting one, so none slips in between
    if (running >= limit) {
      await new Promise<void>((go) => {
        const at = waiting.findIndex((w) => w.rank > rank);
        waiting.splice(at < 0 ? waiting.length : at, 0, { rank, go });
      });
    } else running++;
    try {
      return await work();
    } finally {
      // chosen on the next turn of the loop, so what this call's end made ready can queue first
      setImmediate(() => {
        const next = waiting.shift();
        if (next) next.go();
        else running--;
      });
    }
  };
}

const started = Date.now();
const failures: StepFailure[] = [];
/** Runs one step of the build and says how long it took, so a slow build shows which step was slow. */
async function step<T>(name: string, build: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  try {
    const done = await build();
    process.stdout.write(`[images] ${name}: ${Math.round((Date.now() - t0) / 1000)} s\n`);
    return done;
  } catch (err) {
    const failure = err instanceof StepFailure ? err : new StepFailure(String((err as Error)?.stack ?? err), '');
    process.stdout.write(`[images] ${name} failed after ${Math.round((Date.now() - t0) / 1000)} s: ${failure.message}\n${failure.output}`);
    failures.push(failure);
    throw failure;
  }
}

const processes = only ?? PROCESSES;
// contexts are made while the engine builds what is under them (bundling is the machine's work,
// the images mostly the engine's and the mirror's)
const contexts = new Map(processes.map((name) => [name, step(`${name} context`, () => processContext(name))]));
const node = step('base (debootstrap)', buildBase).then(() => step('node', buildNode));
// what the engine builds goes two at a time (more at once only slowed each down: the mirror and the
// disk are shared), the longest path first: the runtime Chromium needs, then the other runtime, the
// process images as their runtime is ready, PostgreSQL and NATS last
const engine = limited(ENGINE_BUILDS_AT_ONCE);
const RANK = { chromiumRuntime: 0, runtime: 1, process: 2, infrastructure: 3 };
const runtimes = new Map(
  [...new Set(processes.map((n) => APT_PACKAGES[n] ?? ''))].map((packages) => [
    packages,
    node.then(() => engine(packages ? RANK.chromiumRuntime : RANK.runtime, () => step(runtimeImage(packages), () => buildRuntime(packages)))),
  ]),
);
const infrastructure = only
  ? []
  : Object.entries(INFRASTRUCTURE).map(([name, tag]) =>
      node.then(() => engine(RANK.infrastructure, () => step(name, () => dockerBuild(name, [tag], `${name}.Dockerfile`, DOCKERFILES, { BASE_IMAGE })))),
    );
const images = processes.map(async (name) => {
  const [ctx] = await Promise.all([contexts.get(name)!, runtimes.get(APT_PACKAGES[name] ?? '')!]);
  await engine(RANK.process, () => step(name, () => dockerBuild(name, [`ledgerline/${name}:${version}`, `ledgerline/${name}:latest`], 'process.Dockerfile', ctx, { RUNTIME_IMAGE: runtimeImage(APT_PACKAGES[name]) })));
});
const outcomes = await Promise.allSettled([...contexts.values(), ...runtimes.values(), ...infrastructure, ...images]);
if (outcomes.some((o) => o.status === 'rejected')) {
  // a step's failure is printed once where it happened; the steps waiting on it only fail with it
  process.stdout.write(`images: ${failures.length} step(s) failed after ${Math.round((Date.now() - started) / 1000)} s\n`);
  process.exit(1);
}
process.stdout.write(`images built in ${Math.round((Date.now() - started) / 1000)} s: ${processes.map((p) => `ledgerline/${p}:${version}`).join(', ')}${only ? '' : `, ${Object.values(INFRASTRUCTURE).join(', ')}`}\n`);
