import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { tenantSubject } from '@ledgerline/contracts';
import type { EventBus } from './bus.js';
import { Pump } from './pump.js';
import { SpanKind, endSpan, startSpan, traceparentOf } from '../tracing.js';
import type { Span } from '@opentelemetry/api';
import { buildEnvelope, type NewEvent } from './envelope.js';
import type { Logger } from '../logger.js';
import { sqlRows } from '../db/orm.js';
import type { MetricsRegistry } from '../metrics.js';

/**
 * Writes an event into the outbox inside the caller's transaction: the event exists if and only
 * if the change that caused it was committed. The relay publishes it afterwards.
 */
export async function recordEvent<T>(em: EntityManager, source: string, ev: NewEvent<T>): Promise<string> {
  const row = prepareEvent(source, ev);
  await sqlRows(
    em,
    `insert into kit_outbox ${OUTBOX_COLUMNS} values (?::uuid, ?, ?, ?::bigint, ?, ?) on conflict (event_id) do nothing`,
    [row.id, row.subject, row.type, row.orgId, row.json, row.traceparent],
    { prepared: true },
  );
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
}

/**
 * The columns of an outbox row, for a service that writes its change and its event in one
 * statement (`insert into kit_outbox ${OUTBOX_COLUMNS} select ...`): the row lands in the same
 * transaction exactly as `recordEvent` would write it, and the relay publishes it the same way.
 */
export const OUTBOX_COLUMNS = '(event_id, subject, type, org_id, envelope, traceparent)';

/**
 * Builds an event's envelope once. `dataJson`, when given, is the already serialised `data`
 * (e.g. a document body that is also stored), so it is not serialised a second time.
 */
export function prepareEvent<T>(source: string, ev: NewEvent<T>, dataJson?: string): PreparedEvent {
  const envelope = buildEnvelope(source, requireOrganisation(ev));
  let json: string;
  if (dataJson === undefined) json = JSON.stringify(envelope);
  else {
    const { data: _data, ...head } = envelope;
    const text = JSON.stringify(head);
    json = `${text.slice(0, -1)},"data":${dataJson}}`;
  }
  return { id: envelope.id, subject: ev.subject, type: envelope.type, orgId: ev.orgId ?? null, json, traceparent: envelope.traceparent ?? null };
}

/**
 * Several events in one statement (a batch operation that announces hundreds of facts), in the
 * caller's transaction and in the given order.
 */
export async function recordEvents<T>(em: EntityManager, source: string, events: NewEvent<T>[]): Promise<string[]> {
  const prepared = events.map((ev) => prepareEvent(source, ev));
  await insertPreparedEvents(em, prepared);
  return prepared.map((p) => p.id);
}

/** Prepared events in one statement, in the given order (a batch, or a commit group's events at its commit). */
export async function insertPreparedEvents(em: EntityManager, events: readonly PreparedEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((p) => ({ event_id: p.id, subject: p.subject, type: p.type, org_id: p.orgId, envelope: p.json, traceparent: p.traceparent }));
  await sqlRows(
    em,
    `insert into kit_outbox ${OUTBOX_COLUMNS}
     select event_id, subject, type, org_id, envelope, traceparent
       from jsonb_array_elements(?::jsonb) with ordinality as e(v, n),
            jsonb_to_record(e.v) as x(event_id uuid, subject text, type text, org_id bigint, envelope text, traceparent text)
      order by e.n
     on conflict (event_id) do nothing`,
    [JSON.stringify(rows)],
    { prepared: true },
  );
}

/**
 * Every event is published on its organisation's subject (`<subject>.<org>`), so one without an
 * organisation could reach no subscriber: refusing it here makes the mistake a failed request
 * or a redelivered event, never a silently lost fact.
 */
function requireOrganisation<T>(ev: NewEvent<T>): NewEvent<T> {
  if (ev.orgId === undefined || ev.orgId === null || !Number.isSafeInteger(ev.orgId) || ev.orgId < 1) {
    throw new Error(`event ${ev.subject} names no organisation; every event is published on its organisation's subject`);
  }
  return ev;
}

/** How soon a relay looks again when another replica's relay held the outbox. */
const RELAY_RETRY_MS = 25;

interface OutboxRow {
  id: string;
  event_id: string;
  subject: string;
  org_id: string | number;
  envelope: string;
  traceparent: string | null;
  created_at: Date;
}

/**
 * Publishes committed outbox rows in order, each with `Nats-Msg-Id` = event id, and marks a row
 * sent only after its PubAck (a duplicate PubAck counts as sent). A failed publish leaves the
 * row for the next pass; JetStream's dedup window and the consumers' inbox absorb the repeats.
 */
export class OutboxRelay extends Pump {
  private backlog = 0;
  /** When the oldest row the last pass found unsent was written (null: none was waiting). */
  private oldestUnsent: Date | null = null;
  private published: ReturnType<MetricsRegistry['counter']>;

  constructor(
    private readonly orm: MikroORM,
    private readonly bus: EventBus,
    log: Logger,
    pollMs: number,
    metrics: MetricsRegistry,
    private readonly batchSize = 200,
  ) {
    super({ idleMs: pollMs, what: 'outbox relay pass' }, log);
    this.published = metrics.counter('outbox_published_total', 'Outbox events published');
    metrics.gauge('outbox_backlog', 'Unsent outbox rows seen at the last pass').set({}, () => this.backlog);
    metrics
      .gauge('outbox_oldest_unsent_age_seconds', 'Age of the oldest event waiting to be published at the last pass (0 when none waited)')
      .set({}, () => (this.oldestUnsent ? Math.max(0, (Date.now() - this.oldestUnsent.getTime()) / 1000) : 0));
  }

  /** A full batch means more rows may be waiting. Kick it after a commit that wrote events. */
  protected async pass(idle: boolean): Promise<boolean> {
    if (idle && !(await this.anyUnsent())) return false;
    return (await this.publishBatch()) === this.batchSize;
  }

  /**
   * The idle look: one statement on the unsent rows' partial index instead of a transaction with
   * the relay lock (four round trips, several times a second in every process of every service).
   * Rows committed after it are found by the kick of their commit, or by the next look.
   */
  private async anyUnsent(): Promise<boolean> {
    const [probe] = (await this.orm.em.getConnection().execute('select exists (select 1 from kit_outbox where sent_at is null) as waiting', [], 'all')) as Array<{ waiting: boolean }>;
    if (!probe.waiting) {
      this.backlog = 0;
      this.oldestUnsent = null;
    }
    return probe.waiting;
  }

  /** One batch in one transaction; returns how many rows it handled. */
  async publishBatch(): Promise<number> {
    const conn = this.orm.em.getConnection();
    let publishError: unknown = null;
    let busyElsewhere = false;
    const handled = await conn.transactional(async (trx) => {
      // One relay at a time per database: replicas of a service share its outbox, and two relays
      // taking rows with skip locked could publish one resource's events out of order. The others
      // find the lock taken and look again shortly (decision 84).
      const [lock] = (await conn.execute('select pg_try_advisory_xact_lock(hashtext(?)) as locked', ['kit-outbox-relay'], 'all', trx)) as Array<{ locked: boolean }>;
      if (!lock.locked) {
        busyElsewhere = true;
        return 0;
      }
      const rows = (await conn.execute(
        'select id, event_id, subject, org_id, envelope, traceparent, created_at from kit_outbox where sent_at is null order by id limit ? for update skip locked',
        [this.batchSize],
        'all',
        trx,
      )) as OutboxRow[];
      this.backlog = rows.length;
      const spans: Span[] = [];
      this.oldestUnsent = rows.length ? new Date(rows[0].created_at) : null;
      // Publishes are sent in id order on one connection (so JetStream stores them in that order)
      // and their acknowledgements awaited together: one round trip per batch, not per event.
      const results = await Promise.allSettled(
        rows.map((row) => {
          const h = natsHeaders();
          const span = startSpan(`publish ${row.subject}`, SpanKind.PRODUCER, row.traceparent, { 'messaging.system': 'nats', 'messaging.destination.name': row.subject, 'messaging.message.id': row.event_id });
          spans.push(span);
          const traceparent = traceparentOf(span) ?? row.traceparent;
          if (traceparent) h.set('traceparent', traceparent);
          if (row.org_id != null) h.set('ce-orgid', String(row.org_id));
          // the stored text is the message: published as written, never parsed here
          return this.bus.js.publish(this.bus.subject(tenantSubject(row.subject, row.org_id)), row.envelope, {
            msgID: row.event_id,
            headers: h,
            timeout: 5000,
          });
        }),
      );
      const sent: string[] = [];
      const failed: string[] = [];
      results.forEach((r, i) => {
        endSpan(spans[i], r.status === 'rejected' ? r.reason : undefined);
        if (r.status === 'fulfilled') {
          sent.push(rows[i].id);
          this.published.inc({ subject: rows[i].subject });
        } else {
          failed.push(rows[i].id);
          publishError ??= r.reason; // the rest waits for the next pass, with the same Nats-Msg-Id
        }
      });
      if (sent.length) {
        await conn.execute(`update kit_outbox set sent_at = now() where id in (${sent.map(() => '?').join(',')})`, sent, 'run', trx);
      }
      if (failed.length) {
        await conn.execute(`update kit_outbox set attempts = attempts + 1 where id in (${failed.map(() => '?').join(',')})`, failed, 'run', trx);
      }
      return rows.length;
    });
    if (publishError) throw publishError;
    if (busyElsewhere) setTimeout(() => this.kick(), RELAY_RETRY_MS).unref?.();
    return handled;
  }

}
