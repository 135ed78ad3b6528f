import type { EndpointHandlers } from '@ledgerline/service-kit';
import { createFioIntegration, deleteFioIntegration, fetchFio, listFioIntegrations, readFioIntegration, replaceFioIntegration, type FioSettings } from '../domain/fio/fio-integrations.js';

type Operations = 'createFioIntegration' | 'listFioIntegrations' | 'getFioIntegration' | 'replaceFioIntegration' | 'deleteFioIntegration' | 'fetchFioIntegration';

/** Fio banka's API (issue 78): the integrations of the organisation's accounts, and a fetch on demand. */
export function fioRoutes(fio: FioSettings): Pick<EndpointHandlers<'finance'>, Operations> {
  return {
    createFioIntegration: ({ ctx, input }) => createFioIntegration(ctx, fio, input.body),
    listFioIntegrations: ({ ctx }) => listFioIntegrations(ctx),
    getFioIntegration: ({ ctx, input }) => readFioIntegration(ctx, input.params.id),
    replaceFioIntegration: ({ ctx, input }) => replaceFioIntegration(ctx, fio, input.params.id, input.body),
    deleteFioIntegration: ({ ctx, input }) => deleteFioIntegration(ctx, input.params.id),
    fetchFioIntegration: ({ ctx, input }) => fetchFio(ctx, fio, input.params.id),
  };
}
