import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { splitTenantSubject, streamForSubject, type CloudEvent } from '@ledgerline/contracts';
import type { EventBus } from './bus.js';
import { parseEnvelope, type NewEvent } from './envelope.js';
import { TENANT_FILTER, sqlRows } from '../db/orm.js';
import type { CommitGroups } from '../db/commit-groups.js';
import { operationContext, type OperationContext } from '../context.js';
import { SpanKind, endSpan, startSpan, statementsParent, traceparentOf, withStatementsUnder } from '../tracing.js';
import { RESOURCE_HEADER, prepareEvent, recordEvent, type PreparedEvent } from './outbox.js';
import { besideReplica, replicaOfRow, type OrganisationReplica, type ReplicaRow } from '../organisations/replica-row.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';
import { ConsumerBatches, type BatchHandler } from './consumer-batches.js';
import { DEAD_LETTER_HEADERS } from './dead-letters.js';
import { connectionLoss, databaseRefusesNow } from '../db/connection-loss.js';
import { CommitOutcomeUnknownError } from '../errors.js';

/** Thrown by a handler for a message that can never succeed: it goes to the dead-letter subject at once. */
export class PoisonMessageError extends Error {}

/**
 * A consumer's operation context: the event's organisation, the inbox transaction (`em`; events
 * recorded through `emit` land in it), the event id as request id and its trace context.
 */
export interface ConsumerContext extends OperationContext {
  subject: string;
  deliveryCount: number;
  /**
   * The event's organisation as the service's replica holds it (null: not replicated yet), for a
   * consumer that asks for it (`withOrganisation`); undefined otherwise.
   */
  organisation?: OrganisationReplica | null;
}

export interface ConsumerDefinition {
  /** Durable name, unique per service and subject, e.g. `accounting-sales-invoice-posted`. */
  name: string;
  /** Catalogue subject without prefix. */
  subject: string;
  /**
   * Runs inside one database transaction with the event id already claimed in the inbox;
   * the entity manager is scoped to the event's organisation when it carries one.
   */
  handle: (ctx: ConsumerContext, event: CloudEvent) => Promise<void>;
  /**
   * Messages handled at once (default 1: in stream order). Messages with the same ordering key
   * are still handled one after another in stream order, so raise it only when events of
   * different keys do not depend on each other (each is applied in its own transaction).
   */
  concurrency?: number;
  /**
   * Which messages must keep their stream order when `concurrency` > 1. Default: the
   * organisation and the CloudEvents `subject` (the resource id), so versions of one document
   * are applied in the order they were published.
   */
  orderingKey?: (event: CloudEvent) => string;
  /** Called after an event's transaction committed (e.g. to wake a worker that sends what it queued). */
  onCommitted?: () => void;
  /**
   * Messages handled at once (`concurrency`) share one transaction of their organisation, each in
   * its own savepoint, and one commit (`CommitGroups`): a batch costs one WAL flush instead of one
   * per event. A failing message rolls back alone and is redelivered. Only for handlers that do
   * quick database work (members run one after another), not for ones that wait on something slow.
   */
  sharedCommit?: boolean;
  /**
   * Whether the event concerns this consumer at all, asked before any transaction (a lookup of
   * its own, e.g. a `batchedLookup` shared by the events arriving together). False acknowledges
   * the event without claiming it in the inbox, so only for handlers whose writes are idempotent
   * by themselves (the webhook fan-out: an organisation without an endpoint for the subject has
   * nothing to deliver, and a delivery is unique per endpoint and event).
   */
  relevant?: (event: CloudEvent) => Promise<boolean>;
  /**
   * Whether any event of this organisation concerns the consumer, asked before the envelope is
   * even read: the organisation comes from the message's subject, and the ordering key from its
   * `ce-subject` header (the default key, so not with `orderingKey`). An event
   * of an organisation it passes over is acknowledged unread, with no span and no inbox claim;
   * for the same handlers as `relevant` (the webhook fan-out, which reads two large envelopes
   * per posted document, nearly all of organisations without endpoints).
   */
  relevantOrganisation?: (orgId: number) => Promise<boolean>;
  /**
   * Whether an event about this resource (the message's `ce-subject` header, which the relay sets
   * from the event's resource) concerns the consumer, asked before the envelope is read: one it
   * refuses is acknowledged unread, with no span and no inbox claim. Only for handlers that
   * would write nothing for such an event (e.g. the payment of another service's document). A
   * message without the header is read and handled.
   */
  relevantResource?: (resource: string) => boolean;
  /**
   * The handler reads the event's organisation from the service's replica (`kit_organisations`):
   * it is fetched by the statement that claims the event in the inbox (`ctx.organisation`), not
   * by a statement of its own.
   */
  withOrganisation?: boolean;
  /**
   * Applies the events of one organisation handled at once (`concurrency`) together: one
   * transaction, one inbox insert for all of them, one call of this for the handler's own writes,
   * one outbox insert and one commit (`ConsumerBatches`). It answers per item, in order: applied,
   * `single` (then `handle` applies that item in a savepoint of the same transaction), or an
   * error found before anything was written for it (that item alone fails). It must not leave
   * the transaction broken for one item's sake; if it throws, every item of the batch is applied
   * alone by `handle`, each in a transaction of its own. A batch never holds two events of one
   * ordering key, and a redelivered event is always applied alone.
   */
  handleBatch?: BatchHandler;
  /**
   * The durable exists only while the service wants its events, so a subject nobody wants costs
   * no delivery at all: `start` consumes it only if it exists, `open` makes it (taking the events
   * published from then on) and consumes it, `retire` deletes it, `follow` starts consuming one
   * another replica made. The service decides when, through the switch it passes here (the
   * webhook fan-out: while an enabled endpoint selects the subject).
   */
  onDemand?: ConsumerSwitch;
}

/**
 * A service's handle on an on-demand consumer (`ConsumerDefinition.onDemand`): the kit attaches
 * the running consumer when it starts, and the service opens, retires or follows it through this.
 */
export class ConsumerSwitch {
  private consumer: IdempotentConsumer | null = null;

  /** Called by the kit with the consumer built from the definition. */
  attach(consumer: IdempotentConsumer): void {
    this.consumer = consumer;
  }

  /** Whether the consumer runs yet (its service's consumers start after its routes are defined). */
  get attached(): boolean {
    return this.consumer !== null;
  }

  private get running(): IdempotentConsumer {
    if (!this.consumer) throw new Error('the on-demand consumer has not started');
    return this.consumer;
  }

  open(since?: Date): Promise<void> {
    return this.running.open(since);
  }

  retire(): Promise<void> {
    return this.running.retire();
  }

  follow(): Promise<void> {
    return this.running.follow();
  }

  exists(): Promise<boolean> {
    return this.running.exists();
  }

  get consuming(): boolean {
    return this.consumer?.consuming ?? false;
  }
}

type Parsed = { event: CloudEvent; error?: undefined } | { event?: undefined; error: unknown };

const CLAIM = 'insert into kit_inbox (consumer, event_id, subject) values (?, ?, ?) on conflict do nothing returning event_id';
/** The claim, answering beside it the organisation's replica row (all columns null when there is none). */
const CLAIM_WITH_ORGANISATION = besideReplica(CLAIM, 'exists (select 1 from done) as claimed');

/** The default ordering key: one resource of one organisation. Read from the envelope, or unread from the message (`unreadKey`). */
const resourceKey = (orgId: string | number, resource: string): string => `${orgId}|${resource}`;
const defaultOrderingKey = (event: CloudEvent): string => resourceKey(event.orgid ?? '', event.subject ?? event.id);

export interface ConsumerRuntimeOptions {
  service: string;
  maxDeliver: number;
  /** Redelivery delays after a failure, in ms, by attempt (the last repeats). */
  backoffMs?: number[];
  onCommitted?: () => void;
  /** Called once an event went to the dead-letter subject. */
  onDeadLettered?: () => void;
}

/**
 * The envelope, with its organisation taken from the subject: the subject is what the server's
 * permissions let a publisher use, so an envelope naming another organisation than its subject
 * is refused (a forged or misrouted event), and one naming none gets the subject's.
 */
function parseMessage(m: JsMsg, bus: EventBus): Parsed {
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
function unreadKey(m: JsMsg, bus: EventBus): { orgId: number; key: string } | null {
  const routed = splitTenantSubject(bus.unprefixed(m.subject));
  const resource = m.headers?.get(RESOURCE_HEADER);
  if (!routed || !resource) return null;
  return { orgId: routed.orgId, key: resourceKey(routed.orgId, resource) };
}

/**
 * A durable pull consumer with explicit acks. Each message is handled in one transaction that
 * first records the event id in `kit_inbox`; a redelivered message finds its id there and is only
 * acknowledged. The ack is sent after the commit, so a crash in between redelivers and the inbox
 * absorbs it. Failures are retried with backoff up to `maxDeliver`, then dead-lettered to
 * `dlq.<service>.<subject>` with the reason in a header.
 */
/**
 * The server redelivers without bound: the consumer itself dead-letters an event after
 * `CONSUMER_MAX_DELIVER` deliveries (decision 145). A bound at the server could only drop an event
 * silently — neither applied nor in the DLQ — when a dead letter's publish failed once more, or
 * when copies waiting in the client's buffer through a database outage were redelivered past it.
 */
const SERVER_MAX_DELIVER = -1;

export class IdempotentConsumer {
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  /** When the database stopped answering this consumer, while it does not (logged once an outage). */
  private databaseLostAt: number | null = null;
  private processed: ReturnType<MetricsRegistry['counter']>;
  private age: ReturnType<MetricsRegistry['histogram']>;
  private pending = 0;
  private readonly batches: ConsumerBatches | null;

  constructor(
    private readonly def: ConsumerDefinition,
    private readonly orm: MikroORM,
    private readonly bus: EventBus,
    private readonly log: Logger,
    /** The service: the source of the events its handlers record. */
    private readonly source: string,
    private readonly opts: ConsumerRuntimeOptions,
    metrics: MetricsRegistry,
    private readonly groups?: CommitGroups,
  ) {
    def.onDemand?.attach(this);
    this.processed = metrics.counter('consumer_messages_total', 'Consumed messages by consumer and outcome');
    this.age = metrics.histogram('consumer_event_age_seconds', 'Seconds from an event being stored in its stream to its handling (for the ledger: document posted → ledger entry)', [
      0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
    ]);
    metrics.gauge('consumer_pending_messages', 'Messages of the stream not yet delivered to the consumer, at its last message').set({ consumer: def.name }, () => this.pending);
    this.batches = def.handleBatch
      ? new ConsumerBatches(orm, {
          consumer: def.name,
          subject: def.subject,
          source,
          withOrganisation: def.withOrganisation ?? false,
          handleBatch: def.handleBatch,
          handleClaimed: (em, orgId, p, organisation, emitAtCommit) => this.handle(em, orgId, p.event, p.deliveryCount, p.traceparent, organisation, this.atCommit(emitAtCommit)),
          applyAlone: (p) => this.applyAlone(Number(p.event.orgid), p.event, p.deliveryCount, p.traceparent),
          maxItems: Math.min(32, Math.max(1, def.concurrency ?? 1)),
          log,
          metrics,
        })
      : null;
  }

  get durableName(): string {
    return this.bus.durableName(this.def.name);
  }

  async start(): Promise<void> {
    if (this.def.onDemand) {
      // its durable exists only while the service wants the events (`open`, `retire`)
      await this.follow();
      return;
    }
    const streamName = await this.durable({ policy: DeliverPolicy.All });
    this.consume(streamName);
  }

  /**
   * An on-demand consumer's durable made if missing — taking the events published from now on, or
   * from `since` — and consumed by this process. Safe to call again, and from several replicas at once.
   */
  async open(since?: Date): Promise<void> {
    const streamName = await this.durable(since ? { policy: DeliverPolicy.StartTime, since } : { policy: DeliverPolicy.New });
    if (!this.loop) this.consume(streamName);
  }

  /** The stream the subject's events are in (made by `durable`; a missing one has no durable either). */
  private get streamName(): string {
    return this.bus.streamName(streamForSubject(this.def.subject));
  }

  /** An on-demand consumer's durable deleted, with the events it still held: nothing consumes them. */
  async retire(): Promise<void> {
    await this.stop();
    await this.bus.jsm.consumers.delete(this.streamName, this.durableName).catch((err) => {
      if (!String(err).includes('not found')) throw err;
    });
  }

  /** Whether the consumer's durable exists on the server now. */
  async exists(): Promise<boolean> {
    return (await this.bus.jsm.consumers.info(this.streamName, this.durableName).catch(() => null)) !== null;
  }

  /**
   * An on-demand consumer consumed here while its durable exists (another replica may have made
   * it); a consumption whose durable was deleted ends by itself.
   */
  async follow(): Promise<void> {
    if (!this.loop && (await this.exists())) this.consume(this.streamName);
  }

  /** Whether this process consumes the durable now. */
  get consuming(): boolean {
    return this.loop !== null;
  }

  /** The stream's name, with the consumer's durable made on it if missing (`start`: where a new one starts). */
  private async durable(start: { policy: DeliverPolicy; since?: Date }): Promise<string> {
    const streamName = await this.bus.ensureStream(streamForSubject(this.def.subject));
    // every organisation's events of the subject: `<subject>.<org>`
    const filter = this.bus.subject(`${this.def.subject}.*`);
    const existing = await this.bus.jsm.consumers.info(streamName, this.durableName).catch(() => null);
    if (existing && existing.config.filter_subject !== filter) {
      // A durable from before subjects named their organisation: nothing it still could read
      // matches the new filter, and the inbox absorbs anything read twice, so start it afresh.
      this.log.info('consumer filter changed; recreating the durable consumer', { consumer: this.def.name, from: existing.config.filter_subject, to: filter });
      await this.bus.jsm.consumers.delete(streamName, this.durableName).catch(() => undefined);
    }
    if (!existing || existing.config.filter_subject !== filter) {
      await this.bus.jsm.consumers
        .add(streamName, {
          durable_name: this.durableName,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: start.policy,
          ...(start.since ? { opt_start_time: start.since.toISOString() } : {}),
          filter_subject: filter,
          ack_wait: 30_000_000_000,
          max_deliver: SERVER_MAX_DELIVER,
          max_ack_pending: 1000,
        })
        .catch(async (e) => {
          await this.bus.jsm.consumers.info(streamName, this.durableName).catch(() => {
            throw e;
          });
        });
    } else if (existing.config.max_deliver !== SERVER_MAX_DELIVER) {
      // a durable made when the server bounded deliveries too (CONSUMER_MAX_DELIVER + 1)
      await this.bus.jsm.consumers.update(streamName, this.durableName, { max_deliver: SERVER_MAX_DELIVER });
    }
    return streamName;
  }

  private consume(streamName: string): void {
    const backoff = this.opts.backoffMs ?? [200, 1000, 5000, 15000, 30000];
    this.stopped = false;
    const loop: Promise<void> = (async () => {
      while (!this.stopped) {
        try {
          const consumer = await this.bus.js.consumers.get(streamName, this.durableName);
          // an on-demand durable deleted (retired by another replica) ends the iteration
          this.messages = await consumer.consume({ max_messages: 100, ...(this.def.onDemand ? { abort_on_missing_resource: true } : {}) });
          // Stopped while subscribing: `stop` found nothing to close. Closing ends the iteration
          // below (nats.js stops an iterator through its queue, so its `close()` settles only
          // once something iterates: awaited here it never would).
          if (this.stopped) void this.messages.close().catch(() => undefined);
          const limit = Math.max(1, this.def.concurrency ?? 1);
          const keyOf = this.def.orderingKey ?? defaultOrderingKey;
          const running = new Set<Promise<void>>();
          // the last task of each ordering key: a message of the same key waits for it
          const tails = new Map<string, Promise<void>>();
          try {
            for await (const m of this.messages) {
              // left unacknowledged: redelivered to whichever consumption runs next
              if (this.stopped) break;
              if (this.def.relevantResource && this.passedOver(m)) continue;
              // unread until its organisation proves relevant (`relevantOrganisation`), else read now
              const unread = this.def.relevantOrganisation && !this.def.orderingKey ? unreadKey(m, this.bus) : null;
              const parsed = unread === null ? parseMessage(m, this.bus) : null;
              const key = unread?.key ?? (parsed?.event ? keyOf(parsed.event) : null);
              const prev = key === null ? undefined : tails.get(key);
              const run = () => (unread === null ? this.handleMessage(m, parsed!, backoff) : this.handleUnread(m, unread.orgId, backoff));
              const task: Promise<void> = (prev ? prev.then(run, run) : run()).finally(() => {
                running.delete(task);
                if (key !== null && tails.get(key) === task) tails.delete(key);
              });
              if (key !== null) tails.set(key, task);
              running.add(task);
              if (running.size >= limit) await Promise.race(running);
              if (this.stopped) break;
            }
          } finally {
            await Promise.allSettled([...running]);
          }
        } catch (err) {
          if (this.stopped) break;
          if (this.def.onDemand && !(await this.exists().catch(() => true))) {
            this.log.info('on-demand consumer retired; no longer consuming', { consumer: this.def.name });
            break;
          }
          this.log.warn('consumer loop interrupted; resubscribing', { consumer: this.def.name, err: String(err) });
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })().finally(() => {
      if (this.loop === loop) this.loop = null;
    });
    this.loop = loop;
  }

  /** Whether `relevantResource` refused the message's resource; if so it is acknowledged unread. */
  private passedOver(m: JsMsg): boolean {
    const resource = m.headers?.get(RESOURCE_HEADER);
    if (!resource) return false;
    let relevant: boolean;
    try {
      relevant = this.def.relevantResource!(resource);
    } catch {
      return false; // a predicate that cannot decide leaves the event to the handler
    }
    if (relevant) return false;
    this.processed.inc({ consumer: this.def.name, outcome: 'irrelevant' });
    m.ack();
    return true;
  }

  /** A message whose organisation is asked about first: passed over unread, or read and handled. */
  private async handleUnread(m: JsMsg, orgId: number, backoff: number[]): Promise<void> {
    let relevant: boolean;
    try {
      relevant = await this.untilDatabaseAnswers(m, () => this.def.relevantOrganisation!(orgId));
    } catch (err) {
      await this.failed(m, err, null, backoff);
      return;
    }
    if (!relevant) {
      this.processed.inc({ consumer: this.def.name, outcome: 'irrelevant' });
      m.ack();
      return;
    }
    await this.handleMessage(m, parseMessage(m, this.bus), backoff, true);
  }

  /** `organisationChecked`: `relevantOrganisation` already said yes for this message. */
  private async handleMessage(m: JsMsg, parsed: Parsed, backoff: number[], organisationChecked = false): Promise<void> {
    if (!parsed.event) {
      await this.deadLetter(m, `unusable envelope: ${String(parsed.error)}`);
      return;
    }
    const event = parsed.event;
    this.pending = m.info.pending;
    // the relay's publish span when the message carries it, else the producer's operation
    const parent = m.headers?.get('traceparent') || event.traceparent;
    const span = startSpan(`consume ${this.def.subject}`, SpanKind.CONSUMER, parent, {
      'messaging.system': 'nats',
      'messaging.consumer.group.name': this.def.name,
      'messaging.message.id': event.id,
      'messaging.message.delivery_count': m.info.deliveryCount,
    });
    try {
      let outcome: 'applied' | 'duplicate' | 'irrelevant';
      try {
        outcome = await withStatementsUnder(span, () => this.untilDatabaseAnswers(m, () => this.apply(event, m, traceparentOf(span), organisationChecked)));
        endSpan(span);
      } catch (err) {
        endSpan(span, err);
        throw err;
      }
      const applied = outcome === 'applied';
      if (applied) this.age.observe({ consumer: this.def.name }, Math.max(0, Date.now() - m.info.timestampNanos / 1e6) / 1000);
      this.processed.inc({ consumer: this.def.name, outcome });
      if (applied) {
        this.opts.onCommitted?.();
        this.def.onCommitted?.();
      }
      // A plain ack, not one the server confirms: were it lost (a crash before it left), the
      // redelivery finds the event in the inbox, so a confirmation would buy nothing but a second
      // message per event.
      m.ack();
    } catch (err) {
      await this.failed(m, err, event.id, backoff);
    }
  }

  /**
   * Runs an attempt at a message; while the database cannot be reached or cannot take writes (a
   * restart, a failover, a full disk) it waits and tries again in place, keeping the message
   * (`working`) instead of handing it back: an outage is not the event's fault, and each
   * redelivery would use up one of its deliveries until it was dead-lettered. What the attempt
   * wrote before the loss was rolled back with the session (the inbox absorbs a commit whose
   * answer was lost).
   */
  private async untilDatabaseAnswers<T>(m: JsMsg, attempt: () => Promise<T>): Promise<T> {
    for (let pause = 200; ; pause = Math.min(pause * 2, 5000)) {
      try {
        const result = await attempt();
        if (this.databaseLostAt !== null) {
          this.log.info('the database answers again; consuming goes on', { consumer: this.def.name, waited_ms: Date.now() - this.databaseLostAt });
          this.databaseLostAt = null;
        }
        return result;
      } catch (err) {
        // (a shared commit whose connection went may have committed: the inbox tells, next attempt)
        if (this.stopped || !(connectionLoss(err) || databaseRefusesNow(err) || err instanceof CommitOutcomeUnknownError)) throw err;
        if (this.databaseLostAt === null) {
          this.databaseLostAt = Date.now();
          this.log.warn('the database cannot be reached or take writes; events wait in place until it can', { consumer: this.def.name, err: String(err) });
        }
        m.working();
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /** A failed attempt: dead-lettered when it is poison or out of deliveries, else redelivered after a pause. */
  private async failed(m: JsMsg, err: unknown, eventId: string | null, backoff: number[]): Promise<void> {
    const poison = err instanceof PoisonMessageError;
    if (poison || m.info.deliveryCount >= this.opts.maxDeliver) {
      await this.deadLetter(m, poison ? err.message : `failed after ${m.info.deliveryCount} deliveries: ${String(err)}`);
      return;
    }
    this.processed.inc({ consumer: this.def.name, outcome: 'retry' });
    this.log.warn('event handling failed; will be redelivered', { consumer: this.def.name, event_id: eventId ?? m.headers?.get('Nats-Msg-Id') ?? null, err: String(err) });
    m.nak(backoff[Math.min(m.info.deliveryCount - 1, backoff.length - 1)]);
  }

  /** `duplicate` when the event had already been applied (a redelivery), `irrelevant` when it does not concern the consumer. */
  private async apply(event: CloudEvent, m: JsMsg, traceparent: string | null, organisationChecked: boolean): Promise<'applied' | 'duplicate' | 'irrelevant'> {
    const orgId = event.orgid && /^\d+$/.test(event.orgid) ? Number(event.orgid) : null;
    if (this.def.relevantOrganisation && !organisationChecked && orgId !== null && !(await this.def.relevantOrganisation(orgId))) return 'irrelevant';
    if (this.def.relevant && !(await this.def.relevant(event))) return 'irrelevant';
    const outcome = (applied: boolean) => (applied ? ('applied' as const) : ('duplicate' as const));
    // a redelivery (a failure before, or a crash) is applied alone, away from a batch it might break again
    if (this.batches && orgId !== null && m.info.deliveryCount === 1) return this.batches.submit(orgId, { event, deliveryCount: 1, traceparent, statementsParent: statementsParent() });
    if (this.def.sharedCommit && this.groups && orgId !== null) {
      const member = await this.groups.join(`consumer:${this.def.name}`, orgId);
      try {
        // what the handler announces is written with the rest of the group's events, at its commit
        const applied = await this.claimAndHandle(member.em, orgId, event, m.info.deliveryCount, traceparent, this.atCommit((p) => member.emitAtCommit(p)));
        await member.finish(); // resolves once the shared transaction committed
        return outcome(applied);
      } catch (err) {
        await member.abort(); // nothing when it already ended (a failed commit)
        throw err;
      }
    }
    return this.applyAlone(orgId, event, m.info.deliveryCount, traceparent);
  }

  /** A handler's `emit` that hands each event, prepared, to whoever writes it at the commit. */
  private atCommit(push: (event: PreparedEvent) => void): (ev: NewEvent<unknown>) => Promise<string> {
    return (ev) => {
      const prepared = prepareEvent(this.source, ev);
      push(prepared);
      return Promise.resolve(prepared.id);
    };
  }

  /** One event in a transaction of its own. */
  private async applyAlone(orgId: number | null, event: CloudEvent, deliveryCount: number, traceparent: string | null): Promise<'applied' | 'duplicate'> {
    const em = this.orm.em.fork({ clear: true });
    if (orgId !== null) em.setFilterParams(TENANT_FILTER, { orgId });
    const applied = await em.transactional((tem) => this.claimAndHandle(tem, orgId, event, deliveryCount, traceparent));
    return applied ? 'applied' : 'duplicate';
  }

  /** Claims the event in the inbox and runs the handler, in the caller's transaction. */
  private async claimAndHandle(
    tem: EntityManager,
    orgId: number | null,
    event: CloudEvent,
    deliveryCount: number,
    traceparent: string | null,
    emitAtCommit?: (ev: NewEvent<unknown>) => Promise<string>,
  ): Promise<boolean> {
    let organisation: OrganisationReplica | null | undefined;
    if (this.def.withOrganisation && orgId !== null) {
      const [row] = await sqlRows<ReplicaRow & { claimed: boolean; known: boolean }>(tem, CLAIM_WITH_ORGANISATION, [this.def.name, event.id, this.def.subject, orgId], {
        prepared: true,
      });
      if (!row.claimed) return false;
      organisation = row.known ? replicaOfRow(orgId, row) : null;
    } else {
      const claimed = await sqlRows(tem, CLAIM, [this.def.name, event.id, this.def.subject], { prepared: true });
      if (claimed.length === 0) return false;
    }
    await this.handle(tem, orgId, event, deliveryCount, traceparent, organisation, emitAtCommit);
    return true;
  }

  /** Runs the handler for an event claimed in the caller's transaction. */
  private async handle(
    tem: EntityManager,
    orgId: number | null,
    event: CloudEvent,
    deliveryCount: number,
    traceparent: string | null,
    organisation: OrganisationReplica | null | undefined,
    emitAtCommit?: (ev: NewEvent<unknown>) => Promise<string>,
  ): Promise<void> {
    const ctx = operationContext({
      orgId,
      actor: `event:${event.source}`,
      requestId: event.id,
      // what the handler records continues the trace under this consumer's span
      traceparent: traceparent ?? event.traceparent ?? null,
      em: tem,
      log: this.log.child({ consumer: this.def.name, event_id: event.id }),
      emit: emitAtCommit ? (_em, ev) => emitAtCommit(ev) : (em, ev) => recordEvent(em, this.source, ev),
      prepareEvent: (ev, dataJson) => prepareEvent(this.source, ev, dataJson),
      bus: this.bus,
    });
    // extended in place, not spread into a new literal: V8 kept such copies, and the batch they
    // reach, through young-generation collections (decision 129)
    await this.def.handle(Object.assign(ctx, { subject: this.def.subject, deliveryCount, organisation }), event);
  }

  private async deadLetter(m: JsMsg, reason: string): Promise<void> {
    this.log.error('event dead-lettered', { consumer: this.def.name, subject: m.subject, reason });
    this.processed.inc({ consumer: this.def.name, outcome: 'dead_lettered' });
    try {
      await this.bus.ensureStream('DLQ');
      const h = natsHeaders();
      h.set(DEAD_LETTER_HEADERS.reason, reason.slice(0, 1000));
      h.set(DEAD_LETTER_HEADERS.consumer, this.def.name);
      h.set(DEAD_LETTER_HEADERS.originalSubject, m.subject);
      await this.bus.replies.publishToStream(this.bus.subject(`dlq.${this.opts.service}.${this.bus.unprefixed(m.subject)}`), m.data, {
        headers: h,
        msgId: `dlq-${this.def.name}-${m.info.streamSequence}`,
        timeoutMs: 5000,
      });
      // a bare +TERM: nats-server 2.9 does not read `+TERM <reason>` (2.10 does) and redelivered the
      // message after every ack wait, a new letter each time; the reason travels in the letter's header
      m.term();
      this.opts.onDeadLettered?.();
    } catch (err) {
      this.log.error('dead-letter publish failed; message will be redelivered', { err: String(err) });
      m.nak(5000);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    await this.loop?.catch(() => undefined);
    this.loop = null;
  }
}
