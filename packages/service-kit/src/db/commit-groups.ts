import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { CommitOutcomeUnknownError, UpstreamError } from '../errors.js';
import { connectionLoss, databaseRefusesNow } from './connection-loss.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';
import { TENANT_FILTER, sqlRows } from './orm.js';
import { committedAfterLoss } from './lost-commit.js';
import { eventsWrittenIn, insertPreparedEvents, type PreparedEvent } from './outbox-rows.js';

/*
 * Application-level group commit (issue 15). A gap-free numbering series is a counter row that
 * each numbered document updates in its own transaction, so the row lock is held through that
 * transaction's commit and one series is capped at one commit (one WAL flush) per document.
 *
 * Here concurrent writers of one lane (an organisation's series of one document type) share one
 * transaction instead: each member writes inside its own savepoint (the first needs none: the
 * transaction is begun again if it fails), one at a time, and the lane commits once for all of
 * them. A member that fails is rolled back to its savepoint — its number and its rows vanish, its
 * neighbours keep theirs — and answers its own error; the others are
 * answered only once the shared commit has succeeded. With no contention a lane holds one member
 * and behaves like an ordinary transaction; under load a group holds whoever arrived while the
 * previous group was committing (no waiting window, so no added latency).
 */

export interface CommitGroupMember {
  /** The entity manager of the shared transaction; valid until `finish` or `abort`. */
  em: EntityManager;
  /** Keeps what the member wrote and waits for the group's commit (rejects if the commit fails). */
  finish(): Promise<void>;
  /** Rolls back what the member wrote; the rest of the group goes on. */
  abort(): Promise<void>;
  /**
   * Records an event that the group writes into the outbox just before its commit, together with
   * its other members' (one statement for the group instead of one per event); dropped with the
   * member if it aborts.
   */
  emitAtCommit(event: PreparedEvent): void;
  /**
   * Records an item the group writes just before its commit together with its other members'
   * items of the same batch (one statement for the group: the audit records); dropped with the
   * member if it aborts.
   */
  writeAtCommit<T>(batch: AtCommitBatch<T>, item: T): void;
}

/** Items of one kind that a commit group writes together just before its commit, in its members' order. */
export interface AtCommitBatch<T> {
  write(em: EntityManager, items: readonly T[]): Promise<void>;
}

/** Each batch's items of a group or of one member, in the order they were recorded. */
class AtCommitItems {
  private readonly byBatch = new Map<AtCommitBatch<unknown>, unknown[]>();

  add<T>(batch: AtCommitBatch<T>, item: T): void {
    const items = this.byBatch.get(batch as AtCommitBatch<unknown>);
    if (items) items.push(item);
    else this.byBatch.set(batch as AtCommitBatch<unknown>, [item]);
  }

  addAll(other: AtCommitItems): void {
    for (const [batch, items] of other.byBatch) for (const item of items) this.add(batch, item);
  }

  async write(em: EntityManager): Promise<void> {
    for (const [batch, items] of this.byBatch) await batch.write(em, items);
  }
}

interface Waiter {
  orgId: number;
  admit: (member: CommitGroupMember) => void;
  refuse: (err: unknown) => void;
}

interface Lane {
  queue: Waiter[];
  running: boolean;
}

export interface CommitGroupOptions {
  /** Most members one transaction holds. */
  maxMembers?: number;
  /** A member that neither finishes nor aborts within this is rolled back (a stuck request must not hold the series). */
  memberTimeoutMs?: number;
  log?: Logger;
  metrics?: MetricsRegistry;
}

export class CommitGroups {
  private readonly lanes = new Map<string, Lane>();
  private readonly maxMembers: number;
  private readonly memberTimeoutMs: number;
  private readonly groupSize;
  private closed = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly opts: CommitGroupOptions = {},
  ) {
    this.maxMembers = opts.maxMembers ?? 256;
    this.memberTimeoutMs = opts.memberTimeoutMs ?? 10_000;
    this.groupSize = opts.metrics?.histogram('commit_group_members', 'Members per shared commit of a numbering lane', [1, 2, 4, 8, 16, 32, 64, 128, 256]);
  }

  /**
   * Waits for this writer's turn in `lane` (an organisation's lane: every member of a lane acts
   * for `orgId`) and answers its membership of the shared transaction.
   */
  join(lane: string, orgId: number): Promise<CommitGroupMember> {
    if (this.closed) return Promise.reject(new UpstreamError(503, 'database', 'the service is stopping'));
    const key = `${orgId}:${lane}`;
    return new Promise((admit, refuse) => {
      let l = this.lanes.get(key);
      if (!l) this.lanes.set(key, (l = { queue: [], running: false }));
      l.queue.push({ orgId, admit, refuse });
      if (!l.running) void this.run(key, l);
    });
  }

  /** Refuses new members; groups already running finish. */
  close(): void {
    this.closed = true;
  }

  private async run(name: string, lane: Lane): Promise<void> {
    lane.running = true;
    try {
      while (lane.queue.length) await this.group(lane);
    } finally {
      lane.running = false;
      this.lanes.delete(name);
    }
  }

  /** One shared transaction: members one after another, then one commit. */
  private async group(lane: Lane): Promise<void> {
    const orgId = lane.queue[0].orgId;
    const em = this.orm.em.fork({ clear: true });
    em.setFilterParams(TENANT_FILTER, { orgId });
    const kept: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
    const events: PreparedEvent[] = [];
    const atCommit = new AtCommitItems();
    try {
      await em.begin();
    } catch (err) {
      for (const w of lane.queue.splice(0)) w.refuse(err);
      return;
    }
    let broken: unknown = null;
    let members = 0;
    // Whether the transaction holds a savepoint. The first member writes without one: what it
    // wrote is all the transaction holds, so if it aborts, the transaction itself is rolled back
    // and begun again — one round trip less for the usual group of one.
    let savepoint = false;
    let first = true;
    while (lane.queue.length && members < this.maxMembers && !broken) {
      const waiter = lane.queue.shift()!;
      members++;
      if (!first) {
        try {
          // one round trip per member: the previous member's savepoint is released as this one's
          // is taken (the commit releases the last), so the transaction never nests savepoints
          await sqlRows(em, savepoint ? 'release savepoint member; savepoint member' : 'savepoint member');
          savepoint = true;
        } catch (err) {
          broken = err;
          waiter.refuse(err);
          break;
        }
      }
      const outcome = await this.serve(em, waiter, kept, events, atCommit, first);
      if (outcome === 'restarted') continue; // the first member aborted: the next one is first again
      if (outcome) broken = outcome;
      first = false;
    }
    this.groupSize?.observe({}, members);
    if (!broken) {
      try {
        await atCommit.write(em);
        await insertPreparedEvents(em, events);
      } catch (err) {
        broken = err;
      }
    }
    if (broken) {
      await em.rollback().catch(() => undefined);
      // a lost database is the operator's to see as a warning: every member is answered 503
      if (connectionLoss(broken) || databaseRefusesNow(broken)) this.opts.log?.warn('commit group failed: the database is unavailable; its members are answered 503', { err: String(broken) });
      else this.opts.log?.error('commit group failed; its members are answered with an error', { err: String(broken) });
      for (const k of kept) k.reject(new UpstreamError(503, 'database', 'the write could not be committed; retry'));
      return;
    }
    const written = eventsWrittenIn(em);
    try {
      await em.commit();
      for (const k of kept) k.resolve();
    } catch (err) {
      // A COMMIT refused by the server (a deferred check) or never sent stored nothing; one whose
      // connection went while the server had it may have stored everything: the group's outbox
      // events, found from a new connection, prove it did (decision 163), else each member is
      // told the outcome is unknown (a member does not know here whether its request carried an
      // Idempotency-Key). (with no member kept, the error may be the BEGIN of a group begun
      // again, which the driver reports at the next statement: nothing was in it)
      const lost = kept.length > 0 && connectionLoss(err) === 'lost';
      if (lost && (await committedAfterLoss(this.orm.em.fork(), written))) {
        this.opts.log?.warn('the connection went during the commit of a group; its outbox events show it was made', { members: kept.length });
        for (const k of kept) k.resolve();
        return;
      }
      this.opts.log?.error(lost ? 'the connection went during the commit of a group; its outcome is unknown' : 'commit of a group failed', { err: String(err), members: kept.length });
      for (const k of kept) k.reject(lost ? new CommitOutcomeUnknownError(false) : new UpstreamError(503, 'database', 'the write could not be committed; retry'));
    }
  }

  /**
   * Admits one member and waits until it finishes or aborts; answers an error that breaks the
   * whole group, `restarted` when the first member aborted (and the transaction was begun again),
   * else null.
   */
  private serve(
    em: EntityManager,
    waiter: Waiter,
    kept: Array<{ resolve: () => void; reject: (e: unknown) => void }>,
    events: PreparedEvent[],
    atCommit: AtCommitItems,
    first: boolean,
  ): Promise<unknown> {
    return new Promise<unknown>((settled) => {
      let ended = false;
      const own: PreparedEvent[] = [];
      const ownAtCommit = new AtCommitItems();
      const claim = () => {
        if (ended) throw new UpstreamError(503, 'database', 'the write took too long and was rolled back; retry');
        ended = true;
        clearTimeout(timer);
      };
      const rollback = async () => {
        try {
          if (first) {
            await em.rollback();
            em.clear();
            await em.begin();
            settled('restarted');
            return;
          }
          await sqlRows(em, 'rollback to savepoint member');
          em.clear();
          settled(null);
        } catch (err) {
          settled(err); // the transaction itself failed (a lost connection): nothing of this group can commit
        }
      };
      const timer = setTimeout(() => {
        if (ended) return;
        ended = true;
        void rollback();
      }, this.memberTimeoutMs);
      timer.unref?.();
      waiter.admit({
        em,
        finish: async () => {
          claim();
          const committed = new Promise<void>((resolve, reject) => kept.push({ resolve, reject }));
          events.push(...own);
          atCommit.addAll(ownAtCommit);
          em.clear(); // the next member reads afresh, not what this one loaded
          settled(null);
          await committed;
        },
        abort: async () => {
          if (ended) return;
          claim();
          await rollback();
        },
        emitAtCommit: (event) => {
          if (ended) throw new Error('emitAtCommit after the member ended');
          own.push(event);
        },
        writeAtCommit: (batch, item) => {
          if (ended) throw new Error('writeAtCommit after the member ended');
          ownAtCommit.add(batch, item);
        },
      });
    });
  }
}
