import type { EntityManager } from '@mikro-orm/postgresql';
import type { Webhook, WebhookCreate, WebhookDelivery as WebhookDeliveryView, WebhookUpdate } from '@ledgerline/contracts';
import { SUBJECTS, type SettingsWebhookDisabledEvent } from '@ledgerline/contracts';
import { BusinessRuleError, ConflictError, NotFoundError, findAndCount, recordEvent, sqlRows, type AuthContext, type Logger, type SecretBox, type TenantContext, type TenantScope } from '@ledgerline/service-kit';
import { WebhookDeliverySchema, WebhookEndpointSchema, type DeliveryStatus, type WebhookDelivery, type WebhookEndpoint } from '../db/webhooks.entities.js';
import { newWebhookSecret } from './signing.js';
import { checkWebhookUrl, type UrlPolicy } from './urls.js';
import type { FanoutDurables } from './durables.js';
import { assertMayReceive, ownerScopes, withheldReason, type OwnerScopes } from './access.js';

/** What managing and sending webhooks needs beyond a request's context. */
export interface WebhookSettings {
  box: SecretBox;
  policy: UrlPolicy;
  /** How long a rotated-out secret keeps signing beside the new one. */
  overlapMs: number;
  log: Logger;
  /** The fan-out's durables, opened for the subjects an enabled endpoint selects. */
  durables: FanoutDurables;
  /** Endpoints one organisation may have (`WEBHOOK_MAX_ENDPOINTS`). */
  maxEndpoints: number;
}

/** The sealed secret is bound to its organisation and endpoint: copied to another row it does not open. */
export const secretAad = (e: Pick<WebhookEndpoint, 'orgId' | 'id'>, which: 'current' | 'previous') => `webhook:${e.orgId}:${e.id}:${which}`;

/** The secrets an attempt is signed with now: the current one, and the previous one during its overlap. */
export function signingSecrets(e: WebhookEndpoint, box: SecretBox, now: Date): string[] {
  const secrets = [box.open(e.secretSealed, secretAad(e, 'current'))];
  if (e.previousSecretSealed && e.previousSecretUntil && e.previousSecretUntil > now) secrets.push(box.open(e.previousSecretSealed, secretAad(e, 'previous')));
  return secrets;
}

/** An endpoint as answered; `owners` holds its owner's current scopes (`ownerScopes`). */
export function webhookView(e: WebhookEndpoint, owners: OwnerScopes): Webhook {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description ?? null,
    status: e.status,
    disabled_reason: e.disabledReason ?? null,
    owner: e.owner ?? null,
    withheld_reason: e.status === 'enabled' ? withheldReason({ owner: e.owner ?? null, events: e.events }, owners) : null,
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

/** Endpoints as answered, their owners' scopes read once. */
export async function webhookViews(scope: TenantScope, endpoints: WebhookEndpoint[]): Promise<Webhook[]> {
  const { em, orgId } = scope;
  const owners = await ownerScopes(scope, endpoints.map((e) => e.owner ?? null));
  return endpoints.map((e) => webhookView(e, owners));
}

/**
 * Disables an enabled endpoint with the reason, in the caller's transaction, and says so on the
 * bus (`settings.webhook.disabled`); nothing when it is disabled already.
 */
export async function disableEndpoint(em: Parameters<typeof recordEvent>[0], endpoint: Pick<WebhookEndpoint, 'id' | 'orgId' | 'url'>, reason: string): Promise<boolean> {
  const rows = await sqlRows(em, "update webhook_endpoints set status = 'disabled', disabled_reason = ?, updated_at = now() where id = ? and status = 'enabled' returning id", [reason, endpoint.id]);
  if (rows.length === 0) return false;
  await recordEvent<SettingsWebhookDisabledEvent>(em, 'settings', {
    subject: SUBJECTS.settingsWebhookDisabled,
    orgId: endpoint.orgId,
    resource: String(endpoint.id),
    data: { webhook_id: endpoint.id, url: endpoint.url, reason },
  });
  return true;
}

export async function findWebhook(em: EntityManager, id: number): Promise<WebhookEndpoint> {
  const e = await em.findOne(WebhookEndpointSchema, { id });
  if (!e) throw new NotFoundError(`Webhook ${id} does not exist`, 'webhook_not_found');
  return e;
}

/**
 * 422 `webhook_limit_reached` when the organisation has its most endpoints: each one's deliveries
 * take the sender's time, so one organisation cannot crowd out the others by numbers. Creations
 * of one organisation wait for each other here, so two at once cannot both take the last place.
 */
async function assertEndpointPlace(ctx: TenantContext, max: number): Promise<void> {
  await sqlRows(ctx.em, "select pg_advisory_xact_lock(hashtextextended('settings.webhook-endpoints:' || ?::text, 0))", [ctx.orgId]);
  const [{ n }] = await sqlRows<{ n: number }>(ctx.em, 'select count(*)::int as n from webhook_endpoints where org_id = ?', [ctx.orgId]);
  if (n >= max) {
    throw new BusinessRuleError(`The organisation has ${n} webhook endpoints, the most it may have (${max}); delete one, or subscribe an existing one to more events`, 'webhook_limit_reached');
  }
}

export async function createWebhook(ctx: TenantContext, s: WebhookSettings, input: WebhookCreate, auth: AuthContext | undefined): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  assertMayReceive(auth, input.events);
  const url = await checkWebhookUrl(input.url, s.policy);
  await assertEndpointPlace(ctx, s.maxEndpoints);
  const secret = newWebhookSecret();
  const endpoint = ctx.em.create(WebhookEndpointSchema, {
    orgId: ctx.orgId,
    url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    // sealed with its row's id below, in the same transaction
    secretSealed: '',
    status: 'enabled',
    owner: auth?.credentialId ?? null,
    createdAt: ctx.now(),
    updatedAt: ctx.now(),
  });
  await ctx.em.flush();
  endpoint.secretSealed = s.box.seal(secret, secretAad(endpoint, 'current'));
  await ctx.em.flush();
  await s.durables.opened(ctx.em, endpoint.id, endpoint.events);
  return { endpoint, secret };
}

/**
 * Changes an endpoint. A change of where it delivers or what (url, events) or an enabling is made
 * on behalf of the caller, who must read every area the endpoint then selects and becomes its
 * owner; a description or a disabling needs nothing more and keeps the owner.
 */
export async function updateWebhook(ctx: TenantContext, s: WebhookSettings, id: number, input: WebhookUpdate, auth: AuthContext | undefined): Promise<WebhookEndpoint> {
  const e = await findWebhook(ctx.em, id);
  if (input.url !== undefined || input.events !== undefined || input.status === 'enabled') {
    assertMayReceive(auth, input.events ?? e.events);
    e.owner = auth?.credentialId ?? null;
  }
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
