import type { EntityManager } from '@mikro-orm/postgresql';
import type { Webhook, WebhookCreate, WebhookDelivery as WebhookDeliveryView, WebhookUpdate } from '@ledgerline/contracts';
import { ConflictError, NotFoundError, findAndCount, type Logger, type SecretBox, type TenantContext } from '@ledgerline/service-kit';
import { WebhookDeliverySchema, WebhookEndpointSchema, type DeliveryStatus, type WebhookDelivery, type WebhookEndpoint } from '../db/webhooks.entities.js';
import { newWebhookSecret } from './signing.js';
import { checkWebhookUrl, type UrlPolicy } from './urls.js';
import type { FanoutDurables } from './durables.js';

/** What managing and sending webhooks needs beyond a request's context. */
export interface WebhookSettings {
  box: SecretBox;
  policy: UrlPolicy;
  /** How long a rotated-out secret keeps signing beside the new one. */
  overlapMs: number;
  log: Logger;
  /** The fan-out's durables, opened for the subjects an enabled endpoint selects. */
  durables: FanoutDurables;
}

/** The sealed secret is bound to its organisation and endpoint: copied to another row it does not open. */
export const secretAad = (e: Pick<WebhookEndpoint, 'orgId' | 'id'>, which: 'current' | 'previous') => `webhook:${e.orgId}:${e.id}:${which}`;

/** The secrets an attempt is signed with now: the current one, and the previous one during its overlap. */
export function signingSecrets(e: WebhookEndpoint, box: SecretBox, now: Date): string[] {
  const secrets = [box.open(e.secretSealed, secretAad(e, 'current'))];
  if (e.previousSecretSealed && e.previousSecretUntil && e.previousSecretUntil > now) secrets.push(box.open(e.previousSecretSealed, secretAad(e, 'previous')));
  return secrets;
}

export function webhookView(e: WebhookEndpoint): Webhook {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description ?? null,
    status: e.status,
    disabled_reason: e.disabledReason ?? null,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export function deliveryView(d: WebhookDelivery): WebhookDeliveryView {
  return {
    id: d.id,
    webhook_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode ?? null,
    last_duration_ms: d.lastDurationMs ?? null,
    last_error: d.lastError ?? null,
    last_response: d.lastResponse ?? null,
    next_attempt_at: d.status === 'pending' && d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
    created_at: d.createdAt.toISOString(),
    completed_at: d.completedAt?.toISOString() ?? null,
  };
}

export async function findWebhook(em: EntityManager, id: number): Promise<WebhookEndpoint> {
  const e = await em.findOne(WebhookEndpointSchema, { id });
  if (!e) throw new NotFoundError(`Webhook ${id} does not exist`, 'webhook_not_found');
  return e;
}

export async function createWebhook(ctx: TenantContext, s: WebhookSettings, input: WebhookCreate): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = await checkWebhookUrl(input.url, s.policy);
  const secret = newWebhookSecret();
  const endpoint = ctx.em.create(WebhookEndpointSchema, {
    orgId: ctx.orgId,
    url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    // sealed with its row's id below, in the same transaction
    secretSealed: '',
    status: 'enabled',
    createdAt: ctx.now(),
    updatedAt: ctx.now(),
  });
  await ctx.em.flush();
  endpoint.secretSealed = s.box.seal(secret, secretAad(endpoint, 'current'));
  await ctx.em.flush();
  await s.durables.opened(ctx.em, endpoint.id, endpoint.events);
  return { endpoint, secret };
}

export async function updateWebhook(ctx: TenantContext, s: WebhookSettings, id: number, input: WebhookUpdate): Promise<WebhookEndpoint> {
  const e = await findWebhook(ctx.em, id);
  if (input.url !== undefined) e.url = await checkWebhookUrl(input.url, s.policy);
  if (input.events !== undefined) e.events = [...new Set(input.events)];
  if (input.description !== undefined) e.description = input.description ?? null;
  if (input.status !== undefined) {
    e.status = input.status;
    e.disabledReason = input.status === 'enabled' ? null : 'disabled by the organisation';
  }
  await ctx.em.flush();
  if (e.status === 'enabled' && (input.events !== undefined || input.status === 'enabled')) await s.durables.opened(ctx.em, e.id, e.events);
  return e;
}

export async function deleteWebhook(ctx: TenantContext, id: number): Promise<{ id: number; deleted: true }> {
  const e = await findWebhook(ctx.em, id);
  await ctx.em.nativeDelete(WebhookDeliverySchema, { endpointId: e.id });
  ctx.em.remove(e);
  await ctx.em.flush();
  return { id, deleted: true };
}

/**
 * A new secret signs every attempt from now on; the one it replaces keeps signing beside it for
 * the overlap, so receivers can switch without losing a delivery. A rotation during an overlap
 * ends the older overlap (at most two secrets sign).
 */
export async function rotateWebhookSecret(ctx: TenantContext, s: WebhookSettings, id: number): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const e = await findWebhook(ctx.em, id);
  const current = s.box.open(e.secretSealed, secretAad(e, 'current'));
  const secret = newWebhookSecret();
  e.previousSecretSealed = s.box.seal(current, secretAad(e, 'previous'));
  e.previousSecretUntil = new Date(ctx.now().getTime() + s.overlapMs);
  e.secretSealed = s.box.seal(secret, secretAad(e, 'current'));
  await ctx.em.flush();
  return { endpoint: e, secret };
}

export async function listWebhooks(em: EntityManager, from: number, take: number) {
  const [rows, total] = await findAndCount(em, WebhookEndpointSchema, {}, { orderBy: { id: 'asc' }, offset: from, limit: take });
  return { rows, total };
}

export async function listDeliveries(em: EntityManager, endpointId: number, q: { from: number; take: number; status?: DeliveryStatus }) {
  await findWebhook(em, endpointId);
  const [rows, total] = await findAndCount(
    em,
    WebhookDeliverySchema,
    { endpointId, ...(q.status ? { status: q.status } : {}) },
    { orderBy: { id: 'desc' }, offset: q.from, limit: q.take },
  );
  return { rows, total };
}

/** Sends a delivery again now (after it failed, or ahead of its next scheduled attempt). */
export async function retryDelivery(ctx: TenantContext, endpointId: number, deliveryId: number): Promise<WebhookDelivery> {
  const e = await findWebhook(ctx.em, endpointId);
  const d = await ctx.em.findOne(WebhookDeliverySchema, { id: deliveryId, endpointId });
  if (!d) throw new NotFoundError(`Webhook ${endpointId} has no delivery ${deliveryId}`, 'webhook_delivery_not_found');
  if (e.status !== 'enabled') throw new ConflictError(`Webhook ${endpointId} is disabled; enable it (PUT status "enabled") before retrying`, 'webhook_disabled');
  if (d.status === 'succeeded') throw new ConflictError(`Delivery ${deliveryId} already succeeded`, 'webhook_delivery_succeeded');
  if (d.status === 'delivering') throw new ConflictError(`Delivery ${deliveryId} is being sent now`, 'webhook_delivery_in_progress');
  d.status = 'pending';
  d.nextAttemptAt = ctx.now();
  d.completedAt = null;
  await ctx.em.flush();
  return d;
}
