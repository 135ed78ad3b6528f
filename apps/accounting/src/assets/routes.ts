import { page, type EndpointHandlers } from '@ledgerline/service-kit';
import type { ApplyOptions } from '../events/ledger-events.js';
import { createDepreciationRun, listDepreciationRuns } from '../domain/assets/depreciation-runs.js';
import { depreciationReport } from '../domain/assets/depreciation-report.js';
import { createAsset, disposeAsset, improveAsset, listAssets, readAsset, replaceAsset, setTaxInterruptions } from '../domain/assets/register.js';

type Operations = 'createAsset' | 'listAssets' | 'getAsset' | 'replaceAsset' | 'improveAsset' | 'setAssetTaxInterruptions' | 'disposeAsset' | 'createDepreciationRun' | 'listDepreciationRuns' | 'getDepreciationReport';

/** Fixed assets (issue 77): the register, its monthly depreciation runs, a year's report. */
export function assetRoutes(posting: ApplyOptions): Pick<EndpointHandlers<'accounting'>, Operations> {
  return {
    createAsset: ({ ctx, input }) => createAsset(ctx, input.body, posting),
    listAssets: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listAssets(ctx, q);
      return page(rows, total, q.from, q.take);
    },
    getAsset: ({ ctx, input }) => readAsset(ctx, input.params.id),
    replaceAsset: ({ ctx, input }) => replaceAsset(ctx, input.params.id, input.body),
    improveAsset: ({ ctx, input }) => improveAsset(ctx, input.params.id, input.body, posting),
    setAssetTaxInterruptions: ({ ctx, input }) => setTaxInterruptions(ctx, input.params.id, input.body),
    disposeAsset: ({ ctx, input }) => disposeAsset(ctx, input.params.id, input.body, posting),
    createDepreciationRun: ({ ctx, input }) => createDepreciationRun(ctx, input.body, posting),
    listDepreciationRuns: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listDepreciationRuns(ctx, q);
      return page(rows, total, q.from, q.take);
    },
    getDepreciationReport: ({ ctx, input }) => depreciationReport(ctx, input.query.year),
  };
}
