import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from './logger.js';
import type { NewEvent } from './new-event.js';
import type { PreparedEvent } from './db/outbox-rows.js';
import { sqlRows } from './db/orm.js';

/**
 * What one operation runs with, the same for an HTTP request and for a consumed event: who acts
 * for which organisation, the transaction, how to record events in it, the clock and the logger.
 * Domain functions take this instead of a list of loose arguments, so a rule written for a
 * request runs unchanged in a consumer.
 */
/** How a request's last write runs (`writeLast`). */
export interface LastWriteOptions {
  prepared?: boolean;
  /**
   * The value the handler answers (200) once the write returns. Given, the write's audit record
   * goes in the write's own statement, made from it, and the write still commits alone; without
   * it, an audited write runs in the request's transaction (decision 255).
   */
  answer?: unknown;
}

export interface OperationContext {
  /** The organisation acted for; null only for an operator call or an event that names none. */
  orgId: number | null;
  /**
   * Who acts, as the access log and Idempotency-Key records name it: `key:<id>` (an API key),
   * `client:<client_id>` (an API client's access token), `operator`, or `event:<source>` in a consumer.
   */
  actor: string;
  /** The request id, or in a consumer the id of the event handled. */
  requestId: string;
  /** W3C trace context of the request or event; events recorded through `emit` carry it on. */
  traceparent: string | null;
  /** The entity manager of this operation's transaction (writes) or read scope. */
  em: EntityManager;
  /** Records an event in the outbox in this operation's transaction. */
  emit: <T>(ev: NewEvent<T>) => Promise<string>;
  /** Builds an event's outbox row for a statement that writes it itself (`insertNumberedDocument`). */
  prepareEvent: <T>(ev: NewEvent<T>, dataJson?: string) => PreparedEvent;
  /**
   * Asks another service (NATS request-reply, `rpc.…`) for this operation's organisation, which
   * the request's subject carries; refused for an operation without one.
   */
  ask: <T>(subject: string, data: unknown) => Promise<T>;
  /**
   * Runs `work`, which waits on a party outside the process (a register, a bank): a request gives
   * its place among the requests the service works on at once back meanwhile, so that waiting on a
   * slow register does not hold back requests that need only this process and its database
   * (decision 248). `ask` does the same. Elsewhere it only runs `work`.
   */
  outside: <T>(work: () => Promise<T>) => Promise<T>;
  /**
   * The context to write a numbered document in: for a request, a member of the commit group of
   * `lane` (concurrent writers of one series share one transaction and one commit); for work that
   * runs in a transaction of its own (a consumer, a service task), this same context.
   */
  inCommitGroup: (lane: string) => Promise<OperationContext>;
  /**
   * This context, with its own transaction begun: for a request whose handler defers it
   * (`defersTransaction`) and that writes outside a commit group after all (a document whose
   * number the client gave). Elsewhere the transaction runs already.
   */
  inOwnTransaction: () => Promise<OperationContext>;
  /**
   * Runs the operation's last write: one data-modifying statement with a RETURNING clause
   * (`insert … returning id`: it stands in a WITH clause) and `?` placeholders, answering its rows. For a request
   * that holds no transaction (its handler deferred it, took no lock and sent no
   * Idempotency-Key), the write and every event emitted before it go as one statement, which
   * commits them together. Otherwise it runs in the operation's transaction like any statement.
   * Nothing may be written or emitted after it, and nothing that can fail may follow it.
   */
  writeLast: <T extends Record<string, unknown> = Record<string, unknown>>(sql: string, params: readonly unknown[], opts?: LastWriteOptions) => Promise<T[]>;
  now: () => Date;
  log: Logger;
}

/** An operation's context whose organisation is known (every tenant request and tenant event). */
export type TenantContext = OperationContext & { orgId: number };

/**
 * What a domain function that only reads or writes one organisation's rows takes of a context:
 * a request's or an event's `ctx` passes as it is, a task without one (a CLI, the operator
 * creating an organisation) passes `{ em, orgId }`.
 */
export type TenantScope = Pick<TenantContext, 'em' | 'orgId'>;

export interface ContextParts {
  orgId: number | null;
  actor: string;
  requestId: string;
  traceparent: string | null;
  em: EntityManager;
  log: Logger;
  emit: (em: EntityManager, ev: NewEvent<unknown>) => Promise<string>;
  prepareEvent: (ev: NewEvent<unknown>, dataJson?: string) => PreparedEvent;
  /** Asks another service for an organisation (NATS request-reply, events/rpc.ts `requestReply`). */
  ask: (subject: string, orgId: number, data: unknown) => Promise<unknown>;
  /** Gives the request's admission slot back until the function it answers is called (HTTP requests under the gate); absent elsewhere. */
  awayFromGate?: () => () => void;
  /** Joins a commit group (HTTP write requests); absent elsewhere. */
  commitGroup?: (lane: string) => Promise<EntityManager>;
  /** Begins a deferred own transaction (HTTP write requests); absent elsewhere. */
  beginOwn?: () => Promise<void>;
  /** Runs a last write, alone with the events when no transaction is open (HTTP write requests); absent elsewhere. */
  writeLast?: (em: EntityManager, sql: string, params: readonly unknown[], opts?: LastWriteOptions) => Promise<Array<Record<string, unknown>>>;
}

/** Builds a context; events it records default to its organisation and trace. */
export function operationContext(p: ContextParts): OperationContext {
  const withDefaults = <T>(ev: NewEvent<T>): NewEvent<T> => ({
    ...ev,
    orgId: ev.orgId ?? p.orgId ?? undefined,
    traceparent: ev.traceparent ?? p.traceparent ?? undefined,
  });
  const outside = async <T>(work: () => Promise<T>): Promise<T> => {
    const back = p.awayFromGate?.();
    try {
      return await work();
    } finally {
      back?.();
    }
  };
  const ctx: OperationContext = {
    orgId: p.orgId,
    actor: p.actor,
    requestId: p.requestId,
    traceparent: p.traceparent,
    em: p.em,
    log: p.log,
    now: () => new Date(),
    emit: (ev) => p.emit(p.em, withDefaults(ev)),
    prepareEvent: (ev, dataJson) => p.prepareEvent(withDefaults(ev), dataJson),
    ask: async <T>(subject: string, data: unknown) => {
      if (p.orgId == null) throw new Error(`${subject}: an operation without an organisation cannot ask another service`);
      const orgId = p.orgId;
      return (await outside(() => p.ask(subject, orgId, data))) as T;
    },
    outside,
    inCommitGroup: async (lane) => {
      if (!p.commitGroup) return ctx;
      const em = await p.commitGroup(lane);
      return operationContext({ ...p, em, commitGroup: undefined, beginOwn: undefined, writeLast: undefined });
    },
    inOwnTransaction: async () => {
      await p.beginOwn?.();
      return ctx;
    },
    writeLast: async <T extends Record<string, unknown>>(sql: string, params: readonly unknown[], opts?: LastWriteOptions) =>
      (p.writeLast ? p.writeLast(p.em, sql, params, opts) : sqlRows(p.em, sql, params, { prepared: opts?.prepared })) as Promise<T[]>,
  };
  return ctx;
}
