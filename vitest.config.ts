import { defineConfig } from 'vitest/config';

/**
 * Tests that start the whole system several times over as separate processes (two replicas of
 * every service) run on their own after everything else: their boot would starve the PDF and
 * timing-sensitive tests that would otherwise run beside them on a two-core machine.
 */
const SOLO = ['tests/platform/replicas.e2e.test.ts', 'tests/system/mixed-versions.e2e.test.ts'];

/** Tests that measure the V8 heap of their worker: in a fresh worker each, after the main files (decision 246). */
const HEAP = ['tests/kit/transaction-garbage.test.ts', 'tests/kit/request-input.test.ts', 'tests/kit/endpoint-context.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['./tests/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          // the pure tests beside the code, first: they start nothing and hold no state between
          // files, so a worker runs file after file without loading the modules anew (isolate
          // off): 79 files in 29-33 s instead of 82 (2026-12-03, issue 79 part 4)
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
          exclude: ['**/node_modules/**'],
          isolate: false,
          maxWorkers: 2,
          fileParallelism: true,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          // the end-to-end files: each starts and closes its own stack and services, and a worker
          // keeps the modules loaded between files (decision 246: the imports were 286 s of the
          // suite's summed time, 19 s now)
          name: 'main',
          include: ['tests/**/*.test.ts'],
          // tests/containers: only against the images (npm run test:containers); tests/ha: npm run test:ha
          exclude: ['**/node_modules/**', 'tests/containers/**', 'tests/ha/**', ...SOLO, ...HEAP],
          isolate: false,
          maxWorkers: 2,
          fileParallelism: true,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'heap',
          include: HEAP,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'solo',
          include: SOLO,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
