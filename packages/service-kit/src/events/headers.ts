import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';

/**
 * The header naming the resource an event is about (the CloudEvents `subject` attribute, as the
 * CloudEvents NATS binding names its headers): consumers order by it without parsing the envelope.
 */
export const RESOURCE_HEADER = 'ce-subject';

/**
 * The headers an event is published with beside its envelope: its trace context, organisation
 * and resource, so a consumer can route, order or pass over it without parsing the body. A module
 * of its own so that what only publishes (the dead letters' redrive and its command) does not load
 * the outbox's database and tracing code.
 */
export function eventHeaders(event: { traceparent?: string | null; orgId?: string | number | null; resource?: string | null }): MsgHdrs {
  const h = natsHeaders();
  if (event.traceparent) h.set('traceparent', event.traceparent);
  if (event.orgId != null) h.set('ce-orgid', String(event.orgId));
  if (event.resource != null) h.set(RESOURCE_HEADER, event.resource);
  return h;
}
