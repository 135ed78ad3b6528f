import { randomUUID } from 'node:crypto';
import { cloudEventSchema, eventType, type CloudEvent } from '@ledgerline/contracts/events';
import type { NewEvent } from '../new-event.js';

export type { NewEvent } from '../new-event.js';

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
