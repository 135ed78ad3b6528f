import type { EntityManager } from '@mikro-orm/postgresql';
import { page, type EndpointHandlers } from '@ledgerline/service-kit';
import type { WebhookEndpoint } from '../db/webhooks.entities.js';
import {
  createWebhook,
  deleteWebhook,
  deliveryView,
  findWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  rotateWebhookSecret,
  updateWebhook,
  webhookViews,
  type WebhookSettings,
} from './endpoints.js';

type WebhookOperations =
  | 'listWebhooks'
  | 'createWebhook'
  | 'getWebhook'
  | 'updateWebhook'
  | 'deleteWebhook'
  | 'rotateWebhookSecret'
  | 'listWebhookDeliveries'
  | 'retryWebhookDelivery';

const view = async (ctx: { em: EntityManager; orgId: number }, endpoint: WebhookEndpoint) => (await webhookViews(ctx, [endpoint]))[0];

/** An organisation's webhook endpoints, their secrets (shown once) and their delivery log. */
export function webhookRoutes(settings: WebhookSettings, kick: () => void): Pick<EndpointHandlers<'settings'>, WebhookOperations> {
  return {
    listWebhooks: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listWebhooks(ctx.em, q.from, q.take);
      return page(await webhookViews(ctx, rows), total, q.from, q.take);
    },
    createWebhook: async ({ ctx, input }) => {
      const { endpoint, secret } = await createWebhook(ctx, settings, input.body, ctx.auth);
      ctx.c.set('secretAnswer', true);
      return { ...(await view(ctx, endpoint)), secret };
    },
    getWebhook: async ({ ctx, input }) => view(ctx, await findWebhook(ctx.em, input.params.id)),
    updateWebhook: async ({ ctx, input }) => {
      // unknown id first (404), then the body
      await findWebhook(ctx.em, input.params.id);
      return view(ctx, await updateWebhook(ctx, settings, input.params.id, input.body, ctx.auth));
    },
    deleteWebhook: async ({ ctx, input }) => deleteWebhook(ctx, input.params.id),
    rotateWebhookSecret: async ({ ctx, input }) => {
      const { endpoint, secret } = await rotateWebhookSecret(ctx, settings, input.params.id);
      ctx.c.set('secretAnswer', true);
      return { ...(await view(ctx, endpoint)), secret };
    },
    listWebhookDeliveries: async ({ ctx, input: { params, query: q } }) => {
      const { rows, total } = await listDeliveries(ctx.em, params.id, q);
      return page(rows.map(deliveryView), total, q.from, q.take);
    },
    retryWebhookDelivery: async ({ ctx, input: { params } }) => {
      const d = deliveryView(await retryDelivery(ctx, params.id, params.delivery_id));
      ctx.c.get('afterCommit')?.push(kick);
      return d;
    },
  };
}
