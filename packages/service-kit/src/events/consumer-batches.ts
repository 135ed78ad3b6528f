import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { CloudEvent } from '@ledgerline/contracts';
import { TENANT_FILTER, sqlRows } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { withStatementsUnderParent } from '../tracing.js';
import type { MetricsRegistry } from '../metrics.js';
import { besideReplica, replicaOfRow, type OrganisationReplica, type ReplicaRow } from '../organisations/replica-row.js';
import type { NewEvent } from './envelope.js';
import { insertPreparedEvents, prepareEvent, type PreparedEvent } from './outbox.js';

/*
 * Batches of a consumer (issue 15): the events of one organisation that arrive together are
 * applied in one transaction with one inbox insert, one call of the handler's batch statement,
 * one outbox insert and one commit, instead of a savepoint, a claim and the handler's own
 * statements per event. Whatever the batch cannot apply it hands to the one-event path, so a
 * fault in one event never fails its neighbours.
 */

/** One event of a batch, as the batch handler sees it. */
export interface BatchItem {
  event: CloudEvent;
  deliveryCount: number;
  /** Records an event for the outbox, written with the batch's others at its commit; dropped unless this item applies. */
  emit<T>(ev: NewEvent<T>): string;
}

/**
 * What became of one item: applied; `single` (the batch statement does not cover it, e.g. a
 * rare case kept in code: the item is applied by the consumer's `handle` in a savepoint of the
 * same transaction); or an error found before anything was written for it (its inbox claim is
 * taken back and it fails alone: redelivered, or dead-lettered when poison).
 */
export type BatchItemResult = 'applied' | 'single' | { error: unknown };

/** What a batch is applied in: its organisation's transaction and, when asked for, its replica. */
export interface BatchContext {
  em: EntityManager;
  orgId: number;
  /** As `ConsumerContext.organisation`: read with the batch's inbox claim (`withOrganisation`). */
  organisation?: OrganisationReplica | null;
  log: Logger;
}

export type BatchHandler = (ctx: BatchContext, items: BatchItem[]) => Promise<BatchItemResult[]>;

/** A message waiting for its batch. */
export interface BatchPending {
  event: CloudEvent;
  deliveryCount: number;
  /** The consumer span's trace context: events recorded for this message continue it. */
  traceparent: string | null;
  /** The span its statements go under when tracing records (`statementsParent()`). */
  statementsParent: string | null;
  resolve: (outcome: 'applied' | 'duplicate') => void;
  reject: (err: unknown) => void;
}

export interface BatchRunnerOptions {
  consumer: string;
  subject: string;
  source: string;
  withOrganisation: boolean;
  handleBatch: BatchHandler;
  /** Applies an item the batch already claimed (`single`), in the batch's transaction and inside a savepoint. */
  handleClaimed: (em: EntityManager, orgId: number, p: BatchPending, organisation: OrganisationReplica | null | undefined, emitAtCommit: (ev: PreparedEvent) => void) => Promise<void>;
  /** Applies one message alone in a transaction of its own, claim included (after a batch failed as a whole). */
  applyAlone: (p: BatchPending) => Promise<'applied' | 'duplicate'>;
  /**
   * Most events one batch holds. Every savepoint and exception block of a transaction takes a
   * subtransaction id, and past 64 of them Postgres's snapshots overflow to a slow lookup for
   * every session, so a batch stays well under it.
   */
  maxItems: number;
  log: Logger;
  metrics: MetricsRegistry;
}

const CLAIM_MANY = 'insert into kit_inbox (consumer, event_id, subject) select ?, unnest(?::text[]), ? on conflict do nothing returning event_id';
const CLAIM_MANY_WITH_ORGANISATION = besideReplica(CLAIM_MANY, 'array(select event_id from done) as claimed');
const UNCLAIM = 'delete from kit_inbox where consumer = ? and event_id = any(?::text[])';

/** The batches of one consumer, one lane per organisation: a lane runs one batch at a time and the next holds whatever arrived meanwhile. */
export class ConsumerBatches {
  private readonly lanes = new Map<number, BatchPending[]>();
  private readonly size: ReturnType<MetricsRegistry['histogram']>;

  constructor(
    private readonly orm: MikroORM,
    private readonly opts: BatchRunnerOptions,
  ) {
    this.size = opts.metrics.histogram('consumer_batch_events', 'Events per batch of a consumer that applies its events in batches', [1, 2, 4, 8, 16, 32, 64]);
  }

  submit(orgId: number, p: Omit<BatchPending, 'resolve' | 'reject'>): Promise<'applied' | 'duplicate'> {
    return new Promise((resolve, reject) => {
      const queued = this.lanes.get(orgId);
      if (queued) {
        queued.push({ ...p, resolve, reject });
        return;
      }
      const queue = [{ ...p, resolve, reject }];
      this.lanes.set(orgId, queue);
      void this.run(orgId, queue);
    });
  }

  private async run(orgId: number, queue: BatchPending[]): Promise<void> {
    try {
      while (queue.length) {
        const batch = queue.splice(0, this.opts.maxItems);
        // a batch's statements under its first event's span (the lane outlives the span that started it)
        await withStatementsUnderParent(batch[0].statementsParent, () => this.batch(orgId, batch));
      }
    } finally {
      this.lanes.delete(orgId);
    }
  }

  private async batch(orgId: number, batch: BatchPending[]): Promise<void> {
    this.size.observe({ consumer: this.opts.consumer }, batch.length);
    const settled: Array<() => void> = [];
    const em = this.orm.em.fork({ clear: true });
    em.setFilterParams(TENANT_FILTER, { orgId });
    try {
      await em.begin();
      const { claimed, organisation } = await this.claim(em, orgId, batch);
      const items: BatchItem[] = [];
      const pendingOf: BatchPending[] = [];
      const emitted: PreparedEvent[][] = [];
      for (const p of batch) {
        // applied before; or the same event twice in this batch (republished under a new message id)
        if (!claimed.delete(p.event.id)) {
          settled.push(() => p.resolve('duplicate'));
          continue;
        }
        const own: PreparedEvent[] = [];
        emitted.push(own);
        pendingOf.push(p);
        items.push({
          event: p.event,
          deliveryCount: p.deliveryCount,
          emit: (ev) => {
            const prepared = prepareEvent(this.opts.source, { ...ev, orgId: ev.orgId ?? orgId, traceparent: ev.traceparent ?? p.traceparent ?? undefined });
            own.push(prepared);
            return prepared.id;
          },
        });
      }
      const results = items.length ? await this.opts.handleBatch({ em, orgId, organisation, log: this.opts.log }, items) : [];
      if (results.length !== items.length) throw new Error(`the batch handler answered ${results.length} results for ${items.length} events`);
      const refused = results.flatMap((r, i) => (typeof r === 'object' ? [pendingOf[i].event.id] : []));
      if (refused.length) await sqlRows(em, UNCLAIM, [this.opts.consumer, refused]);
      const events: PreparedEvent[] = [];
      for (const [i, result] of results.entries()) {
        const p = pendingOf[i];
        if (typeof result === 'object') {
          settled.push(() => p.reject(result.error));
        } else if (result === 'applied') {
          events.push(...emitted[i]);
          settled.push(() => p.resolve('applied'));
        } else {
          const single = await this.single(em, orgId, p, organisation);
          if (single.ok) events.push(...single.events);
          settled.push(single.ok ? () => p.resolve('applied') : () => p.reject(single.error));
        }
      }
      await insertPreparedEvents(em, events);
      await em.commit();
    } catch (err) {
      await em.rollback().catch(() => undefined);
      this.opts.log.warn('a batch failed as a whole; its events are applied one by one', { consumer: this.opts.consumer, events: batch.length, err: String(err) });
      // one event's fault must not fail its neighbours: each is applied alone
      for (const p of batch) await this.opts.applyAlone(p).then(p.resolve, p.reject);
      return;
    }
    for (const s of settled) s();
  }

  /** Claims the batch's events in the inbox in one statement; answers those claimed now (the rest were applied before) and the replica when asked for. */
  private async claim(em: EntityManager, orgId: number, batch: BatchPending[]): Promise<{ claimed: Set<string>; organisation: OrganisationReplica | null | undefined }> {
    const ids = batch.map((p) => p.event.id);
    if (this.opts.withOrganisation) {
      const [row] = await sqlRows<ReplicaRow & { claimed: string[]; known: boolean }>(em, CLAIM_MANY_WITH_ORGANISATION, [this.opts.consumer, ids, this.opts.subject, orgId], { prepared: true });
      return { claimed: new Set(row.claimed), organisation: row.known ? replicaOfRow(orgId, row) : null };
    }
    const rows = await sqlRows<{ event_id: string }>(em, CLAIM_MANY, [this.opts.consumer, ids, this.opts.subject], { prepared: true });
    return { claimed: new Set(rows.map((r) => r.event_id)), organisation: undefined };
  }

  /** An item the batch hands to the one-event handler, in a savepoint: on failure its writes and its claim are taken back. */
  private async single(em: EntityManager, orgId: number, p: BatchPending, organisation: OrganisationReplica | null | undefined): Promise<{ ok: true; events: PreparedEvent[] } | { ok: false; error: unknown }> {
    const events: PreparedEvent[] = [];
    await sqlRows(em, 'savepoint single');
    try {
      await this.opts.handleClaimed(em, orgId, p, organisation, (ev) => events.push(ev));
      await sqlRows(em, 'release savepoint single');
      return { ok: true, events };
    } catch (error) {
      await sqlRows(em, 'rollback to savepoint single');
      em.clear();
      await sqlRows(em, UNCLAIM, [this.opts.consumer, [p.event.id]]);
      return { ok: false, error };
    }
  }
}
