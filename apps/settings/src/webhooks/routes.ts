import { page, type EndpointHandlers } from '@ledgerline/service-kit';
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
  webhookView,
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

/** An organisation's webhook endpoints, their secrets (shown once) and their delivery log. */
export function webhookRoutes(settings: WebhookSettings, kick: () => void): Pick<EndpointHandlers<'settings'>, WebhookOperations> {
  return {
    listWebhooks: async ({ ctx, input: { query: q } }) => {
      const { rows, total } = await listWebhooks(ctx.em, q.from, q.take);
      return page(rows.map(webhookView), total, q.from, q.take);
    },
    createWebhook: async ({ ctx, input }) => {
      const { endpoint, secret } = await createWebhook(ctx, settings, input.body);
      ctx.c.set('secretAnswer', true);
      return { ...webhookView(endpoint), secret };
    },
    getWebhook: async ({ ctx, input }) => webhookView(await findWebhook(ctx.em, input.params.id)),
    updateWebhook: async ({ ctx, input }) => {
      // unknown id first (404), then the body
      await findWebhook(ctx.em, input.params.id);
      return webhookView(await updateWebhook(ctx, settings, input.params.id, input.body));
    },
    deleteWebhook: async ({ ctx, input }) => deleteWebhook(ctx, input.params.id),
    rotateWebhookSecret: async ({ ctx, input }) => {
      const { endpoint, secret } = await rotateWebhookSecret(ctx, settings, input.params.id);
      ctx.c.set('secretAnswer', true);
      return { ...webhookView(endpoint), secret };
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
