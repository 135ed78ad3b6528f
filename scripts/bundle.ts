/**
 * Bundles every process to JavaScript: one ES module per process (`gateway.mjs`, `sales.mjs`, …)
 * with the workspace packages and the third-party packages it imports bundled in (decision 257),
 * and beside them the render worker (a child process the sales service forks), the template
 * engine it loads and the PDF printer's thread. What `npm start` and the bench run (decision
 * 135), each from a folder of its own, and, one process at a time, what each process's image
 * holds (`bundleOneProcess`).
 */
import { builtinModules } from 'node:module';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

export const root = path.resolve(import.meta.dirname, '..');
export const PROCESSES = ['gateway', 'sales', 'purchase', 'finance', 'accounting', 'settings'] as const;
export type ProcessName = (typeof PROCESSES)[number];

const BUILTIN = new Set(builtinModules);

/**
 * Packages that find files of their own at run time, so they stay imports and the image holds
 * their folders: the browser driver (its injected scripts), the browser it falls back to (a
 * binary in its package) and the API docs page's assets (read by path from the gateway).
 */
const KEPT_AS_FILES = new Set(['playwright-core', '@sparticuz/chromium', 'swagger-ui-dist']);

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** Where Node would find `name` from `from` (a package's folder), walking up to the repository's node_modules; null where it is not installed. */
export function packageFolder(name: string, from: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === root || dir === path.dirname(dir)) return null;
  }
}

/**
 * Third-party packages go into the bundle: a process then boots from one file instead of
 * resolving, reading and compiling a thousand (a service was up in 1.5 s on 1.9 s of CPU, now
 * 0.9 s on 1.0 s). Two kinds stay imports: those of KEPT_AS_FILES, and those not installed —
 * the drivers of databases we do not use, which knex and MikroORM name for their other dialects
 * behind a `require` they only reach when configured for one; they fail there as they did before.
 */
const dependencies: Plugin = {
  name: 'dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || BUILTIN.has(args.path) || BUILTIN.has(packageOf(args.path))) return undefined;
      const name = packageOf(args.path);
      if (name.startsWith('@ledgerline/')) return undefined;
      if (KEPT_AS_FILES.has(name) || packageFolder(name, args.resolveDir || root) === null) return { path: args.path, external: true };
      return undefined;
    });
  },
};

/**
 * CommonJS packages bundled into an ES module still call `require` for Node's own modules (and for
 * those kept as imports): the module's own `require`, made from its URL. esbuild renames any
 * top-level `require` of ours, so this name is free.
 */
const REQUIRE_SHIM = "import { createRequire as __ledgerlineCreateRequire } from 'node:module'; const require = __ledgerlineCreateRequire(import.meta.url);";

const common = {
  bundle: true,
  platform: 'node' as const,
  format: 'esm' as const,
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning' as const,
  plugins: [dependencies],
  banner: { js: REQUIRE_SHIM },
};

/**
 * Writes the bundles into `out` (emptied first). `out` must lie inside the repository: the
 * packages kept as imports are resolved from the `node_modules` above it.
 */
export async function bundleProcesses(out: string): Promise<void> {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  await build({
    ...common,
    entryPoints: Object.fromEntries(PROCESSES.map((p) => [p, path.join(root, 'apps', p, 'src', 'main.ts')])),
    outdir: out,
    outExtension: { '.js': '.mjs' },
    // what the processes share (the ORM, zod, the contracts, the kit) written once, in chunks
    // they import: six bundles of their own took 3–5 s to write, these 1.8–2.6 s. The chunks lie
    // beside the bundles: code that finds a worker by its own URL (`./render-worker.mjs`) may
    // have gone into one
    splitting: true,
    chunkNames: '[name]-[hash]',
  });
  await bundleWorkers(out);
}

const RENDERING = path.join(root, 'packages/rendering/src');

/** The render worker and the template engine it loads (./engine.js beside itself); answers the engine's metafile. */
async function bundleRenderWorker(out: string) {
  const engine = await build({ ...common, entryPoints: [path.join(RENDERING, 'engine.ts')], outfile: path.join(out, 'engine.js'), metafile: true });
  await copyFile(path.join(RENDERING, 'render-worker.mjs'), path.join(out, 'render-worker.mjs'));
  return engine.metafile;
}

/** The PDF printer's thread, started from the bundle beside it. */
const copyPdfWorker = (out: string) => copyFile(path.join(RENDERING, 'pdf-worker.mjs'), path.join(out, 'pdf-worker.mjs'));

/** Every worker, for the bundles of all processes. */
async function bundleWorkers(out: string): Promise<void> {
  await bundleRenderWorker(out);
  await copyPdfWorker(out);
}

/**
 * One process's bundle (with the workers it starts) into `out`, for its own container image;
 * answers the third-party packages it imports (by package name), which the image must hold.
 * `printsPdfs`: the process prints (the printer's thread and its browser driver go in).
 */
export async function bundleOneProcess(name: ProcessName, out: string, opts: { printsPdfs: boolean }): Promise<string[]> {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const main = await build({ ...common, entryPoints: { [name]: path.join(root, 'apps', name, 'src', 'main.ts') }, outdir: out, outExtension: { '.js': '.mjs' }, metafile: true });
  const metas = [main.metafile];
  const uses = (file: string) => Object.keys(main.metafile.inputs).some((input) => input.endsWith(file));
  const imported = new Set<string>();
  if (uses('packages/rendering/src/sandbox.ts')) metas.push(await bundleRenderWorker(out));
  if (opts.printsPdfs) {
    await copyPdfWorker(out);
    // the printer's thread drives the image's own Chromium (CHROMIUM_FALLBACK=none there, so the
    // browser @sparticuz/chromium ships is never loaded and not installed)
    imported.add('playwright-core');
  }
  // files a process finds at run time by resolving a package (the gateway's Swagger UI assets),
  // not by importing it: no import names them
  const bundleText = await readFile(path.join(out, `${name}.mjs`), 'utf8');
  for (const m of bundleText.matchAll(/\.resolve\(\s*["']((?:@[\w.-]+\/)?[\w.-]+)\//g)) imported.add(m[1]);
  for (const meta of metas) {
    for (const output of Object.values(meta.outputs)) {
      for (const imp of output.imports) {
        if (!imp.external || imp.path.startsWith('node:') || imp.path.startsWith('.')) continue;
        // a driver of another database, named behind a `require` never reached: not in the image either
        if (packageFolder(packageOf(imp.path), root) === null) continue;
        imported.add(packageOf(imp.path));
      }
    }
  }
  return [...imported].filter((p) => !BUILTIN.has(p)).sort();
}

const RUNS = path.join(root, 'node_modules', '.cache', 'ledgerline');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Bundles for one run of `npm start` or the bench, in a folder named after this process, so runs
 * side by side (the tests start several) never rebuild under each other's feet. Folders left by
 * runs whose process is gone (killed before it could clean up) are removed first.
 */
export async function bundleForRun(label: string): Promise<{ dir: string; entry: (name: ProcessName) => string; remove: () => Promise<void> }> {
  await mkdir(RUNS, { recursive: true });
  for (const name of await readdir(RUNS)) {
    const pid = Number(/-(\d+)$/.exec(name)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) await rm(path.join(RUNS, name), { recursive: true, force: true });
  }
  const dir = path.join(RUNS, `${label}-${process.pid}`);
  await bundleProcesses(dir);
  return { dir, entry: (name) => path.join(dir, `${name}.mjs`), remove: () => rm(dir, { recursive: true, force: true }) };
}
