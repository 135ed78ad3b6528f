import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { CloudEvent } from '@ledgerline/contracts';
import type { EventBus } from './bus.js';
import type { NewEvent } from './envelope.js';
import { requestReply } from './rpc.js';
import { TENANT_FILTER, sqlRows } from '../db/orm.js';
import { operationContext } from '../context.js';
import { prepareEvent, recordEvent, type PreparedEvent } from './outbox.js';
import { besideReplica, replicaOfRow, type OrganisationReplica, type ReplicaRow } from '../organisations/replica-row.js';
import type { Logger } from '../logger.js';
import type { ConsumerDefinition } from './consumer-definition.js';

const CLAIM = 'insert into kit_inbox (consumer, event_id, subject) values (?, ?, ?) on conflict do nothing returning event_id';
/** The claim, answering beside it the organisation's replica row (all columns null when there is none). */
const CLAIM_WITH_ORGANISATION = besideReplica(CLAIM, 'exists (select 1 from done) as claimed');

/**
 * The claim and the handling of one event: its id recorded in `kit_inbox` and the handler run in
 * the same transaction, so an event applied once is found there on any redelivery and only
 * acknowledged. How the transaction is had (alone, a commit group's, a batch's) is the consumer's.
 */
export class InboxHandler {
  constructor(
    private readonly def: ConsumerDefinition,
    private readonly orm: MikroORM,
    private readonly bus: EventBus,
    private readonly log: Logger,
    /** The service: the source of the events its handlers record. */
    private readonly source: string,
  ) {}

  /** A handler's `emit` that hands each event, prepared, to whoever writes it at the commit. */
  atCommit(push: (event: PreparedEvent) => void): (ev: NewEvent<unknown>) => Promise<string> {
    return (ev) => {
      const prepared = prepareEvent(this.source, ev);
      push(prepared);
      return Promise.resolve(prepared.id);
    };
  }

  /** One event in a transaction of its own. */
  async applyAlone(orgId: number | null, event: CloudEvent, deliveryCount: number, traceparent: string | null): Promise<'applied' | 'duplicate'> {
    const em = this.orm.em.fork({ clear: true });
    if (orgId !== null) em.setFilterParams(TENANT_FILTER, { orgId });
    const applied = await em.transactional((tem) => this.claimAndHandle(tem, orgId, event, deliveryCount, traceparent));
    return applied ? 'applied' : 'duplicate';
  }

  /** Claims the event in the inbox and runs the handler, in the caller's transaction. */
  async claimAndHandle(
    tem: EntityManager,
    orgId: number | null,
    event: CloudEvent,
    deliveryCount: number,
    traceparent: string | null,
    emitAtCommit?: (ev: NewEvent<unknown>) => Promise<string>,
  ): Promise<boolean> {
    let organisation: OrganisationReplica | null | undefined;
    if (this.def.withOrganisation && orgId !== null) {
      const [row] = await sqlRows<ReplicaRow & { claimed: boolean; known: boolean }>(tem, CLAIM_WITH_ORGANISATION, [this.def.name, event.id, this.def.subject, orgId], {
        prepared: true,
      });
      if (!row.claimed) return false;
      organisation = row.known ? replicaOfRow(orgId, row) : null;
    } else {
      const claimed = await sqlRows(tem, CLAIM, [this.def.name, event.id, this.def.subject], { prepared: true });
      if (claimed.length === 0) return false;
    }
    await this.handle(tem, orgId, event, deliveryCount, traceparent, organisation, emitAtCommit);
    return true;
  }

  /** Runs the handler for an event claimed in the caller's transaction. */
  async handle(
    tem: EntityManager,
    orgId: number | null,
    event: CloudEvent,
    deliveryCount: number,
    traceparent: string | null,
    organisation: OrganisationReplica | null | undefined,
    emitAtCommit?: (ev: NewEvent<unknown>) => Promise<string>,
  ): Promise<void> {
    const ctx = operationContext({
      orgId,
      actor: `event:${event.source}`,
      requestId: event.id,
      // what the handler records continues the trace under this consumer's span
      traceparent: traceparent ?? event.traceparent ?? null,
      em: tem,
      log: this.log.child({ consumer: this.def.name, event_id: event.id }),
      emit: emitAtCommit ? (_em, ev) => emitAtCommit(ev) : (em, ev) => recordEvent(em, this.source, ev),
      prepareEvent: (ev, dataJson) => prepareEvent(this.source, ev, dataJson),
      ask: (subject, orgId, data) => requestReply(this.bus, subject, orgId, data),
    });
    // extended in place, not spread into a new literal: V8 kept such copies, and the batch they
    // reach, through young-generation collections (decision 129)
    await this.def.handle(Object.assign(ctx, { subject: this.def.subject, deliveryCount, organisation }), event);
  }
}
