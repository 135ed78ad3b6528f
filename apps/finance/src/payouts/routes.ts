import { keysetPage, postingSettingsOf, type EndpointHandlers } from '@ledgerline/service-kit';
import { createPayout, listPayouts, payoutView, readPayout, replacePayout } from '../domain/payouts.js';

/** Payouts: create, read, PUT /v1/finance/payouts/{id} replace, GET /v1/finance/payouts list. */
export function payoutRoutes(): Pick<EndpointHandlers<'finance'>, 'createPayout' | 'listPayouts' | 'getPayout' | 'replacePayout'> {
  return {
    createPayout: async ({ ctx, input }) => createPayout(ctx, input.body),
    listPayouts: async ({ ctx, input: { query: q } }) => {
      const listed = await listPayouts(ctx.em, ctx.orgId, q);
      const { lockDate } = await postingSettingsOf(ctx);
      return keysetPage(
        listed.rows.map((p) => payoutView(p, lockDate)),
        listed,
        q,
      );
    },
    getPayout: async ({ ctx, input }) => payoutView(await readPayout(ctx, input.params.id), (await postingSettingsOf(ctx)).lockDate),
    replacePayout: async ({ ctx, input }) => {
      // Unknown id first (404), then the body (400/422), then the lock (409).
      await readPayout(ctx, input.params.id);
      return replacePayout(ctx, input.params.id, input.body);
    },
  };
}
