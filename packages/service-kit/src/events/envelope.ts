import { randomUUID } from 'node:crypto';
import { cloudEventSchema, eventType, type CloudEvent } from '@ledgerline/contracts/events';

export interface NewEvent<T> {
  /** Catalogue subject without prefix, e.g. `sales.invoice.posted`. */
  subject: string;
  data: T;
  orgId?: number;
  /** The CloudEvents `subject`: the id of the resource the event is about. */
  resource?: string;
  traceparent?: string;
  /** A deterministic id makes re-recording the same fact idempotent; default a random UUID. */
  id?: string;
}

export function buildEnvelope<T>(source: string, ev: NewEvent<T>): CloudEvent<T> {
  return {
    specversion: '1.0',
    id: ev.id ?? randomUUID(),
    source: `/ledgerline/${source}`,
    type: eventType(ev.subject),
    subject: ev.resource,
    time: new Date().toISOString(),
    datacontenttype: 'application/json',
    ...(ev.orgId !== undefined ? { orgid: String(ev.orgId) } : {}),
    ...(ev.traceparent ? { traceparent: ev.traceparent } : {}),
    data: ev.data,
  };
}

export function parseEnvelope(raw: Uint8Array): CloudEvent {
  // a view of the message's bytes, not a copy of them
  const json = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  return cloudEventSchema.parse(json) as CloudEvent;
}
