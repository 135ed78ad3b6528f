/**
 * Builds every process to JavaScript for the container image: one ES module per process under
 * `dist/` (`dist/gateway.mjs`, `dist/sales.mjs`, …), with the workspace packages bundled in and
 * third-party packages left to `node_modules`. The render worker (a child process the sales
 * service forks) and the template engine it loads, and the PDF printer's thread, sit beside
 * them, so no TypeScript loader is needed at run time.
 *
 *   npm run build
 */
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist');
const PROCESSES = ['gateway', 'sales', 'purchase', 'finance', 'accounting', 'settings'] as const;

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

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await build({
  ...common,
  entryPoints: Object.fromEntries(PROCESSES.map((p) => [p, path.join(root, 'apps', p, 'src', 'main.ts')])),
  outdir: out,
  outExtension: { '.js': '.mjs' },
});
// the render worker loads ./engine.js beside itself
await build({ ...common, entryPoints: [path.join(root, 'packages/rendering/src/engine.ts')], outfile: path.join(out, 'engine.js') });
await copyFile(path.join(root, 'packages/rendering/src/render-worker.mjs'), path.join(out, 'render-worker.mjs'));
// the PDF printer's thread, started from the bundle beside it
await copyFile(path.join(root, 'packages/rendering/src/pdf-worker.mjs'), path.join(out, 'pdf-worker.mjs'));
process.stdout.write(`built ${PROCESSES.map((p) => `dist/${p}.mjs`).join(', ')}\n`);
