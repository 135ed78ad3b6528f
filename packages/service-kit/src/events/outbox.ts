import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { createHash } from 'node:crypto';
import { RETIRING_EVENT_VERSIONS, eventType, retiringVersionsOf, tenantSubject, type CloudEvent, type RetiringEventVersion } from '@ledgerline/contracts';
import type { EventBus } from './bus.js';
import { Pump } from './pump.js';
import { SpanKind, endSpan, startSpan, traceparentOf } from '../tracing.js';
import type { Span } from '@opentelemetry/api';
import { buildEnvelope, type NewEvent } from './envelope.js';
import type { Logger } from '../logger.js';
import { sqlRows } from '../db/orm.js';
import { insertPreparedEvents, recordPreparedEvent, type PreparedEvent } from '../db/outbox-rows.js';
import { connectWritable } from '../db/connect-writable.js';
import type { MetricsRegistry } from '../metrics.js';
import { eventHeaders } from './headers.js';

export { RESOURCE_HEADER, eventHeaders } from './headers.js';
export { OUTBOX_COLUMNS, eventsInsert, eventsWrittenIn, insertPreparedEvents, noteEventsWritten, recordPreparedEvent, type PreparedEvent } from '../db/outbox-rows.js';

/**
 * Writes an event into the outbox inside the caller's transaction: the event exists if and only
 * if the change that caused it was committed. The relay publishes it afterwards.
 */
export async function recordEvent<T>(em: EntityManager, source: string, ev: NewEvent<T>): Promise<string> {
  return recordPreparedEvent(em, prepareEvent(source, ev));
}

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
  return {
    id: envelope.id,
    subject: ev.subject,
    type: envelope.type,
    orgId: ev.orgId ?? null,
    json,
    traceparent: envelope.traceparent ?? null,
    resource: envelope.subject ?? null,
  };
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

interface OutboxRow {
  id: number;
  event_id: string;
  subject: string;
  org_id: string | number;
  envelope: string;
  traceparent: string | null;
  resource: string | null;
  created_at: Date;
}

/** The advisory lock whose holder is the one relay of a database (decision 84, 102). */
const RELAY_LOCK = `hashtext('kit-outbox-relay')`;
/** The channel on which a replica that cannot publish wakes the one that can. */
const RELAY_CHANNEL = 'kit_outbox_relay';

/**
 * One statement per pass for the relay that leads: it marks what the previous pass published
 * (sent, or one more failed attempt) and takes the next rows in id order. The rows it marks are
 * left out of its own select, which reads the snapshot from before the updates.
 */
export const PASS_SQL = `with sent as (update kit_outbox set sent_at = now() where id = any($1::bigint[]) and sent_at is null),
       failed as (update kit_outbox set attempts = attempts + 1 where id = any($2::bigint[]))
  select id, event_id, subject, org_id, envelope, traceparent, resource, created_at
    from kit_outbox
   where sent_at is null and id <> all($1::bigint[])
   order by id
   limit $3`;

/**
 * The relay's own session. A statement that gets no answer (a network partition) fails, and the
 * connection with it, instead of holding the relay's pass, and its lock, for ever.
 *
 * Sequential scans are off for it: the session lives as long as the process and sends one
 * statement every pass, so Postgres soon reuses a generic plan of it, made with the statistics
 * of that moment. Made while the outbox was nearly empty, that plan read the whole table on
 * every pass to mark failed publishes (none, mostly), and the outbox keeps a week of sent rows:
 * on the bench the sales and ledger databases read millions of outbox rows, several ms of their
 * CPU per document. Every row a pass touches is found by id or in the unsent rows' index.
 *
 * Bitmap scans are off for it: marking a row sent leaves its old version's entry in the unsent
 * rows' partial index until a vacuum, and the planner read that index with a bitmap scan, which
 * visits every such entry's heap page on every pass and never marks one dead (1 ms a pass in the
 * ledger's outbox after one quick bench, and growing with the rows marked since the last vacuum,
 * idle passes included). A plain index scan in id order marks the entries it finds dead, so the
 * next pass skips them: 0.04 ms.
 */
export function relayConnectionConfig(databaseUrl: string, silentSessionTimeoutMs = 0): pg.ClientConfig {
  // a session silent that long is ended by the server, releasing the leader's lock (idle_session_timeout)
  const silent = silentSessionTimeoutMs > 0 ? ` -c idle_session_timeout=${Math.floor(silentSessionTimeoutMs)}` : '';
  return { connectionString: databaseUrl, keepAlive: true, query_timeout: 30_000, options: `-c enable_bitmapscan=off -c enable_seqscan=off${silent}` };
}

/**
 * A replica that does not lead tries to; when it cannot and work woke it, it wakes the leader
 * (whose connection listens), all in one statement.
 */
const LEAD_SQL = `select leads, case when not leads and $1::boolean then pg_notify('${RELAY_CHANNEL}', '') end as woke
    from (select pg_try_advisory_lock(${RELAY_LOCK}) as leads) l`;

/**
 * Publishes committed outbox rows in order, each with `Nats-Msg-Id` = event id, and marks a row
 * sent only after its PubAck (a duplicate PubAck counts as sent). A failed publish leaves the
 * row for the next pass; JetStream's dedup window and the consumers' inbox absorb the repeats.
 *
 * One relay publishes per database at a time, so two replicas never publish one resource's
 * events out of order. It leads by a session advisory lock on a connection of its own, which it
 * keeps: each pass is then one statement, with no transaction around it (decision 102). The
 * lock goes with the connection, so a replica that dies hands leadership to the next one that
 * looks (at its idle poll, `OUTBOX_POLL_MS`).
 */
export class OutboxRelay extends Pump {
  private backlog = 0;
  /** When the oldest row the last pass found unsent was written (null: none was waiting). */
  private oldestUnsent: Date | null = null;
  private published: ReturnType<MetricsRegistry['counter']>;
  private client: pg.Client | null = null;
  private leading = false;
  /** After how long a silent session of this relay is ended by the server (0: never). */
  private readonly silentSessionTimeoutMs: number;
  /** Rows published (or failed) by the last pass, marked by the next statement. */
  private marks: { sent: number[]; failed: number[] } = { sent: [], failed: [] };

  constructor(
    private readonly databaseUrl: string,
    private readonly bus: EventBus,
    log: Logger,
    pollMs: number,
    metrics: MetricsRegistry,
    private readonly batchSize = 200,
    leaderTimeoutMs = 0,
    private readonly retiring: readonly RetiringEventVersion[] = RETIRING_EVENT_VERSIONS,
  ) {
    super({ idleMs: pollMs, what: 'outbox relay pass' }, log);
    // a relay that looks every `pollMs` is silent longer only when it is stuck: four looks at least
    this.silentSessionTimeoutMs = leaderTimeoutMs > 0 ? Math.max(leaderTimeoutMs, 4 * pollMs) : 0;
    this.published = metrics.counter('outbox_published_total', 'Outbox events published');
    metrics.gauge('outbox_backlog', 'Unsent outbox rows seen at the last pass').set({}, () => this.backlog);
    metrics.gauge('outbox_relay_leading', '1 when this process is the one that publishes its database\'s outbox').set({}, () => (this.leading ? 1 : 0));
    metrics
      .gauge('outbox_oldest_unsent_age_seconds', 'Age of the oldest event waiting to be published at the last pass (0 when none waited)')
      .set({}, () => (this.oldestUnsent ? Math.max(0, (Date.now() - this.oldestUnsent.getTime()) / 1000) : 0));
  }

  /** A full batch means another pass at once. */
  protected async pass(idle: boolean): Promise<boolean> {
    const client = await this.connection();
    if (!this.leading) {
      try {
        const [row] = (await client.query(LEAD_SQL, [!idle])).rows as Array<{ leads: boolean }>;
        if (!row.leads) {
          // the leading replica reports the backlog; this one has not looked at it
          this.backlog = 0;
          this.oldestUnsent = null;
          return false;
        }
        this.leading = true;
        await client.query(`listen ${RELAY_CHANNEL}`);
      } catch (err) {
        this.dropConnection(); // and with it the lock, if this statement took it
        throw err;
      }
    }
    // What this pass published is marked by the next one: at once after a full batch, else at
    // the next commit's kick or idle look. A crash before then publishes those rows again, which
    // the stream's duplicate window and the consumers' inbox absorb.
    return (await this.publishBatch(client)) === this.batchSize;
  }

  override async stop(): Promise<void> {
    await super.stop();
    const client = this.client;
    this.client = null;
    if (!client) return;
    try {
      if (this.leading && this.marks.sent.length + this.marks.failed.length) await this.writeMarks(client);
    } catch (err) {
      this.log.warn('outbox relay could not mark its last rows; they will be published again (deduplicated)', { err: String(err) });
    } finally {
      this.leading = false;
      await client.end().catch(() => undefined); // ending the session hands the lock on
    }
  }

  /** The relay's own connection, opened on first use and again after it broke. */
  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const { connectionString, ...config } = relayConnectionConfig(this.databaseUrl, this.silentSessionTimeoutMs);
    const client = await connectWritable(connectionString!, config);
    client.on('error', (err) => {
      this.log.warn('outbox relay connection failed; it reconnects', { err: String(err) });
      if (this.client === client) this.dropConnection();
    });
    client.on('end', () => {
      if (this.client === client) this.dropConnection();
    });
    client.on('notification', () => this.kick());
    this.client = client;
    return client;
  }

  private dropConnection(): void {
    const client = this.client;
    this.client = null;
    this.leading = false;
    void client?.end().catch(() => undefined);
  }

  private async writeMarks(client: pg.Client): Promise<void> {
    await client.query({ name: 'kit_outbox_marks', text: PASS_SQL, values: [this.marks.sent, this.marks.failed, 0] });
    this.marks = { sent: [], failed: [] };
  }

  /** One pass of the leading relay; answers how many rows it took. */
  private async publishBatch(client: pg.Client): Promise<number> {
    let rows: OutboxRow[];
    try {
      rows = (await client.query({ name: 'kit_outbox_pass', text: PASS_SQL, values: [this.marks.sent, this.marks.failed, this.batchSize] })).rows as OutboxRow[];
    } catch (err) {
      this.dropConnection(); // a statement that failed on the leader's own connection: start over, leadership included
      throw err;
    }
    this.marks = { sent: [], failed: [] };
    this.backlog = rows.length;
    this.oldestUnsent = rows.length ? new Date(rows[0].created_at) : null;
    if (!rows.length) return 0;
    const spans: Span[] = [];
    // Publishes are sent in id order on one connection (so JetStream stores them in that order)
    // and their acknowledgements awaited together: one round trip per batch, not per event.
    // the retiring versions' sunsets are days: one look at the clock per batch
    const today = this.retiring.length ? new Date().toISOString().slice(0, 10) : '';
    const results = await Promise.allSettled(
      rows.map((row) => {
        const span = startSpan(`publish ${row.subject}`, SpanKind.PRODUCER, row.traceparent, { 'messaging.system': 'nats', 'messaging.destination.name': row.subject, 'messaging.message.id': row.event_id });
        spans.push(span);
        const subject = this.bus.subject(tenantSubject(row.subject, row.org_id));
        const headers = () => eventHeaders({ traceparent: traceparentOf(span) ?? row.traceparent, orgId: row.org_id, resource: row.resource });
        // the stored text is the message: published as written, never parsed here
        const current = this.bus.replies.publishToStream(subject, row.envelope, { msgId: row.event_id, headers: headers(), timeoutMs: 5000 });
        const retiring = today ? retiringVersionsOf(row.subject, today, this.retiring) : [];
        if (!retiring.length) return current;
        // an earlier version still published for its readers until its sunset; the row is sent
        // when every version is
        const older = retiring.map((v) => {
          const envelope = olderVersionEnvelope(row.envelope, v);
          return this.bus.replies.publishToStream(subject, JSON.stringify(envelope), { msgId: envelope.id, headers: headers(), timeoutMs: 5000 });
        });
        return Promise.all([current, ...older]).then(([ack]) => ack);
      }),
    );
    let publishError: unknown = null;
    results.forEach((r, i) => {
      endSpan(spans[i], r.status === 'rejected' ? r.reason : undefined);
      if (r.status === 'fulfilled') {
        this.marks.sent.push(Number(rows[i].id));
        this.published.inc({ subject: rows[i].subject });
      } else {
        this.marks.failed.push(Number(rows[i].id));
        publishError ??= r.reason; // the rest waits for the next pass, with the same Nats-Msg-Id
      }
    });
    if (publishError) throw publishError;
    return rows.length;
  }
}

/**
 * The envelope of an earlier version of an event: the same fact under the older type, with its
 * data in the older shape and an id of its own (derived from the event's, so a repeated publish
 * is de-duplicated like the event's own).
 */
export function olderVersionEnvelope(envelopeJson: string, version: RetiringEventVersion): CloudEvent {
  const current = JSON.parse(envelopeJson) as CloudEvent;
  const digest = createHash('sha256').update(`${current.id}|${eventType(version.subject, version.version)}`).digest('hex');
  // an RFC 4122 UUID shape (version 8: derived by the caller's own rule), as the inbox stores ids
  const id = `${digest.slice(0, 8)}-${digest.slice(8, 12)}-8${digest.slice(13, 16)}-${((parseInt(digest[16], 16) & 3) | 8).toString(16)}${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
  return { ...current, id, type: eventType(version.subject, version.version), data: version.fromCurrent(current.data) };
}
