import type { Context } from 'hono';
import { INTERNAL_HEADERS, type KitEnv } from './context.js';
import { answerText } from './answer-text.js';
import type { AuditEntry, AuditedRoute } from '../audit/audit-record.js';

/** What the unit of work needs to record a write: the service's write routes and a way to read a resource as it stands. */
export interface AuditHook {
  /** The service's write routes, in routing order. */
  routes: readonly AuditedRoute[];
  /** GET `path` inside this service with the caller's credential; the JSON answer, or null. */
  read: (path: string, headers: Record<string, string>) => Promise<unknown>;
}

/** The write route a request is for, as the route table orders them (static segments first). */
export function auditedRouteOf(hook: AuditHook, method: string, path: string): AuditedRoute | null {
  return hook.routes.find((r) => r.route.method === method && r.pattern.test(path)) ?? null;
}

/** The concrete path of a route template's first `segments` segments, taken from the request's path. */
function prefixOf(requestPath: string, template: string): string {
  const n = template.split('/').length;
  return requestPath.replace(/^\/v1/, '').split('/').slice(0, n).join('/');
}

/** The resource as it stands before the write (when its route has a GET), read with the caller's own credential. */
export async function stateBefore(hook: AuditHook, audited: AuditedRoute, c: Context<KitEnv>): Promise<unknown> {
  if (!audited.readPath) return null;
  const headers: Record<string, string> = {};
  for (const h of Object.values(INTERNAL_HEADERS)) {
    const v = c.req.header(h);
    if (v) headers[h] = v;
  }
  return hook.read(`/v1${prefixOf(c.req.path, audited.readPath)}`, headers).catch(() => null);
}

/** The record of a write that succeeded: the answer is the state after (a JSON answer; other media types are not kept), a removal's the state before. */
export async function auditEntryOf(c: Context<KitEnv>, audited: AuditedRoute, before: unknown): Promise<AuditEntry | null> {
  let after: unknown = null;
  if ((c.res.headers.get('content-type') ?? '').startsWith('application/json')) {
    try {
      after = JSON.parse(await answerText(c.res));
    } catch {
      after = null;
    }
  }
  return auditEntryFor(c, audited, before, after, c.res.status);
}

/** The record of a write answered `status` with `after` (parsed JSON), before the answer is made: a last write recorded in its own statement. */
export function auditEntryFor(c: Context<KitEnv>, audited: AuditedRoute, before: unknown, after: unknown, status: number): AuditEntry | null {
  const auth = c.get('auth');
  if (!auth || auth.credentialType === 'operator') return null;
  const segments = c.req.path.replace(/^\/v1/, '').split('/');
  const idAt = audited.idParam ? audited.route.path.split('/').indexOf(`:${audited.idParam}`) : -1;
  const answeredId = after && typeof after === 'object' && !Array.isArray(after) ? (after as { id?: unknown }).id : undefined;
  const resourceId = idAt >= 0 ? decodeURIComponent(segments[idAt] ?? '') : answeredId != null ? String(answeredId) : null;
  return {
    orgId: auth.orgId,
    credentialType: auth.credentialType,
    credentialId: auth.credentialId,
    requestId: c.get('requestId'),
    operation: audited.route.operationId,
    method: c.req.method,
    path: c.req.path,
    resourceType: audited.resourceType,
    resourceId,
    status,
    // a removal leaves nothing after it; where the resource could not be read before (a file,
    // answered as its bytes), the removal's own answer is what was removed (issue 71)
    before: c.req.method === 'DELETE' ? (before ?? after) : before,
    after: c.req.method === 'DELETE' ? null : after,
  };
}
