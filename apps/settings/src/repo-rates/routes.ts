import type { EndpointHandlers } from '@ledgerline/service-kit';
import { importRepoRates, putRepoRate, repoRateHistory } from './repo-rates.js';

type RepoRateOperations = 'getRepoRates' | 'importRepoRates' | 'putRepoRate';

/** The organisation's CNB repo-rate history: read, imported from the bank's file, set by hand. */
export function repoRateRoutes(): Pick<EndpointHandlers<'settings'>, RepoRateOperations> {
  return {
    getRepoRates: async ({ ctx }) => repoRateHistory(ctx),
    importRepoRates: async ({ ctx, input }) => importRepoRates(ctx, input.raw, input.query.as_of),
    putRepoRate: async ({ ctx, input }) => putRepoRate(ctx, input.params.date, input.body),
  };
}
