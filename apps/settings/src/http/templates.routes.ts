import { Hono } from 'hono';
import { z } from 'zod';
import { deliveryConditionListQuerySchema, templateListQuerySchema, templateRequestSchema } from '@ledgerline/contracts';
import { caller, page, parseOrThrow, readQuery, respond, type KitEnv, type ServiceDeps } from '@ledgerline/service-kit';
import { canonicalCulture } from '@ledgerline/rendering';
import { listTemplates, saveTemplate, templateSummaryView, templateView } from '../domain/templates.js';
import { listDeliveryConditions } from '../domain/delivery-conditions.js';

/** #12's query; `culture` (extension, in the contract) must also be a language tag we can canonicalise. */
const deliveryConditionQuery = deliveryConditionListQuerySchema.extend({
  culture: z
    .string()
    .max(35)
    .refine((c) => canonicalCulture(c) !== null, 'a BCP 47 language tag such as cs-CZ')
    .optional(),
});

/** #8 save a template, #9 list templates, #12 list delivery conditions. */
export function documentSettingsRoutes(deps: ServiceDeps) {
  const r = new Hono<KitEnv>();

  r.post('/settings/templates', async (c) => {
    const auth = caller(c);
    const input = parseOrThrow(templateRequestSchema, c.get('body'));
    return respond(c, templateView(await saveTemplate(c.get('em'), auth.orgId, input, deps.emit)));
  });

  r.get('/lists/all/templates', async (c) => {
    caller(c);
    const q = readQuery(c, templateListQuerySchema);
    return respond(c, (await listTemplates(c.get('em'), q)).map(templateSummaryView));
  });

  r.get('/settings/delivery-conditions', async (c) => {
    const auth = caller(c);
    const q = readQuery(c, deliveryConditionQuery, ['sort']);
    const culture = q.culture ? (canonicalCulture(q.culture) ?? undefined) : undefined;
    const { rows, total } = await listDeliveryConditions(c.get('em'), auth.orgId, { ...q, culture });
    return respond(c, page(rows, total, q.from, q.take));
  });
  return r;
}
