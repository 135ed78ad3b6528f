import type { MikroORM } from '@mikro-orm/postgresql';
import { organisationReplica, type EventBus, type Logger } from '@ledgerline/service-kit';
import { creditedDocumentOf, readsOtherPostings, type ApplyOptions } from './ledger-events.js';
import { draftMessages, organisationEvent, type DraftResult, type DraftSetting, type RawMessage } from './generation-drafts.js';
import { DraftThreads } from './draft-threads.js';
import { readOrganisationMessages, type StreamPositions } from './organisation-streams.js';
import { LedgerGeneration, type TailEvent } from '../domain/ledger-generation.js';
import { ledgerShapes } from '../domain/ledger-store.js';

/*
 * Staging a ledger generation from the streams (decision 245), apart from the transaction that
 * switches the ledger to it (`rebuild.ts`).
 */

/** Postings drafted, and staged, a batch at a time (one staging transaction). */
const STAGE_BATCH = 500;

/** Connections staging a generation at once: drafting goes on while they store. */
const STAGING_CONNECTIONS = 2;

/** What a generation is staged from (the organisation's streams) and with. */
export interface GenerationSource {
  orm: MikroORM;
  bus: EventBus;
  orgId: number;
  opts: ApplyOptions;
  /** Drafting threads (none unless given). */
  threads?: number;
  log: Logger;
}

/** A generation staged from the streams, with where the read ended. */
export interface StagedGeneration {
  generation: LedgerGeneration;
  events: number;
  /** Threads that drafted some of it. */
  threads: number;
  positions: StreamPositions;
  /** Seconds the read and staging took. */
  seconds: number;
}

/** Drafted batches in flight: every thread busy, and the next batch waiting for each. */
const DRAFTS_IN_FLIGHT = 2;

/**
 * Stages a generation of the organisation's ledger from its streams, outside any transaction the
 * API waits for. Each message whose posting reads nothing from the ledger (not a credit, not a
 * journal entry) is drafted in batches of STAGE_BATCH — by `threads` drafting threads when given —
 * and, if it is its document's first, staged by up to
 * STAGING_CONNECTIONS connections at once; every other event is staged as it came, for the
 * ledger's own path after the move. An event that cannot be drafted is told to `skipped`, as a
 * replay in order would tell it.
 */
export async function stageGeneration(source: GenerationSource, skipped: (eventId: string, reason: string) => void): Promise<StagedGeneration> {
  const { orm, bus, orgId, opts, threads, log } = source;
  const started = performance.now();
  const generation = await LedgerGeneration.open(orm, orgId);
  let drafting: DraftThreads | null = null;
  try {
    const em = orm.em.fork();
    const setting: DraftSetting = { orgId, opts, organisation: await organisationReplica({ em, orgId }), shapes: ledgerShapes(em), columns: generation.columns };
    const threadCount = threads ?? 0;
    // documents already staged: a later event of one (a new version, a repeat) takes the ledger's own path
    const stagedKeys = new Set<string>();
    let seq = 0;
    let events = 0;
    let toDraft: RawMessage[] = [];
    const drafts: Array<{ messages: RawMessage[]; results: Promise<DraftResult[]> }> = [];
    let toStage: Array<Extract<DraftResult, { kind: 'drafted' }> & { message: RawMessage }> = [];
    let tail: TailEvent[] = [];
    const storing = new Set<Promise<void>>();
    let failure: unknown = null;

    const addTail = async (event: TailEvent) => {
      tail.push(event);
      if (tail.length >= STAGE_BATCH) {
        const batch = tail;
        tail = [];
        await generation.stageTail(batch);
      }
    };
    /** A batch staged on a connection of its own; one the database refuses takes the ledger's own path instead. */
    const stage = async (batch: typeof toStage) => {
      while (storing.size >= STAGING_CONNECTIONS) await Promise.race(storing);
      if (failure) throw failure;
      if (batch.length === 0) return;
      const join = (part: 'header' | 'rows' | 'taxes') => batch.map((d) => d[part]).join('');
      const store = generation
        .stage(join('header'), join('rows'), join('taxes'))
        .catch((err) => {
          // slower, never different: said, so a rebuild whose batches keep falling back is seen
          log.warn('rebuild: the database refused a staged batch; its postings take the ledger\'s own path after the move', { org_id: orgId, postings: batch.length, err: String(err) });
          return generation.stageTail(batch.map((d) => ({ seq: d.seq, type: d.message.type, event: organisationEvent(d.message.data, d.message.subject, orgId) })));
        })
        .catch((err) => void (failure ??= err))
        .finally(() => storing.delete(store));
      storing.add(store);
    };
    /** The oldest drafted batch, in stream order: its documents' first postings staged, the rest left to the tail. */
    const settle = async () => {
      const { messages, results } = drafts.shift()!;
      for (const [i, d] of (await results).entries()) {
        if (d.kind === 'foreign') continue;
        events++;
        if (d.kind === 'unpostable') {
          skipped(d.eventId, d.reason);
          continue;
        }
        if (stagedKeys.has(d.key)) {
          await addTail({ seq: d.seq, type: messages[i].type, event: organisationEvent(messages[i].data, messages[i].subject, orgId) });
          continue;
        }
        stagedKeys.add(d.key);
        toStage.push({ ...d, message: messages[i] });
        if (toStage.length >= STAGE_BATCH) {
          const batch = toStage;
          toStage = [];
          await stage(batch);
        }
      }
    };
    const dispatch = async () => {
      const messages = toDraft;
      toDraft = [];
      if (messages.length === 0) return;
      if (threadCount === 0) {
        drafts.push({ messages, results: Promise.resolve(draftMessages(setting, messages)) });
      } else {
        drafting ??= new DraftThreads(setting, threadCount);
        drafts.push({ messages, results: drafting.draft(messages) });
      }
      while (drafts.length > Math.max(1, threadCount) * DRAFTS_IN_FLIGHT) await settle();
    };

    const positions = await readOrganisationMessages(bus, orgId, null, async (type, subject, data) => {
      seq++;
      if (readsOtherPostings(type)) {
        const event = organisationEvent(data, subject, orgId);
        if (!event) return;
        events++;
        await addTail({ seq, type, event, credited: creditedDocumentOf(type, event) });
        return;
      }
      // the message's own bytes (a thread gets a copy of them)
      toDraft.push({ seq, type, subject, data });
      if (toDraft.length >= STAGE_BATCH) await dispatch();
    });
    await dispatch();
    while (drafts.length) await settle();
    await stage(toStage);
    await generation.stageTail(tail);
    await Promise.all(storing);
    if (failure) throw failure;
    const threadsUsed = (drafting as DraftThreads | null)?.working ?? 0;
    for (const reason of (drafting as DraftThreads | null)?.failures ?? []) log.warn('rebuild: a drafting thread stopped; its batches were drafted in the rebuild\'s own thread', { org_id: orgId, reason });
    return { generation, events, threads: threadsUsed, positions, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    await generation.close();
    throw err;
  } finally {
    await (drafting as DraftThreads | null)?.close();
  }
}

