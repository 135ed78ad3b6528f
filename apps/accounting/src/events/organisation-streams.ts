import { DeliverPolicy } from '@nats-io/jetstream';
import type { EventBus } from '@ledgerline/service-kit';
import type { CloudEvent } from '@ledgerline/contracts';
import { organisationSubjects, splitTenantSubject, streamForSubject, STREAMS, tenantSubject, type StreamName } from '@ledgerline/contracts';
import { LEDGER_SOURCES } from './ledger-events.js';
import { organisationEvent } from './generation-drafts.js';
import type { SourceType } from '../domain/posting-map.js';

/*
 * Reading one organisation's posted-document events back from the streams, as a ledger rebuild
 * and check do.
 */

/** Messages a read takes from the server at a time. */
const READ_AHEAD = 1000;

/** The last sequence read of each stream: where a later read of the organisation's events starts. */
export type StreamPositions = Map<StreamName, number>;

/**
 * Reads every message of the organisation's posted-document subjects from the SALES, PURCHASE and
 * FINANCE streams, and of its journal entries from ACCOUNTING (one ordered, ephemeral consumer per
 * stream, in stream order), from the start or from after `from`, and hands each to `onMessage` in
 * order with its source type and subject (`organisationEvent` reads it). Answers where each
 * stream's read ended.
 */
export async function readOrganisationMessages(
  bus: EventBus,
  orgId: number,
  from: StreamPositions | null,
  onMessage: (type: SourceType, subject: string, data: Uint8Array) => Promise<void>,
): Promise<StreamPositions> {
  const typeBySubject = new Map(LEDGER_SOURCES.map((s) => [s.subject, s.type]));
  const streams = [...new Set(LEDGER_SOURCES.map((s) => streamForSubject(s.subject)))] as StreamName[];
  const positions: StreamPositions = new Map(from ?? []);
  for (const stream of streams) {
    const name = bus.streamName(stream);
    const info = await bus.jsm.streams.info(name).catch(() => null);
    if (!info || info.state.messages === 0) continue;
    const after = from?.get(stream);
    if (after !== undefined && after >= info.state.last_seq) continue;
    // only this organisation's events (its id is every subject's last token), and of a stream
    // where the ledger reads one subject among many (ACCOUNTING: journal entries beside the
    // ledger's own announcements), that subject's alone
    const read = LEDGER_SOURCES.filter((s) => streamForSubject(s.subject) === stream);
    const filter = bus.subject(read.length === 1 ? tenantSubject(read[0].subject, orgId) : organisationSubjects(STREAMS[stream].area, orgId));
    const consumer = await bus.js.consumers.get(
      name,
      after === undefined ? { filter_subjects: filter, deliver_policy: DeliverPolicy.All } : { filter_subjects: filter, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 },
    );
    if ((await consumer.info()).num_pending === 0) continue;
    const messages = await consumer.consume({ max_messages: READ_AHEAD });
    try {
      for await (const m of messages) {
        positions.set(stream, m.seq);
        const routed = splitTenantSubject(bus.unprefixed(m.subject));
        const type = routed ? typeBySubject.get(routed.subject) : undefined;
        if (type) await onMessage(type, routed!.subject, m.data);
        if (m.info.pending === 0) break;
      }
    } finally {
      await messages.close().catch(() => undefined);
    }
  }
  return positions;
}

/** The organisation's events from the streams, in order (`readOrganisationMessages`, each read as an event). Answers how many and where the read ended. */
export async function readOrganisationEvents(
  bus: EventBus,
  orgId: number,
  from: StreamPositions | null,
  onEvent: (type: SourceType, event: CloudEvent) => Promise<void>,
): Promise<{ events: number; positions: StreamPositions }> {
  let events = 0;
  const positions = await readOrganisationMessages(bus, orgId, from, async (type, subject, data) => {
    const event = organisationEvent(data, subject, orgId);
    if (!event) return;
    events++;
    await onEvent(type, event);
  });
  return { events, positions };
}

