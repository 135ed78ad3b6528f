import type { TenantScope } from '@ledgerline/service-kit';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { DeliverPolicy } from '@nats-io/jetstream';
import { createLogger, organisationReplica, parseEnvelope, sqlRows, tenantEm, type BatchItem, type BatchItemResult, type EventBus, type Logger, type OrganisationReplica } from '@ledgerline/service-kit';
import type { CloudEvent } from '@ledgerline/contracts';
import { eventType, organisationSubjects, splitTenantSubject, streamForSubject, STREAMS, tenantSubject, type StreamName } from '@ledgerline/contracts';
import { applyLedgerEvent, replayLedgerBatch, LEDGER_SOURCES, type ApplyOptions } from './ledger-events.js';
import type { SourceType } from '../domain/posting-map.js';

export interface RebuildResult {
  orgId: number;
  /** Posted-document events of the organisation that were replayed. */
  events: number;
  /** Accounting transactions in the rebuilt ledger. */
  transactions: number;
  /** Seconds spent deleting the old ledger, before the replay. */
  clearSeconds: number;
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

/**
 * Replays every posted-document event of the organisation from the start of the SALES, PURCHASE
 * and FINANCE streams, and its journal entries from ACCOUNTING (one ordered, ephemeral consumer
 * per stream, in stream order), through the same posting code as the live consumers and the
 * journal entry requests, into `tem`: consecutive events of one source type in runs of up to
 * REPLAY_BATCH (`replayRun`). An event that cannot be posted (one the live consumer
 * dead-lettered too) is skipped in a savepoint of its own and told to `skipped`. Answers how many
 * events were replayed.
 */
async function replayStreams(tem: EntityManager, bus: EventBus, orgId: number, opts: ApplyOptions, log: Logger, skipped: (eventId: string, err: unknown) => void): Promise<number> {
  const typeBySubject = new Map(LEDGER_SOURCES.map((s) => [s.subject, s.type]));
  const streams = [...new Set(LEDGER_SOURCES.map((s) => streamForSubject(s.subject)))] as StreamName[];
  const replay: Replay = { tem, orgId, organisation: await organisationReplica({ em: tem, orgId }), opts, log, skipped };
  let events = 0;
  for (const stream of streams) {
    const name = bus.streamName(stream);
    const info = await bus.jsm.streams.info(name).catch(() => null);
    if (!info || info.state.messages === 0) continue;
    // only this organisation's events (its id is every subject's last token), and of a stream
    // where the ledger reads one subject among many (ACCOUNTING: journal entries beside the
    // ledger's own announcements), that subject's alone
    const read = LEDGER_SOURCES.filter((s) => streamForSubject(s.subject) === stream);
    const filter = bus.subject(read.length === 1 ? tenantSubject(read[0].subject, orgId) : organisationSubjects(STREAMS[stream].area, orgId));
    const consumer = await bus.js.consumers.get(name, { filter_subjects: filter, deliver_policy: DeliverPolicy.All });
    if ((await consumer.info()).num_pending === 0) continue;
    const messages = await consumer.consume({ max_messages: REPLAY_BATCH * 2 });
    let run: ReplayRun | null = null;
    try {
      for await (const m of messages) {
        const routed = splitTenantSubject(bus.unprefixed(m.subject));
        const type = routed ? typeBySubject.get(routed.subject) : undefined;
        if (type) {
          let event;
          try {
            event = parseEnvelope(m.data);
          } catch {
            event = null;
          }
          // the version this ledger reads; another one published beside it carries the same fact
          if (event && event.orgid === String(orgId) && event.type === eventType(routed!.subject)) {
            events++;
            if (run && (run.type !== type || run.events.length >= REPLAY_BATCH)) {
              await replayRun(replay, run);
              run = null;
            }
            run ??= { type, events: [] };
            run.events.push(event);
          }
        }
        if (m.info.pending === 0) break;
      }
      if (run) await replayRun(replay, run);
    } finally {
      await messages.close().catch(() => undefined);
    }
  }
  return events;
}

/**
 * Rebuilds an organisation's ledger from the streams: in one database transaction, deletes the
 * organisation's derived ledger (transactions, rows, tax rows) and replays its posted-document
 * events (`replayStreams`). Either the whole rebuilt ledger commits or the old one stays. Nothing
 * is emitted: integrations already saw these transactions.
 */
export async function rebuildLedger(orm: MikroORM, bus: EventBus, orgId: number, opts: ApplyOptions, log?: Logger): Promise<RebuildResult> {
  const em = tenantEm(orm, orgId);
  const logger = log ?? createLogger('accounting-rebuild', 'error');
  let events = 0;
  let clearSeconds = 0;
  await em.transactional(async (tem) => {
    const started = performance.now();
    await clearLedger(tem, orgId);
    clearSeconds = (performance.now() - started) / 1000;
    events = await replayStreams(tem, bus, orgId, opts, logger, (eventId, err) => logger.warn('rebuild: event skipped', { event_id: eventId, err: String(err) }));
  });
  const [{ count }] = (await em
    .getConnection()
    .execute('select count(*)::int as count from accounting_transactions where org_id = ?', [orgId], 'all')) as Array<{ count: number }>;
  return { orgId, events, transactions: count, clearSeconds };
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
export async function checkLedger(orm: MikroORM, bus: EventBus, orgId: number, opts: ApplyOptions): Promise<LedgerCheck> {
  const em = tenantEm(orm, orgId);
  let check: LedgerCheck | null = null;
  try {
    await em.transactional(async (tem) => {
      const before = await entriesOf({ em: tem, orgId: orgId });
      await clearLedger(tem, orgId);
      const unpostable: LedgerCheck['unpostable'] = [];
      const events = await replayStreams(tem, bus, orgId, opts, createLogger('accounting-check', 'error'), (eventId, err) => unpostable.push({ eventId, reason: String(err) }));
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
      });
    });
  } catch (err) {
    if (!(err instanceof CheckRolledBack)) throw err;
    check = err.check;
  }
  if (!check) throw new Error('ledger check: the transaction was not rolled back');
  // postings the live consumer committed while the check ran were in flight, not missing
  if (check.missing.length) {
    const landed = await entriesOf({ em: em.fork(), orgId: orgId }, check.missing);
    check.missing = check.missing.filter((k) => !landed.has(k));
  }
  return check;
}
