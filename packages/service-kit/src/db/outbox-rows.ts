import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlRows } from './orm.js';

/*
 * Outbox rows written in the caller's transaction: the events a change announces, already
 * prepared (envelope built, events/outbox.ts), land with it or not at all. Here, below the event
 * layer, because commit groups and the unit of work write them as part of a commit; the relay
 * that publishes them is events/outbox.ts.
 */

/**
 * The outbox events written in each open transaction (by its context), so that a COMMIT whose
 * answer was lost can be proved made by finding them (decision 163). Keyed weakly: an entry goes
 * with its transaction.
 */
const writtenInTransaction = new WeakMap<object, string[]>();

/** Notes events written into the outbox by the transaction `em` is in (none outside one). */
export function noteEventsWritten(em: EntityManager, ids: readonly string[]): void {
  const trx = em.getTransactionContext<object>();
  if (!trx || ids.length === 0) return;
  const written = writtenInTransaction.get(trx);
  if (written) written.push(...ids);
  else writtenInTransaction.set(trx, [...ids]);
}

/** The ids of the events the transaction `em` is in has written so far. */
export function eventsWrittenIn(em: EntityManager): string[] {
  const trx = em.getTransactionContext<object>();
  return trx ? [...(writtenInTransaction.get(trx) ?? [])] : [];
}

/** `recordEvent` of an event already prepared. */
export async function recordPreparedEvent(em: EntityManager, row: PreparedEvent): Promise<string> {
  await sqlRows(
    em,
    `insert into kit_outbox ${OUTBOX_COLUMNS} values (?::uuid, ?, ?, ?::bigint, ?, ?, ?) on conflict (event_id) do nothing`,
    [row.id, row.subject, row.type, row.orgId, row.json, row.traceparent, row.resource],
    { prepared: true },
  );
  noteEventsWritten(em, [row.id]);
  return row.id;
}

/** An event ready to be written into the outbox by the caller's own statement. */
export interface PreparedEvent {
  id: string;
  subject: string;
  type: string;
  orgId: number | null;
  /** The CloudEvents envelope as JSON text, exactly as it will be published. */
  json: string;
  /** The trace context the relay sends in the message header (null when none). */
  traceparent: string | null;
  /** The resource the event is about (the envelope's `subject`), sent in the `ce-subject` header. */
  resource: string | null;
}

/**
 * The columns of an outbox row, for a service that writes its change and its event in one
 * statement (`insert into kit_outbox ${OUTBOX_COLUMNS} select ...`): the row lands in the same
 * transaction exactly as `recordEvent` would write it, and the relay publishes it the same way.
 */
export const OUTBOX_COLUMNS = '(event_id, subject, type, org_id, envelope, traceparent, resource)';

/** Prepared events in one statement, in the given order (a batch, or a commit group's events at its commit). */
export async function insertPreparedEvents(em: EntityManager, events: readonly PreparedEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (events.length === 1) {
    await recordPreparedEvent(em, events[0]);
    return;
  }
  const { sql, params } = eventsInsert(events);
  await sqlRows(em, sql, params, { prepared: true });
  noteEventsWritten(em, events.map((e) => e.id));
}

/**
 * The statement that writes prepared events, in the given order, as one parameter however many
 * there are: it stands alone or in a WITH clause beside the change the events announce (one
 * statement, one commit: `ctx.writeLast`).
 */
export function eventsInsert(events: readonly PreparedEvent[]): { sql: string; params: unknown[] } {
  const rows = events.map((p) => ({ event_id: p.id, subject: p.subject, type: p.type, org_id: p.orgId, envelope: p.json, traceparent: p.traceparent, resource: p.resource }));
  return {
    sql: `insert into kit_outbox ${OUTBOX_COLUMNS}
     select event_id, subject, type, org_id, envelope, traceparent, resource
       from jsonb_array_elements(?::jsonb) with ordinality as e(v, n),
            jsonb_to_record(e.v) as x(event_id uuid, subject text, type text, org_id bigint, envelope text, traceparent text, resource text)
      order by e.n
     on conflict (event_id) do nothing`,
    params: [JSON.stringify(rows)],
  };
}
