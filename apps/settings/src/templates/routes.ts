import { canonicalCulture } from '@ledgerline/rendering';
import { ValidationError, page, type EndpointHandlers } from '@ledgerline/service-kit';
import { listDeliveryConditions } from '../domain/delivery-conditions.js';
import { listTemplates, saveTemplate, templateSummaryView, templateView } from '../domain/templates.js';

/** Document templates and the delivery conditions (Incoterms 2020) documents name. */
export function templateRoutes(): Pick<EndpointHandlers<'settings'>, 'saveTemplate' | 'listTemplates' | 'listDeliveryConditions'> {
  return {
    saveTemplate: async ({ ctx, input }) => templateView(await saveTemplate(ctx, input.body)),
    listTemplates: async ({ ctx, input }) => (await listTemplates(ctx.em, input.query)).map(templateSummaryView),
    listDeliveryConditions: async ({ ctx, input: { query: q } }) => {
      const culture = q.culture ? canonicalCulture(q.culture) : undefined;
      if (culture === null) {
        throw new ValidationError(`"${q.culture}" is not a language tag`, [{ path: 'culture', message: 'a BCP 47 language tag such as cs-CZ', code: 'custom' }]);
      }
      const { rows, total } = await listDeliveryConditions({ em: ctx.em, orgId: ctx.auth.orgId }, { ...q, culture });
      return page(rows, total, q.from, q.take);
    },
  };
}
