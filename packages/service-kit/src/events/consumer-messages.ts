import type { JsMsg } from '@nats-io/jetstream';
import { splitTenantSubject, type CloudEvent } from '@ledgerline/contracts';
import type { EventBus } from './bus.js';
import { parseEnvelope } from './envelope.js';
import { RESOURCE_HEADER } from './headers.js';

/* Reading a delivered message: its envelope checked against its subject, and its ordering key. */

export type Parsed = { event: CloudEvent; error?: undefined } | { event?: undefined; error: unknown };

/** The default ordering key: one resource of one organisation. Read from the envelope, or unread from the message (`unreadKey`). */
export const resourceKey = (orgId: string | number, resource: string): string => `${orgId}|${resource}`;
export const defaultOrderingKey = (event: CloudEvent): string => resourceKey(event.orgid ?? '', event.subject ?? event.id);

/**
 * The envelope, with its organisation taken from the subject: the subject is what the server's
 * permissions let a publisher use, so an envelope naming another organisation than its subject
 * is refused (a forged or misrouted event), and one naming none gets the subject's.
 */
export function parseMessage(m: JsMsg, bus: EventBus): Parsed {
  try {
    const event = parseEnvelope(m.data);
    const routed = splitTenantSubject(bus.unprefixed(m.subject));
    if (!routed) return { error: new Error(`subject ${m.subject} names no organisation`) };
    if (event.orgid !== undefined && event.orgid !== String(routed.orgId)) {
      return { error: new Error(`the envelope names organisation ${event.orgid} but was published for organisation ${routed.orgId}`) };
    }
    return { event: { ...event, orgid: String(routed.orgId) } };
  } catch (error) {
    return { error };
  }
}

/**
 * The organisation and the default ordering key of a message, from its subject and headers
 * alone; null when they do not tell (no organisation in the subject, or no `ce-subject` header:
 * an event without a resource, or one written before the relay sent it), and the envelope must
 * be read. The key equals `defaultOrderingKey` of the envelope the relay sent with them.
 */
export function unreadKey(m: JsMsg, bus: EventBus): { orgId: number; key: string } | null {
  const routed = splitTenantSubject(bus.unprefixed(m.subject));
  const resource = m.headers?.get(RESOURCE_HEADER);
  if (!routed || !resource) return null;
  return { orgId: routed.orgId, key: resourceKey(routed.orgId, resource) };
}
