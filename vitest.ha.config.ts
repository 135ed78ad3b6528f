import { defineConfig } from 'vitest/config';

/**
 * `npm run test:ha`: failover and restore on infrastructure the tests start themselves (a NATS
 * cluster of three, a Postgres primary with a synchronous standby, `npm start` with two replicas
 * of every service), one file at a time: each holds the machine's cores under steady load.
 */
export default defineConfig({
  test: {
    globalSetup: ['./tests/support/global-setup.ts'],
    include: ['tests/ha/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
