import { WEBHOOK_SUBJECTS, subjectMatches } from '@ledgerline/contracts';
import { hasScope } from '@ledgerline/contracts/scopes';
import { ForbiddenError, sqlRows, type AuthContext, type TenantScope } from '@ledgerline/service-kit';

/*
 * What a webhook may carry (issue 52): an event is read data of its area (an invoice with its
 * customer and amounts is `sales:read` data), so a webhook delivers it only on behalf of a
 * credential that may read that area. The credential that creates a webhook, or changes where it
 * goes or what it selects, becomes its owner and must hold the read scope of every area its events
 * come from (a wildcard needs them all). Every event is queued, and every attempt sent, only while
 * the owner still holds that scope: a revoked or expired owner disables the webhook, a narrowed
 * one stops receiving what it can no longer read, and the webhook says why (`withheld_reason`).
 */

/**
 * The area an event subject belongs to: its first token (`sales.invoice.posted` → sales), except
 * the directory's events, which settings publishes but which are `contacts:read` data (decision 234).
 */
export const areaOfSubject = (subject: string) => (subject.startsWith('settings.contact.') ? 'contacts' : subject.split('.')[0]);

/** The area of a CloudEvents type (`com.ledgerline.sales.invoice.posted.v1` → sales). */
export const areaOfEventType = (type: string) => {
  const subject = /^com\.ledgerline\.([a-z_.]+)\.v\d+$/.exec(type)?.[1];
  return subject ? areaOfSubject(subject) : null;
};

/** The areas of the events the patterns select, in the order the catalogue lists them. */
export function areasSelected(patterns: readonly string[]): string[] {
  const subjects = WEBHOOK_SUBJECTS.filter((s) => patterns.some((p) => subjectMatches(p, s)));
  return [...new Set(subjects.map(areaOfSubject))];
}

/** The read scopes among `areas` that `scopes` lacks. */
export function unreadableAreas(scopes: readonly string[], areas: readonly string[]): string[] {
  return areas.filter((a) => !hasScope(scopes, `${a}:read`));
}

/**
 * 403 `insufficient_scope` unless the caller may read every area the patterns select: a webhook
 * would otherwise hand it what its GETs are refused.
 */
export function assertMayReceive(auth: AuthContext | undefined, patterns: readonly string[]): void {
  const missing = unreadableAreas(auth?.scopes ?? [], areasSelected(patterns));
  if (missing.length === 0) return;
  throw new ForbiddenError(
    `A webhook delivers the events it selects to whoever receives it, so this credential needs the read scope of every area they come from: ${missing.map((a) => `${a}:read`).join(', ')} missing`,
    'insufficient_scope',
    missing.map((a) => ({ path: 'events', message: `events of ${a} need ${a}:read`, code: 'insufficient_scope' })),
  );
}

/** An owner's scopes as they are now; null when the credential is revoked, expired or gone. */
export type OwnerScopes = Map<string, string[] | null>;

/** The current scopes of the credentials (`key:<id>`, `client:<client_id>`) that own an organisation's webhooks. */
export async function ownerScopes(scope: TenantScope, owners: Iterable<string | null>): Promise<OwnerScopes> {
  const { em, orgId } = scope;
  const keys: number[] = [];
  const clients: string[] = [];
  const found: OwnerScopes = new Map();
  for (const o of new Set(owners)) {
    if (o === null) continue;
    found.set(o, null);
    const [kind, id] = [o.slice(0, o.indexOf(':')), o.slice(o.indexOf(':') + 1)];
    if (kind === 'key' && /^\d{1,15}$/.test(id)) keys.push(Number(id));
    else if (kind === 'client') clients.push(id);
  }
  if (keys.length === 0 && clients.length === 0) return found;
  const rows = await sqlRows<{ owner: string; scopes: string[] }>(
    em,
    `select 'key:' || id as owner, scopes from api_keys
      where org_id = ? and id = any(?::bigint[]) and revoked_at is null and (expires_at is null or expires_at > now())
     union all
     select 'client:' || client_id, scopes from api_clients where org_id = ? and client_id = any(?::text[]) and revoked_at is null`,
    [orgId, `{${keys.join(',')}}`, orgId, clients],
  );
  for (const r of rows) found.set(r.owner, r.scopes);
  return found;
}

/**
 * Whether an endpoint's owner may receive an event of `area` now: 'yes'; 'no' (narrowed: this
 * area is withheld); 'gone' (revoked, expired or deleted: the endpoint is to be disabled). An
 * endpoint saved before webhooks had owners has none and keeps receiving until it is changed.
 */
export function ownerMayReceive(owner: string | null, scopes: OwnerScopes, area: string | null): 'yes' | 'no' | 'gone' {
  if (owner === null) return 'yes';
  const held = scopes.get(owner);
  if (!held) return 'gone';
  return area !== null && hasScope(held, `${area}:read`) ? 'yes' : 'no';
}

/** How a credential id reads in a reason: `key:7` → API key 7, `client:abc` → API client abc. */
export const credentialName = (owner: string) => (owner.startsWith('key:') ? `API key ${owner.slice(4)}` : owner.startsWith('client:') ? `API client ${owner.slice(7)}` : owner);

export const ownerGoneReason = (owner: string) => `${credentialName(owner)}, which set up this webhook, was revoked or has expired; a credential that reads its events must enable it again`;

/** Why some of what an endpoint selects is not delivered now; null when nothing is withheld. */
export function withheldReason(endpoint: { owner: string | null; events: string[] }, scopes: OwnerScopes): string | null {
  if (endpoint.owner === null) return null;
  const held = scopes.get(endpoint.owner);
  if (!held) return ownerGoneReason(endpoint.owner);
  const missing = unreadableAreas(held, areasSelected(endpoint.events));
  if (missing.length === 0) return null;
  return `${credentialName(endpoint.owner)}, which set up this webhook, no longer holds ${missing.map((a) => `${a}:read`).join(', ')}: events of ${missing.join(', ')} are not delivered`;
}
