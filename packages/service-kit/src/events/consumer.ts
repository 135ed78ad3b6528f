import type { MikroORM } from '@mikro-orm/postgresql';
import { DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { eventType, streamForSubject, type CloudEvent } from '@ledgerline/contracts';
import type { EventBus } from './bus.js';
import type { CommitGroups } from '../db/commit-groups.js';
import { SpanKind, endSpan, startSpan, statementsParent, traceparentOf, withStatementsUnder } from '../tracing.js';
import { RESOURCE_HEADER } from './headers.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';
import { ConsumerBatches } from './consumer-batches.js';
import { DEAD_LETTER_HEADERS } from './dead-letters.js';
import { connectionLoss, databaseRefusesNow } from '../db/connection-loss.js';
import { CommitOutcomeUnknownError } from '../errors.js';
import { PoisonMessageError, type ConsumerDefinition, type ConsumerRuntimeOptions } from './consumer-definition.js';
import { defaultOrderingKey, parseMessage, unreadKey, type Parsed } from './consumer-messages.js';
import { ensureDurable } from './consumer-durable.js';
import { dispatchInOrder } from './consumer-dispatch.js';
import { InboxHandler } from './consumer-inbox.js';

export { ConsumerSwitch, PoisonMessageError, type ConsumerContext, type ConsumerDefinition, type ConsumerRuntimeOptions } from './consumer-definition.js';

/**
 * A durable pull consumer with explicit acks. Each message is handled in one transaction that
 * first records the event id in `kit_inbox`; a redelivered message finds its id there and is only
 * acknowledged. The ack is sent after the commit, so a crash in between redelivers and the inbox
 * absorbs it. Failures are retried with backoff up to `maxDeliver`, then dead-lettered to
 * `dlq.<service>.<subject>` with the reason in a header.
 *
 * This class keeps the lifecycle (start, open, retire, follow, stop, the consumption loop) and
 * what answers the server (ack, nak with backoff, dead letter); its durable on the server is
 * consumer-durable.ts, the ordered, bounded dispatch of a consumption consumer-dispatch.ts, and the
 * claim and handling in the inbox's transaction consumer-inbox.ts.
 */
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
  private readonly inbox: InboxHandler;

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
    this.inbox = new InboxHandler(def, orm, bus, log, source);
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
          handleClaimed: (em, orgId, p, organisation, emitAtCommit) => this.inbox.handle(em, orgId, p.event, p.deliveryCount, p.traceparent, organisation, this.inbox.atCommit(emitAtCommit)),
          applyAlone: (p) => this.inbox.applyAlone(Number(p.event.orgid), p.event, p.deliveryCount, p.traceparent),
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
    const streamName = await ensureDurable(this.bus, this.def, this.durableName, { policy: DeliverPolicy.All }, this.log, this.opts.ackWaitMs);
    this.consume(streamName);
  }

  /**
   * An on-demand consumer's durable made if missing — taking the events published from now on, or
   * from `since` — and consumed by this process. Safe to call again, and from several replicas at once.
   */
  async open(since?: Date): Promise<void> {
    const streamName = await ensureDurable(this.bus, this.def, this.durableName, since ? { policy: DeliverPolicy.StartTime, since } : { policy: DeliverPolicy.New }, this.log, this.opts.ackWaitMs);
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
          const keyOf = this.def.orderingKey ?? defaultOrderingKey;
          await dispatchInOrder(this.messages, Math.max(1, this.def.concurrency ?? 1), () => this.stopped, (m) => {
            if (this.def.relevantResource && this.passedOver(m)) return null;
            // unread until its organisation proves relevant (`relevantOrganisation`), else read now
            const unread = this.def.relevantOrganisation && !this.def.orderingKey ? unreadKey(m, this.bus) : null;
            const parsed = unread === null ? parseMessage(m, this.bus) : null;
            return {
              key: unread?.key ?? (parsed?.event ? keyOf(parsed.event) : null),
              run: () => (unread === null ? this.handleMessage(m, parsed!, backoff) : this.handleUnread(m, unread.orgId, backoff)),
            };
          });
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
    // another version of the subject's event, published beside this one for a deprecation
    // window (docs/integrations.md): whoever reads that version handles it, this consumer reads
    // its own
    if (event.type !== eventType(this.def.subject)) {
      this.processed.inc({ consumer: this.def.name, outcome: 'other_version' });
      m.ack();
      return;
    }
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
        const applied = await this.inbox.claimAndHandle(member.em, orgId, event, m.info.deliveryCount, traceparent, this.inbox.atCommit((p) => member.emitAtCommit(p)));
        await member.finish(); // resolves once the shared transaction committed
        return outcome(applied);
      } catch (err) {
        await member.abort(); // nothing when it already ended (a failed commit)
        throw err;
      }
    }
    return this.inbox.applyAlone(orgId, event, m.info.deliveryCount, traceparent);
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
