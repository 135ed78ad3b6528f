import type { TenantScope } from '@ledgerline/service-kit';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { DeliverPolicy } from '@nats-io/jetstream';
import { createLogger, organisationReplica, sqlRows, tenantEm, type BatchItem, type BatchItemResult, type EventBus, type Logger, type OrganisationReplica } from '@ledgerline/service-kit';
import type { CloudEvent } from '@ledgerline/contracts';
import { organisationSubjects, splitTenantSubject, streamForSubject, STREAMS, tenantSubject, type StreamName } from '@ledgerline/contracts';
import { applyLedgerEvent, creditedDocumentOf, readsOtherPostings, replayLedgerBatch, LEDGER_SOURCES, type ApplyOptions } from './ledger-events.js';
import { draftMessages, organisationEvent, type DraftResult, type DraftSetting, type RawMessage } from './generation-drafts.js';
import { DraftThreads } from './draft-threads.js';
import { LedgerGeneration, type TailEvent } from '../domain/ledger-generation.js';
import { ensureChart, ledgerShapes } from '../domain/ledger-store.js';
import type { SourceType } from '../domain/posting-map.js';

export interface RebuildResult {
  orgId: number;
  /** Posted-document events of the organisation that were replayed. */
  events: number;
  /** Accounting transactions in the rebuilt ledger. */
  transactions: number;
  /** Seconds spent deleting the old ledger, before the replay. */
  clearSeconds: number;
  /** Seconds spent reading the streams and staging the generation, before the ledger's transaction (0 in order). */
  stageSeconds: number;
  /** Threads that drafted some of the generation's postings (0: the rebuild's own thread drafted them all). */
  draftThreads: number;
  /**
   * How the ledger was rebuilt: `generation` (staged apart by several connections, then moved in,
   * decision 245) or `in_order` (every event replayed in its transaction, one after another: when
   * a credit names a document that comes after it in the streams).
   */
  method: RebuildMethod;
}

export type RebuildMethod = 'generation' | 'in_order';

export interface RebuildOptions {
  log?: Logger;
  /**
   * `in_order` replays every event in the ledger's transaction, one run after another, as the
   * rebuild did before generations (slower; what a generation is checked against). Unset: a
   * generation whenever the organisation's credits allow one.
   */
  method?: RebuildMethod;
  /**
   * Called once the generation is staged, before the ledger's transaction begins: the ledger is
   * still the old one and events may still arrive (what the tests publish and read meanwhile).
   */
  onStaged?: () => Promise<void>;
  /**
   * Threads drafting the generation's postings, from its first batch; unset or 0, the rebuild's
   * own thread drafts them. On two cores they cost more than they gave (decision 245); a machine
   * with more cores may do better with them.
   */
  draftThreads?: number;
}

/** The organisation's derived ledger removed, inside a rebuild's transaction (the ledger's guard lets only a rebuild delete). */
async function clearLedger(tem: EntityManager, orgId: number): Promise<void> {
  await sqlRows(tem, `select set_config('ledger.rebuild', 'on', true)`);
  // by their transactions (index ledger_tax_rows_tx), not by a read of every organisation's tax rows
  await sqlRows(tem, 'delete from ledger_tax_rows x using accounting_transactions t where t.org_id = ? and x.transaction_id = t.id', [orgId]);
  await sqlRows(tem, 'delete from ledger_rows where org_id = ?', [orgId]);
  await sqlRows(tem, 'delete from accounting_transactions where org_id = ?', [orgId]);
  await sqlRows(tem, `select set_config('ledger.rebuild', 'off', true)`);
}

/** Events of one source type drafted and stored together (one `ledger_replay_entries` call), and staged together in a generation. */
const REPLAY_BATCH = 500;

/** Connections staging a generation at once: drafting goes on while they store. */
const STAGING_CONNECTIONS = 2;

/** A run of consecutive events of one source type, in stream order. */
interface ReplayRun {
  type: SourceType;
  events: CloudEvent[];
}

/** What the replay of one organisation posts with: its transaction, replica, options and where skipped events are told. */
interface Replay {
  tem: EntityManager;
  orgId: number;
  organisation: OrganisationReplica | null;
  opts: ApplyOptions;
  log: Logger;
  skipped: (eventId: string, err: unknown) => void;
}

/** One event through the live consumer's single path, in a savepoint of its own: one that cannot post is skipped. */
async function replayOne(r: Replay, type: SourceType, event: CloudEvent): Promise<void> {
  await r.tem
    .transactional(async (inner) => {
      await applyLedgerEvent({ em: inner, organisation: r.organisation }, type, event, r.opts);
    })
    .catch((err) => r.skipped(event.id, err));
}

/**
 * A run of events drafted as the live consumer's batch is, the postings of documents new to the
 * ledger stored set-based (decision 214), in a savepoint. What the batch leaves to the single
 * path (a newer version of a posted document, an event that cannot post) follows it one by one,
 * in stream order; a batch the database refuses as a whole is replayed one by one, so only its
 * bad event is skipped.
 * Journal entries (a reversing one marks what it reverses) always take the single path.
 */
async function replayRun(r: Replay, run: ReplayRun): Promise<void> {
  if (run.type === 'journal_entry') {
    for (const event of run.events) await replayOne(r, run.type, event);
    return;
  }
  const items: BatchItem[] = run.events.map((event) => ({ event, deliveryCount: Number.MAX_SAFE_INTEGER, emit: () => '' }));
  const results: BatchItemResult[] | null = await r.tem
    .transactional((inner) => replayLedgerBatch({ em: inner, orgId: r.orgId, organisation: r.organisation, log: r.log }, run.type, items, r.opts))
    .catch(() => null);
  for (const [i, event] of run.events.entries()) if (results?.[i] !== 'applied') await replayOne(r, run.type, event);
}

/** Events replayed in order into a transaction, consecutive ones of a type in runs of up to REPLAY_BATCH (`replayRun`). */
class InOrderReplay {
  private run: ReplayRun | null = null;
  constructor(private readonly replay: Replay) {}

  async push(type: SourceType, event: CloudEvent): Promise<void> {
    if (this.run && (this.run.type !== type || this.run.events.length >= REPLAY_BATCH)) await this.flush();
    this.run ??= { type, events: [] };
    this.run.events.push(event);
  }

  async flush(): Promise<void> {
    const run = this.run;
    this.run = null;
    if (run) await replayRun(this.replay, run);
  }
}

/** The last sequence read of each stream: where a later read of the organisation's events starts. */
type StreamPositions = Map<StreamName, number>;

/**
 * Reads every message of the organisation's posted-document subjects from the SALES, PURCHASE and
 * FINANCE streams, and of its journal entries from ACCOUNTING (one ordered, ephemeral consumer per
 * stream, in stream order), from the start or from after `from`, and hands each to `onMessage` in
 * order with its source type and subject (`organisationEvent` reads it). Answers where each
 * stream's read ended.
 */
async function readOrganisationMessages(
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
    const messages = await consumer.consume({ max_messages: REPLAY_BATCH * 2 });
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
async function readOrganisationEvents(
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

/** Replays every event of the organisation in order into `replay`'s transaction (the rebuild's way before generations, and its way still when one cannot be used). Answers how many. */
async function replayInOrder(bus: EventBus, replay: Replay): Promise<number> {
  const inOrder = new InOrderReplay(replay);
  const { events } = await readOrganisationEvents(bus, replay.orgId, null, (type, event) => inOrder.push(type, event));
  await inOrder.flush();
  return events;
}

/** A generation staged from the streams, with where the read ended. */
interface StagedGeneration {
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
 * journal entry) is drafted in batches of REPLAY_BATCH — by `threads` drafting threads when given —
 * and, if it is its document's first, staged by up to
 * STAGING_CONNECTIONS connections at once; every other event is staged as it came, for the
 * ledger's own path after the move. An event that cannot be drafted is told to `skipped`, as a
 * replay in order would tell it.
 */
async function stageGeneration(
  orm: MikroORM,
  bus: EventBus,
  orgId: number,
  opts: ApplyOptions,
  threads: number | undefined,
  log: Logger,
  skipped: (eventId: string, reason: string) => void,
): Promise<StagedGeneration> {
  const started = performance.now();
  const generation = await LedgerGeneration.open(orm, orgId);
  let drafting: DraftThreads | null = null;
  try {
    const em = orm.em.fork();
    const setting: DraftSetting = { orgId, opts, organisation: await organisationReplica({ em, orgId }), shapes: ledgerShapes(em) };
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
      if (tail.length >= REPLAY_BATCH) {
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
      const join = (part: 'rows' | 'taxes') => `[${batch.map((d) => d[part]).filter((t) => t !== '').join(',')}]`;
      const store = generation
        .stage(`[${batch.map((d) => d.header).join(',')}]`, join('rows'), join('taxes'))
        .catch(() => generation.stageTail(batch.map((d) => ({ seq: d.seq, type: d.message.type, event: organisationEvent(d.message.data, d.message.subject, orgId) }))))
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
        if (toStage.length >= REPLAY_BATCH) {
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
      if (toDraft.length >= REPLAY_BATCH) await dispatch();
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

/**
 * Builds the organisation's ledger into `tem`, which has deleted the old one: a staged generation
 * moved in, then its tail and what reached the streams since they were read, in order, through
 * the ledger's own path.
 */
async function applyGeneration(replay: Replay, bus: EventBus, staged: StagedGeneration): Promise<number> {
  await ensureChart({ em: replay.tem, orgId: replay.orgId });
  await staged.generation.moveInto(replay.tem);
  const inOrder = new InOrderReplay(replay);
  for await (const e of staged.generation.tail(replay.tem)) await inOrder.push(e.type, e.event as CloudEvent);
  const since = await readOrganisationEvents(bus, replay.orgId, staged.positions, (type, event) => inOrder.push(type, event));
  await inOrder.flush();
  return staged.events + since.events;
}

/**
 * The generation a rebuild uses, or null when its credits rule it out (the rebuild replays in
 * order then, and says so).
 */
async function usableGeneration(
  orm: MikroORM,
  bus: EventBus,
  orgId: number,
  opts: ApplyOptions,
  threads: number | undefined,
  log: Logger,
  skipped: (eventId: string, err: unknown) => void,
): Promise<StagedGeneration | null> {
  // told once the generation is used: a replay in order tells them itself
  const notDrafted: Array<[string, unknown]> = [];
  const staged = await stageGeneration(orm, bus, orgId, opts, threads, log, (eventId, reason) => notDrafted.push([eventId, reason]));
  const later = await staged.generation.creditsOfLaterDocuments();
  if (later > 0) {
    log.info('rebuild: replaying in order, a credit names a document later in the streams', { org_id: orgId, credits: later });
    await staged.generation.close();
    return null;
  }
  const bad = await staged.generation.unbalanced();
  if (bad) {
    await staged.generation.close();
    throw new Error(`ledger rebuild: a staged posting does not balance (debit ${bad.debit}, credit ${bad.credit}); the ledger is unchanged`);
  }
  for (const [eventId, err] of notDrafted) skipped(eventId, err);
  return staged;
}

/**
 * Rebuilds an organisation's ledger from the streams. A generation is staged apart while the
 * ledger the API reads stays as it was (`stageGeneration`); then one database transaction deletes
 * the organisation's derived ledger (transactions, rows, tax rows), moves the generation in and
 * replays what it left in order (`applyGeneration`). Either the whole rebuilt ledger commits or
 * the old one stays. Nothing is emitted: integrations already saw these transactions.
 */
export async function rebuildLedger(orm: MikroORM, bus: EventBus, orgId: number, opts: ApplyOptions, how: RebuildOptions = {}): Promise<RebuildResult> {
  const em = tenantEm(orm, orgId);
  const logger = how.log ?? createLogger('accounting-rebuild', 'error');
  const skipped = (eventId: string, err: unknown) => logger.warn('rebuild: event skipped', { event_id: eventId, err: String(err) });
  let events = 0;
  let clearSeconds = 0;
  const staged = how.method === 'in_order' ? null : await usableGeneration(orm, bus, orgId, opts, how.draftThreads, logger, skipped);
  try {
    if (staged) await how.onStaged?.();
    await em.transactional(async (tem) => {
      const started = performance.now();
      await clearLedger(tem, orgId);
      clearSeconds = (performance.now() - started) / 1000;
      const replay: Replay = { tem, orgId, organisation: await organisationReplica({ em: tem, orgId }), opts, log: logger, skipped };
      events = staged ? await applyGeneration(replay, bus, staged) : await replayInOrder(bus, replay);
    });
  } finally {
    await staged?.generation.close();
  }
  const [{ count }] = (await em
    .getConnection()
    .execute('select count(*)::int as count from accounting_transactions where org_id = ?', [orgId], 'all')) as Array<{ count: number }>;
  return { orgId, events, transactions: count, clearSeconds, stageSeconds: staged?.seconds ?? 0, draftThreads: staged?.threads ?? 0, method: staged ? 'generation' : 'in_order' };
}

/** One accounting transaction as a check compares it: everything it says but its row ids and clock times. */
const ENTRIES = `select t.source_type || ' ' || t.source_id || ' v' || t.source_version || ' ' || t.entry_kind as key,
    (to_jsonb(t) - 'id' - 'org_id' - 'created_at' - 'edited_at' - 'reverses_id')
      || jsonb_build_object(
        'rows', coalesce((select jsonb_agg(to_jsonb(r) - 'id' - 'org_id' - 'transaction_id' order by r.ord) from ledger_rows r where r.transaction_id = t.id), '[]'),
        'tax_rows', coalesce((select jsonb_agg(to_jsonb(x) - 'id' - 'org_id' - 'transaction_id' - 'row_id' order by x.ord) from ledger_tax_rows x where x.transaction_id = t.id), '[]')
      ) as entry
  from accounting_transactions t where t.org_id = ?`;

async function entriesOf(scope: TenantScope, keys?: string[]): Promise<Map<string, Record<string, unknown>>> {
  const { em, orgId } = scope;
  const rows = keys
    ? await sqlRows<{ key: string; entry: Record<string, unknown> }>(em, `select * from (${ENTRIES}) e where e.key = any(?::text[])`, [orgId, keys])
    : await sqlRows<{ key: string; entry: Record<string, unknown> }>(em, ENTRIES, [orgId]);
  return new Map(rows.map((r) => [r.key, r.entry]));
}

export interface LedgerCheck {
  orgId: number;
  /** Posted-document events of the organisation in the streams. */
  events: number;
  /** Accounting transactions in the ledger now, and in the one a rebuild would make. */
  transactions: number;
  rebuilt: number;
  /** Entries (`<source type> <id> v<version> <kind>`) a rebuild would add: postings the ledger lacks. */
  missing: string[];
  /** Entries a rebuild would remove: postings of no event in the streams. */
  extra: string[];
  /** Entries a rebuild would change, with the fields that differ. */
  changed: Array<{ key: string; fields: string[] }>;
  /** Events no rebuild can post (dead-lettered live too), with why. */
  unpostable: Array<{ eventId: string; reason: string }>;
  /** How the rebuild that was checked made its ledger. */
  method: RebuildMethod;
}

/** Top-level fields of two entries that differ (`rows` and `tax_rows` as a whole). */
function differingFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

class CheckRolledBack extends Error {
  constructor(readonly check: LedgerCheck) {
    super('ledger check: rolled back');
  }
}

/**
 * What a rebuild would change, without changing anything: the rebuild runs in a transaction
 * that is rolled back, and the ledger before it is compared with the one it made, entry by entry
 * (source, version and kind; all an entry says but row ids and clock times). A posting whose
 * event is still on its way through the live consumer shows as missing until it lands; those that
 * landed while the check ran are taken out before answering.
 */
export async function checkLedger(orm: MikroORM, bus: EventBus, orgId: number, opts: ApplyOptions, how: Pick<RebuildOptions, 'method' | 'draftThreads'> = {}): Promise<LedgerCheck> {
  const em = tenantEm(orm, orgId);
  let check: LedgerCheck | null = null;
  const log = createLogger('accounting-check', 'error');
  const unpostable: LedgerCheck['unpostable'] = [];
  const skipped = (eventId: string, err: unknown) => unpostable.push({ eventId, reason: String(err) });
  const staged = how.method === 'in_order' ? null : await usableGeneration(orm, bus, orgId, opts, how.draftThreads, log, skipped);
  try {
    await em.transactional(async (tem) => {
      const before = await entriesOf({ em: tem, orgId: orgId });
      await clearLedger(tem, orgId);
      const replay: Replay = { tem, orgId, organisation: await organisationReplica({ em: tem, orgId }), opts, log, skipped };
      const events = staged ? await applyGeneration(replay, bus, staged) : await replayInOrder(bus, replay);
      const after = await entriesOf({ em: tem, orgId: orgId });
      const changed: LedgerCheck['changed'] = [];
      for (const [key, entry] of after) {
        const was = before.get(key);
        if (was && JSON.stringify(was) !== JSON.stringify(entry)) changed.push({ key, fields: differingFields(was, entry) });
      }
      throw new CheckRolledBack({
        orgId,
        events,
        transactions: before.size,
        rebuilt: after.size,
        missing: [...after.keys()].filter((k) => !before.has(k)).sort(),
        extra: [...before.keys()].filter((k) => !after.has(k)).sort(),
        changed: changed.sort((a, b) => a.key.localeCompare(b.key)),
        unpostable,
        method: staged ? 'generation' : 'in_order',
      });
    });
  } catch (err) {
    if (!(err instanceof CheckRolledBack)) throw err;
    check = err.check;
  } finally {
    await staged?.generation.close();
  }
  if (!check) throw new Error('ledger check: the transaction was not rolled back');
  // postings the live consumer committed while the check ran were in flight, not missing
  if (check.missing.length) {
    const landed = await entriesOf({ em: em.fork(), orgId: orgId }, check.missing);
    check.missing = check.missing.filter((k) => !landed.has(k));
  }
  return check;
}
