import { defineConfig } from 'vitest/config';

/**
 * `npm run test:containers`: the images `npm run images` built, started as containers through
 * testcontainers (tests/containers/global-setup.ts), and the end-to-end tests that reach the
 * system only through the gateway run against them, with the containers' own checks. Tests that
 * also read a service's database or the bus directly (`stack.services`, a NATS subscription of
 * their own) stay in the in-process suite.
 */
export const CONTAINER_SUITE = [
  'tests/containers/**/*.test.ts',
  'tests/accounting/control-statement.e2e.test.ts',
  'tests/accounting/financial-statements.e2e.test.ts',
  'tests/accounting/item-gl-account.e2e.test.ts',
  'tests/accounting/vat-return.e2e.test.ts',
  'tests/finance/aged-balances.e2e.test.ts',
  'tests/finance/bank-corpus.e2e.test.ts',
  'tests/finance/bank-statements.e2e.test.ts',
  'tests/finance/statement-entry-identity.e2e.test.ts',
  'tests/platform/clients-tenancy.e2e.test.ts',
  'tests/platform/list-rows.e2e.test.ts',
  'tests/platform/new-surface-hardening.e2e.test.ts',
  'tests/platform/unknown-fields.e2e.test.ts',
  'tests/purchase/stated-rounding.e2e.test.ts',
  'tests/purchase/tenancy-and-numbering.e2e.test.ts',
  'tests/sales/items.e2e.test.ts',
  'tests/sales/numbering-series.e2e.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['./tests/support/global-setup.ts', './tests/containers/global-setup.ts'],
    include: CONTAINER_SUITE,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
