import { headers as natsHeaders } from '@nats-io/transport-node';
import { JetStreamApiCodes, JetStreamApiError, type StoredMsg, type StreamInfo, type StreamInfoRequestOptions } from '@nats-io/jetstream';
import { splitTenantSubject } from '@ledgerline/contracts/events';
import type { EventBus } from './bus.js';
import { parseEnvelope } from './envelope.js';
import { eventHeaders } from './headers.js';
import { Pump } from './pump.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';

/**
 * A message a consumer gave up on (`IdempotentConsumer.deadLetter`), as the `DLQ` stream keeps it:
 * the event as it was delivered, the consumer, the subject it came on and why it failed.
 */
export interface DeadLetter {
  /** Its sequence in the DLQ stream: what a redrive of chosen ones names. */
  seq: number;
  /** When it was dead-lettered. */
  time: Date;
  /** The service whose consumer gave up on it. */
  service: string;
  consumer: string;
  /** The subject it was consumed from, without the deployment prefix (`sales.invoice.posted.42`). */
  subject: string;
  orgId: number | null;
  /** The event id, when the envelope could be read. */
  eventId: string | null;
  reason: string;
}

export interface DeadLetterFilter {
  service?: string;
  consumer?: string;
  orgId?: number;
  /** Only these sequences of the DLQ stream. */
  seqs?: readonly number[];
}

export interface RedriveOutcome {
  letter: DeadLetter;
  /** Published again on its subject and removed from the DLQ stream; false with `error` when it failed. */
  redriven: boolean;
  error?: string;
}

/** The headers a dead letter carries beside the message as it was delivered. */
export const DEAD_LETTER_HEADERS = { reason: 'x-dead-letter-reason', consumer: 'x-dead-letter-consumer', originalSubject: 'x-original-subject' } as const;

function letterOf(bus: EventBus, m: StoredMsg): DeadLetter | null {
  // `<prefix>dlq.<service>.<subject>.<org>`
  const dlqSubject = bus.unprefixed(m.subject);
  const [area, service] = dlqSubject.split('.', 2);
  if (area !== 'dlq' || !service) return null;
  const original = m.header?.get(DEAD_LETTER_HEADERS.originalSubject) || bus.subject(dlqSubject.slice(`dlq.${service}.`.length));
  const subject = bus.unprefixed(original);
  let eventId: string | null = null;
  try {
    eventId = parseEnvelope(m.data).id;
  } catch {
    eventId = null; // an unusable envelope is one of the reasons a message is dead-lettered
  }
  return {
    seq: m.seq,
    time: m.time,
    service,
    consumer: m.header?.get(DEAD_LETTER_HEADERS.consumer) ?? '',
    subject,
    orgId: splitTenantSubject(subject)?.orgId ?? null,
    eventId,
    reason: m.header?.get(DEAD_LETTER_HEADERS.reason) ?? '',
  };
}

function matches(letter: DeadLetter, filter: DeadLetterFilter): boolean {
  return (
    (filter.service === undefined || letter.service === filter.service) &&
    (filter.consumer === undefined || letter.consumer === filter.consumer) &&
    (filter.orgId === undefined || letter.orgId === filter.orgId) &&
    (filter.seqs === undefined || filter.seqs.includes(letter.seq))
  );
}

/**
 * The subjects of the DLQ stream `filter` can match: `dlq.<service>.<subject>.<org>`, where every
 * consumed subject has three tokens before its organisation.
 */
function dlqSubjects(bus: EventBus, filter: DeadLetterFilter): string {
  const service = filter.service ?? '*';
  return bus.subject(filter.orgId === undefined ? `dlq.${service}.>` : `dlq.${service}.*.*.*.${filter.orgId}`);
}

/**
 * The DLQ stream's state; null when there is no such stream yet (nothing was ever dead-lettered).
 * Any other failure is thrown: an unreachable server must not read as "no dead letters".
 */
async function dlqInfo(bus: EventBus, opts?: Partial<StreamInfoRequestOptions>): Promise<StreamInfo | null> {
  try {
    return await bus.jsm.streams.info(bus.streamName('DLQ'), opts);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null;
    throw err;
  }
}

/** The dead letters kept in the DLQ stream that match `filter`, oldest first, each with its stored message. */
async function stored(bus: EventBus, filter: DeadLetterFilter): Promise<Array<{ letter: DeadLetter; message: StoredMsg }>> {
  const stream = bus.streamName('DLQ');
  const info = await dlqInfo(bus);
  if (!info || info.state.messages === 0) return [];
  const out: Array<{ letter: DeadLetter; message: StoredMsg }> = [];
  const keep = (message: StoredMsg | null) => {
    if (!message) return;
    const letter = letterOf(bus, message);
    if (letter && matches(letter, filter)) out.push({ letter, message });
  };
  if (filter.seqs) {
    // a sequence removed (redriven, or past the stream's limits) is a gap, not an error
    for (const seq of [...new Set(filter.seqs)].sort((a, b) => a - b)) keep(await bus.jsm.streams.getMessage(stream, { seq }));
    return out;
  }
  // the server finds each next message of the subjects asked for, skipping the rest and the gaps
  // (`next_by_subj`, nats-server 2.9; the client's type for this call leaves it out)
  const subjects = dlqSubjects(bus, filter);
  for (let seq = info.state.first_seq; ; ) {
    const message = await bus.jsm.streams.getMessage(stream, { seq, next_by_subj: subjects } as unknown as { seq: number });
    if (!message) break;
    keep(message);
    seq = message.seq + 1;
  }
  return out;
}

export async function listDeadLetters(bus: EventBus, filter: DeadLetterFilter = {}): Promise<DeadLetter[]> {
  return (await stored(bus, filter)).map((s) => s.letter);
}

/**
 * Publishes each matching dead letter again on the subject it was consumed from, as it was
 * delivered, and removes it from the DLQ stream once the stream it goes to has stored it: for when
 * the cause is gone (a fixed consumer deployed, a missing row restored). Every consumer of the
 * subject receives it again, and those that applied it already only acknowledge it (their inbox,
 * or the ledger's and payments' own key per fact); integrations reading the subject see the event
 * id again, which at-least-once delivery allows. A consumer that still cannot apply it
 * dead-letters it anew. A redrive cut short (a crash between the publish and the removal) leaves
 * the letter to be redriven again, which the same guards absorb.
 */
export async function redriveDeadLetters(bus: EventBus, filter: DeadLetterFilter = {}): Promise<RedriveOutcome[]> {
  const stream = bus.streamName('DLQ');
  const outcomes: RedriveOutcome[] = [];
  for (const { letter, message } of await stored(bus, filter)) {
    try {
      // what the relay sends beside the envelope, so consumers route it unread again
      let h = natsHeaders();
      try {
        const envelope = parseEnvelope(message.data);
        h = eventHeaders({ traceparent: envelope.traceparent, orgId: envelope.orgid, resource: envelope.subject });
      } catch {
        // published as it came; the consumer dead-letters it again, naming why
      }
      // its own message id: the event id may still be inside the stream's duplicate window, which
      // would drop it; this one makes a repeated redrive of the same letter one message
      await bus.replies.publishToStream(bus.subject(letter.subject), message.data, { msgId: `redrive-${stream}-${letter.seq}`, headers: h, timeoutMs: 5000 });
      await bus.jsm.streams.deleteMessage(stream, letter.seq);
      outcomes.push({ letter, redriven: true });
    } catch (err) {
      outcomes.push({ letter, redriven: false, error: String(err) });
    }
  }
  return outcomes;
}

/**
 * Removes the matching dead letters from the DLQ stream without publishing them: for letters that
 * must never be applied (an event a producer sent by mistake, already corrected by hand). Answers
 * the letters removed.
 */
export async function discardDeadLetters(bus: EventBus, filter: DeadLetterFilter): Promise<DeadLetter[]> {
  const stream = bus.streamName('DLQ');
  const removed: DeadLetter[] = [];
  for (const { letter } of await stored(bus, filter)) {
    if (await bus.jsm.streams.deleteMessage(stream, letter.seq)) removed.push(letter);
  }
  return removed;
}

/** How many dead letters of `service` the DLQ stream keeps (0 without the stream). */
export async function countDeadLetters(bus: EventBus, service: string): Promise<number> {
  const info = await dlqInfo(bus, { subjects_filter: bus.subject(`dlq.${service}.>`) });
  return Object.values(info?.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
}

/**
 * The service's dead letters still kept, for `/metrics` (`dead_letters_kept`): what waits for an
 * operator, where the consumers' `dead_lettered` count only says that something was put there.
 * Looked up every `everyMs` and at once when one of the service's consumers dead-letters an
 * event (`kick`).
 */
export class DeadLetterCount extends Pump {
  private kept = 0;

  constructor(
    private readonly bus: EventBus,
    private readonly service: string,
    log: Logger,
    metrics: MetricsRegistry,
    everyMs = 30_000,
  ) {
    super({ idleMs: everyMs, what: 'dead-letter count' }, log);
    metrics
      .gauge('dead_letters_kept', "Events this service's consumers gave up on, kept in the DLQ stream until redriven or discarded (npm run dead-letters)")
      .set({}, () => this.kept);
  }

  protected async pass(): Promise<boolean> {
    this.kept = await countDeadLetters(this.bus, this.service);
    return false;
  }
}
