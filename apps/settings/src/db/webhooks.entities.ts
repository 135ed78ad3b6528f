import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type WebhookStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed';

export const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    url: p.text(),
    events: p.json<string[]>(),
    description: p.text().nullable(),
    secretSealed: p.text().fieldName('secret_sealed'),
    previousSecretSealed: p.text().nullable().fieldName('previous_secret_sealed'),
    previousSecretUntil: p.datetime().nullable().fieldName('previous_secret_until'),
    status: p.string().$type<WebhookStatus>(),
    disabledReason: p.text().nullable().fieldName('disabled_reason'),
    /** The credential it delivers on behalf of (`webhooks/access.ts`); null for endpoints from before owners. */
    owner: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
/** An organisation's endpoint for its events. The signing secrets are sealed with the secret box. */
export type WebhookEndpoint = InferEntity<typeof WebhookEndpointSchema>;

export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: p.integer().primary().autoincrement(),
    orgId: p.integer().fieldName('org_id'),
    endpointId: p.integer().fieldName('endpoint_id'),
    eventId: p.uuid().fieldName('event_id'),
    eventType: p.string().fieldName('event_type'),
    /** The CloudEvents subject (the resource): deliveries of one resource to one endpoint keep their order. */
    resource: p.string().nullable(),
    payload: p.text(),
    status: p.string().$type<DeliveryStatus>(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime().nullable().fieldName('next_attempt_at'),
    lastStatusCode: p.integer().nullable().fieldName('last_status_code'),
    lastDurationMs: p.integer().nullable().fieldName('last_duration_ms'),
    lastError: p.text().nullable().fieldName('last_error'),
    lastResponse: p.text().nullable().fieldName('last_response'),
    createdAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable().fieldName('completed_at'),
  },
});
/** One event to one endpoint: sent until a 2xx or the retry schedule ends. */
export type WebhookDelivery = InferEntity<typeof WebhookDeliverySchema>;

export const webhookEntities = [WebhookEndpointSchema, WebhookDeliverySchema];
