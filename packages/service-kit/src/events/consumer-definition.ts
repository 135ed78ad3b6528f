import type { CloudEvent } from '@ledgerline/contracts';
import type { OperationContext } from '../context.js';
import type { OrganisationReplica } from '../organisations/replica-row.js';
import type { BatchHandler } from './consumer-batches.js';

/* What a service declares of a consumer, and what its handler is given (the runtime is consumer.ts). */

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
/** What the switch drives of the running consumer (IdempotentConsumer, which attaches itself). */
export interface OnDemandConsumer {
  open(since?: Date): Promise<void>;
  retire(): Promise<void>;
  follow(): Promise<void>;
  exists(): Promise<boolean>;
  readonly consuming: boolean;
}

export class ConsumerSwitch {
  private consumer: OnDemandConsumer | null = null;

  /** Called by the kit with the consumer built from the definition. */
  attach(consumer: OnDemandConsumer): void {
    this.consumer = consumer;
  }

  /** Whether the consumer runs yet (its service's consumers start after its routes are defined). */
  get attached(): boolean {
    return this.consumer !== null;
  }

  private get running(): OnDemandConsumer {
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

export interface ConsumerRuntimeOptions {
  service: string;
  maxDeliver: number;
  /** `CONSUMER_ACK_WAIT_MS`: how long a delivered event waits for its acknowledgement before it is delivered again (30 s unless set). */
  ackWaitMs?: number;
  /** Redelivery delays after a failure, in ms, by attempt (the last repeats). */
  backoffMs?: number[];
  onCommitted?: () => void;
  /** Called once an event went to the dead-letter subject. */
  onDeadLettered?: () => void;
}
