import { AckPolicy, type DeliverPolicy } from '@nats-io/jetstream';
import { streamForSubject } from '@ledgerline/contracts';
import type { EventBus } from './bus.js';
import type { Logger } from '../logger.js';
import type { ConsumerDefinition } from './consumer-definition.js';

/* A consumer's durable on the server: made where it is missing, remade when its filter changed. */

/**
 * The server redelivers without bound: the consumer itself dead-letters an event after
 * `CONSUMER_MAX_DELIVER` deliveries (decision 145). A bound at the server could only drop an event
 * silently — neither applied nor in the DLQ — when a dead letter's publish failed once more, or
 * when copies waiting in the client's buffer through a database outage were redelivered past it.
 */
export const SERVER_MAX_DELIVER = -1;

/** The stream's wait for an acknowledgement unless `CONSUMER_ACK_WAIT_MS` says otherwise. */
export const DEFAULT_ACK_WAIT_MS = 30_000;

/** Where a new durable starts reading. */
export interface DurableStart {
  policy: DeliverPolicy;
  since?: Date;
}

/**
 * The stream's name, with the consumer's durable made on it if missing (`start`: where a new one
 * starts) and its acknowledgement wait brought to `ackWaitMs`.
 */
export async function ensureDurable(bus: EventBus, def: ConsumerDefinition, durableName: string, start: DurableStart, log: Logger, ackWaitMs = DEFAULT_ACK_WAIT_MS): Promise<string> {
  const ackWait = ackWaitMs * 1_000_000; // the server counts in nanoseconds
  const streamName = await bus.ensureStream(streamForSubject(def.subject));
  // every organisation's events of the subject: `<subject>.<org>`
  const filter = bus.subject(`${def.subject}.*`);
  const existing = await bus.jsm.consumers.info(streamName, durableName).catch(() => null);
  if (existing && existing.config.filter_subject !== filter) {
    // A durable from before subjects named their organisation: nothing it still could read
    // matches the new filter, and the inbox absorbs anything read twice, so start it afresh.
    log.info('consumer filter changed; recreating the durable consumer', { consumer: def.name, from: existing.config.filter_subject, to: filter });
    await bus.jsm.consumers.delete(streamName, durableName).catch(() => undefined);
  }
  if (!existing || existing.config.filter_subject !== filter) {
    await bus.jsm.consumers
      .add(streamName, {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: start.policy,
        ...(start.since ? { opt_start_time: start.since.toISOString() } : {}),
        filter_subject: filter,
        ack_wait: ackWait,
        max_deliver: SERVER_MAX_DELIVER,
        max_ack_pending: 1000,
      })
      .catch(async (e) => {
        await bus.jsm.consumers.info(streamName, durableName).catch(() => {
          throw e;
        });
      });
  } else if (existing.config.max_deliver !== SERVER_MAX_DELIVER || existing.config.ack_wait !== ackWait) {
    // a durable made when the server bounded deliveries too (CONSUMER_MAX_DELIVER + 1), or
    // under another CONSUMER_ACK_WAIT_MS
    await bus.jsm.consumers.update(streamName, durableName, { max_deliver: SERVER_MAX_DELIVER, ack_wait: ackWait });
  }
  return streamName;
}
