import type { EndpointHandlers } from '@ledgerline/service-kit';
import { getTaxFilingSettings, putTaxFilingSettings } from './tax-filing.js';

/** The filer's data for tax filings: read, and replaced whole. */
export function taxFilingRoutes(): Pick<EndpointHandlers<'settings'>, 'getTaxFilingSettings' | 'putTaxFilingSettings'> {
  return {
    getTaxFilingSettings: async ({ ctx }) => getTaxFilingSettings(ctx),
    putTaxFilingSettings: async ({ ctx, input }) => putTaxFilingSettings(ctx, input.body),
  };
}
