/**
 * Bundles every process to JavaScript: one ES module per process (`gateway.mjs`, `sales.mjs`, …)
 * with the workspace packages bundled in and third-party packages left as imports, and beside
 * them the render worker (a child process the sales service forks), the template engine it loads
 * and the PDF printer's thread. What `npm start` and the bench run (decision 135), each from a
 * folder of its own, and, one process at a time, what each process's image holds (`bundleOneProcess`).
 */
import { builtinModules } from 'node:module';
import { copyFile, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

export const root = path.resolve(import.meta.dirname, '..');
export const PROCESSES = ['gateway', 'sales', 'purchase', 'finance', 'accounting', 'settings'] as const;
export type ProcessName = (typeof PROCESSES)[number];

/** Third-party packages stay imports (installed by `npm ci --omit=dev`); our own are bundled. */
const externalDependencies: Plugin = {
  name: 'external-dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@ledgerline/') || args.path.startsWith('node:')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

const common = {
  bundle: true,
  platform: 'node' as const,
  format: 'esm' as const,
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning' as const,
  plugins: [externalDependencies],
  // packages resolve to their TypeScript sources through the `exports` of each workspace
  conditions: ['import', 'default'],
};

/**
 * Writes the bundles into `out` (emptied first). `out` must lie inside the repository: the bundles
 * import third-party packages, which Node resolves from the `node_modules` above them.
 */
export async function bundleProcesses(out: string): Promise<void> {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  await build({
    ...common,
    entryPoints: Object.fromEntries(PROCESSES.map((p) => [p, path.join(root, 'apps', p, 'src', 'main.ts')])),
    outdir: out,
    outExtension: { '.js': '.mjs' },
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
        const parts = imp.path.split('/');
        imported.add(imp.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
      }
    }
  }
  return [...imported].filter((p) => !BUILTIN.has(p)).sort();
}

const BUILTIN = new Set(builtinModules);

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
