/**
 * Builds every process to JavaScript for the container image: one ES module per process under
 * `dist/` (`dist/gateway.mjs`, `dist/sales.mjs`, …), so no TypeScript loader is needed at run
 * time (scripts/bundle.ts says what goes in).
 *
 *   npm run build
 */
import path from 'node:path';
import { PROCESSES, bundleProcesses, root } from './bundle.js';

await bundleProcesses(path.join(root, 'dist'));
process.stdout.write(`built ${PROCESSES.map((p) => `dist/${p}.mjs`).join(', ')}\n`);
