import type { TenantScope } from '@ledgerline/service-kit';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { createLogger, organisationReplica, sqlRows, tenantEm, type BatchItem, type BatchItemResult, type EventBus, type Logger, type OrganisationReplica } from '@ledgerline/service-kit';
import type { CloudEvent } from '@ledgerline/contracts';
import { applyLedgerEvent, replayLedgerBatch, type ApplyOptions } from './ledger-events.js';
import { readOrganisationEvents } from './organisation-streams.js';
import { stageGeneration, type GenerationSource, type StagedGeneration } from './stage-generation.js';
import { ensureChart } from '../domain/ledger-store.js';
import type { SourceType } from '../domain/posting-map.js';

export interface RebuildResult {
  orgId: number;
  /** Posted-document events of the organisation that were replayed. */
  events: number;
  /** Accounting transactions in the rebuilt ledger. */
  transactions: number;
  /** Seconds spent deleting the old ledger before the replay (with a generation: comparing it with the staged one and deleting what differs). */
  clearSeconds: number;
  /** Seconds spent reading the streams and staging the generation, before the ledger's transaction (0 in order). */
  stageSeconds: number;
  /** Threads that drafted some of the generation's postings (0: the rebuild's own thread drafted them all). */
  draftThreads: number;
  /**
   * Postings staged by the generation (0 in order); the rest of the events took the ledger's own
   * path after the move: credits, journal entries, later versions, and the postings of a batch the
   * database refused to stage.
   */
  staged: number;
  /**
   * Staged postings the old ledger already held exactly as staged, left in place with their ids and
   * stored views (decision 264; 0 in order); the rest of the staged postings were moved in.
   */
  kept: number;
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
  // the stored views by their transactions too; the rebuilt entries have none (decision 260)
  await sqlRows(tem, 'delete from ledger_entry_views v using accounting_transactions t where t.org_id = ? and v.transaction_id = t.id', [orgId]);
  await sqlRows(tem, 'delete from ledger_rows where org_id = ?', [orgId]);
  await sqlRows(tem, 'delete from accounting_transactions where org_id = ?', [orgId]);
  await sqlRows(tem, `select set_config('ledger.rebuild', 'off', true)`);
}

/** Events of one source type drafted and stored together (one `ledger_replay_entries` call). */
const REPLAY_BATCH = 500;

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

/** Replays every event of the organisation in order into `replay`'s transaction (the rebuild's way before generations, and its way still when one cannot be used). Answers how many. */
async function replayInOrder(bus: EventBus, replay: Replay): Promise<number> {
  const inOrder = new InOrderReplay(replay);
  const { events } = await readOrganisationEvents(bus, replay.orgId, null, (type, event) => inOrder.push(type, event));
  await inOrder.flush();
  return events;
}

/** What building the ledger did: the events replayed, the staged postings kept as they were, and the seconds the old ledger's deletion took. */
interface Built {
  events: number;
  kept: number;
  clearSeconds: number;
}

/**
 * Builds the organisation's ledger into `tem` from a staged generation: the old postings equal to
 * staged ones kept, the rest deleted and the other staged ones moved in (`switchInto`), then its
 * tail and what reached the streams since they were read, in order, through the ledger's own path.
 */
async function applyGeneration(replay: Replay, bus: EventBus, staged: StagedGeneration): Promise<Built> {
  await ensureChart({ em: replay.tem, orgId: replay.orgId });
  const { kept, clearSeconds } = await staged.generation.switchInto(replay.tem);
  const inOrder = new InOrderReplay(replay);
  for await (const e of staged.generation.tail(replay.tem)) await inOrder.push(e.type, e.event as CloudEvent);
  const since = await readOrganisationEvents(bus, replay.orgId, staged.positions, (type, event) => inOrder.push(type, event));
  await inOrder.flush();
  return { events: staged.events + since.events, kept, clearSeconds };
}

/** The old ledger deleted and every event replayed in order into `replay`'s transaction. */
async function rebuildInOrder(replay: Replay, bus: EventBus): Promise<Built> {
  const started = performance.now();
  await clearLedger(replay.tem, replay.orgId);
  const clearSeconds = (performance.now() - started) / 1000;
  return { events: await replayInOrder(bus, replay), kept: 0, clearSeconds };
}

/** The organisation's ledger rebuilt into `replay`'s transaction: from the generation, or in order without one. */
function buildLedger(replay: Replay, bus: EventBus, staged: StagedGeneration | null): Promise<Built> {
  return staged ? applyGeneration(replay, bus, staged) : rebuildInOrder(replay, bus);
}

/**
 * The generation a rebuild uses, or null when its credits rule it out (the rebuild replays in
 * order then, and says so).
 */
async function usableGeneration(source: GenerationSource, skipped: (eventId: string, err: unknown) => void): Promise<StagedGeneration | null> {
  const { orgId, log } = source;
  // told once the generation is used: a replay in order tells them itself
  const notDrafted: Array<[string, unknown]> = [];
  const staged = await stageGeneration(source, (eventId, reason) => notDrafted.push([eventId, reason]));
  // the staged side of the switch's comparison, digested meanwhile on a connection of its own
  staged.generation.digestStaged();
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
  let built: Built = { events: 0, kept: 0, clearSeconds: 0 };
  const staged = how.method === 'in_order' ? null : await usableGeneration({ orm, bus, orgId, opts, threads: how.draftThreads, log: logger }, skipped);
  try {
    if (staged) await how.onStaged?.();
    await em.transactional(async (tem) => {
      built = await buildLedger({ tem, orgId, organisation: await organisationReplica({ em: tem, orgId }), opts, log: logger, skipped }, bus, staged);
    });
  } finally {
    await staged?.generation.close();
  }
  const [{ count }] = (await em
    .getConnection()
    .execute('select count(*)::int as count from accounting_transactions where org_id = ?', [orgId], 'all')) as Array<{ count: number }>;
  return {
    orgId,
    events: built.events,
    transactions: count,
    clearSeconds: built.clearSeconds,
    stageSeconds: staged?.seconds ?? 0,
    draftThreads: staged?.threads ?? 0,
    staged: staged?.generation.stagedPostings ?? 0,
    kept: built.kept,
    method: staged ? 'generation' : 'in_order',
  };
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
  const staged = how.method === 'in_order' ? null : await usableGeneration({ orm, bus, orgId, opts, threads: how.draftThreads, log }, skipped);
  try {
    await em.transactional(async (tem) => {
      const before = await entriesOf({ em: tem, orgId: orgId });
      const { events } = await buildLedger({ tem, orgId, organisation: await organisationReplica({ em: tem, orgId }), opts, log, skipped }, bus, staged);
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
