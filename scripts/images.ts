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
 *   4. per process: its bundle, the third-party packages it imports and its start script, nothing
 *      else (deploy/images/process.Dockerfile), tagged with the release version and `latest`;
 *   5. `ledgerline/postgres:15` and `ledgerline/nats:2.9` from Debian's packages.
 *
 *   npm run images                                  everything
 *   npm run images -- --only=sales,gateway          some processes (and the images under them)
 *   npm run images -- --node-image=node:20-bookworm-slim   build on the official image (needs a registry)
 *
 * Needs a running Docker engine (and debootstrap, for the base image); builds use the host network.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROCESSES, bundleOneProcess, root, type ProcessName } from './bundle.js';
import { GATEWAY_MAX_OLD_SPACE_MB, MAX_OLD_SPACE_MB } from './node-flags.js';

const args = new Map(process.argv.slice(2).map((a) => [a.replace(/^--/, '').split('=')[0], a.includes('=') ? a.slice(a.indexOf('=') + 1) : 'true']));
const only = args.get('only')?.split(',') as ProcessName[] | undefined;
const nodeImage = args.get('node-image') ?? 'ledgerline/node:20';
const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
const CONTEXTS = path.join(root, '.images');
const DOCKERFILES = path.join(root, 'deploy/images');
export const BASE_IMAGE = 'ledgerline/debian:bookworm';

/** Debian packages a process needs beside Node.js: the sales service prints PDFs with Chromium. */
const APT_PACKAGES: Partial<Record<ProcessName, string>> = {
  sales: 'chromium fonts-dejavu-core fonts-liberation',
};

function run(cmd: string, argv: string[], opts: { cwd?: string; input?: Buffer } = {}): void {
  const r = spawnSync(cmd, argv, { cwd: opts.cwd ?? root, stdio: [opts.input ? 'pipe' : 'inherit', 'inherit', 'inherit'], input: opts.input });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (${r.status ?? r.signal})`);
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

function buildBase(): void {
  if (imageExists(BASE_IMAGE) && !args.has('rebuild-base')) return;
  const dir = fs.mkdtempSync('/tmp/ledgerline-rootfs-');
  try {
    process.stdout.write(`debootstrap bookworm from ${debianMirror()}\n`);
    run('debootstrap', ['--variant=minbase', '--include=ca-certificates', 'bookworm', dir, debianMirror()]);
    // no apt caches in the image; its root readable by every user (mkdtemp made it 0700)
    for (const sub of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
      fs.rmSync(path.join(dir, sub), { recursive: true, force: true });
      fs.mkdirSync(path.join(dir, sub, 'partial'), { recursive: true });
    }
    fs.chmodSync(dir, 0o755);
    const tar = execFileSync('tar', ['-C', dir, '--numeric-owner', '-c', '.'], { maxBuffer: 2 ** 31 });
    run('docker', ['import', '--change', 'CMD ["/bin/bash"]', '--change', 'ENV LANG=C.UTF-8', '-', BASE_IMAGE], { input: tar });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function dockerBuild(tags: string[], dockerfile: string, context: string, buildArgs: Record<string, string> = {}): void {
  const argv = ['build', '--network', 'host', '-f', path.join(DOCKERFILES, dockerfile)];
  for (const t of tags) argv.push('-t', t);
  for (const [k, v] of Object.entries(buildArgs)) argv.push('--build-arg', `${k}=${v}`);
  run('docker', [...argv, context]);
}

function buildNode(): void {
  if (nodeImage !== 'ledgerline/node:20') return; // an official image: nothing to make
  const ctx = path.join(CONTEXTS, 'node');
  fs.rmSync(ctx, { recursive: true, force: true });
  fs.mkdirSync(ctx, { recursive: true });
  fs.copyFileSync(process.execPath, path.join(ctx, 'node'));
  fs.chmodSync(path.join(ctx, 'node'), 0o755);
  dockerBuild([nodeImage], 'node.Dockerfile', ctx, { BASE_IMAGE });
}

/** Where Node would find `name` from `from` (a package's folder), walking up to the repository's node_modules. */
function resolvePackage(name: string, from: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === root || dir === path.dirname(dir)) return null;
  }
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
      const found = resolvePackage(dep, dir);
      if (found) visit(found);
    }
  };
  for (const name of imported) {
    const found = resolvePackage(name, root);
    if (!found) throw new Error(`${name} is imported but not installed`);
    visit(found);
  }
  return [...topLevel].sort();
}

/** The runtime every process image builds on: plain, or with the Debian packages a process needs. */
const runtimeImage = (packages: string | undefined) => (packages ? 'ledgerline/runtime-chromium:20' : 'ledgerline/runtime:20');

function buildRuntimes(names: readonly ProcessName[]): void {
  const empty = fs.mkdtempSync('/tmp/ledgerline-runtime-');
  try {
    for (const packages of new Set(names.map((n) => APT_PACKAGES[n] ?? ''))) {
      dockerBuild([runtimeImage(packages)], 'runtime.Dockerfile', empty, { NODE_IMAGE: nodeImage, ...(packages ? { APT_PACKAGES: packages } : {}) });
    }
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
}

async function buildProcess(name: ProcessName): Promise<void> {
  const ctx = path.join(CONTEXTS, name);
  fs.rmSync(ctx, { recursive: true, force: true });
  const imported = await bundleOneProcess(name, path.join(ctx, 'dist'), { printsPdfs: name in APT_PACKAGES });
  const modules = path.join(ctx, 'node_modules');
  fs.mkdirSync(modules, { recursive: true });
  for (const dir of runtimePackages(imported)) {
    const target = path.join(modules, path.relative(path.join(root, 'node_modules'), dir));
    fs.cpSync(dir, target, { recursive: true, dereference: true, filter: (src) => !src.endsWith('/.bin') });
  }
  // the process's own old-space cap, as `npm start` gives it; MAX_OLD_SPACE_MB overrides it
  const cap = name === 'gateway' ? GATEWAY_MAX_OLD_SPACE_MB : MAX_OLD_SPACE_MB;
  fs.writeFileSync(path.join(ctx, 'start.sh'), `# ${name}: written by npm run images\nexec node --max-old-space-size="\${MAX_OLD_SPACE_MB:-${cap}}" dist/${name}.mjs\n`);
  dockerBuild([`ledgerline/${name}:${version}`, `ledgerline/${name}:latest`], 'process.Dockerfile', ctx, { RUNTIME_IMAGE: runtimeImage(APT_PACKAGES[name]) });
}

const started = Date.now();
/** Runs one step of the build and says how long it took, so a slow build shows which step was slow. */
async function step(name: string, build: () => void | Promise<void>): Promise<void> {
  const t0 = Date.now();
  await build();
  process.stdout.write(`[images] ${name}: ${Math.round((Date.now() - t0) / 1000)} s\n`);
}
await step('base (debootstrap)', buildBase);
await step('node', buildNode);
if (!only) {
  await step('postgres', () => dockerBuild(['ledgerline/postgres:15'], 'postgres.Dockerfile', DOCKERFILES, { BASE_IMAGE }));
  await step('nats', () => dockerBuild(['ledgerline/nats:2.9'], 'nats.Dockerfile', DOCKERFILES, { BASE_IMAGE }));
}
await step('runtimes', () => buildRuntimes(only ?? PROCESSES));
for (const name of only ?? PROCESSES) await step(name, () => buildProcess(name));
process.stdout.write(`images built in ${Math.round((Date.now() - started) / 1000)} s: ${(only ?? PROCESSES).map((p) => `ledgerline/${p}:${version}`).join(', ')}${only ? '' : ', ledgerline/postgres:15, ledgerline/nats:2.9'}\n`);
