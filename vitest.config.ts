import { defineConfig } from 'vitest/config';

/**
 * Tests that start the whole system several times over as separate processes (two replicas of
 * every service) run on their own after everything else: their boot would starve the PDF and
 * timing-sensitive tests that would otherwise run beside them on a two-core machine.
 */
const SOLO = ['tests/platform/replicas.e2e.test.ts', 'tests/system/mixed-versions.e2e.test.ts'];

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
          name: 'main',
          include: ['tests/**/*.test.ts'],
          // tests/containers: only against the images (npm run test:containers); tests/ha: npm run test:ha
          exclude: ['**/node_modules/**', 'tests/containers/**', 'tests/ha/**', ...SOLO],
          maxWorkers: 2,
          fileParallelism: true,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'solo',
          include: SOLO,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
