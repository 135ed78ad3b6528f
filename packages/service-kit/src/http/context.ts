import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.js';
import type { PreparedEvent } from '../events/outbox.js';
import type { LastWriteOptions } from '../context.js';

/** What the gateway verified about the caller, passed to services in internal headers. */
export interface AuthContext {
  orgId: number;
  scopes: string[];
  credentialId: string;
  credentialType: 'api_key' | 'access_token' | 'operator';
}

export const INTERNAL_HEADERS = {
  orgId: 'x-ledgerline-org-id',
  scopes: 'x-ledgerline-scopes',
  credentialId: 'x-ledgerline-credential-id',
  credentialType: 'x-ledgerline-credential-type',
  token: 'x-ledgerline-internal-token',
} as const;

export type KitEnv = {
  Variables: {
    requestId: string;
    log: Logger;
    auth: AuthContext | undefined;
    /** Parsed JSON body of a write request (undefined when the body was empty). */
    body: unknown;
    /** Request-scoped entity manager; inside one transaction for write methods. */
    em: EntityManager;
    /**
     * Set by a handler whose answer carries a secret shown once (a new API key or client secret):
     * its Idempotency-Key record then never holds the answer in plaintext (decision 53).
     */
    secretAnswer: boolean | undefined;
    /** The problem a 5xx answer carried, for its log line (set where problems are answered). */
    failure: { code: string; detail: string } | undefined;
    /**
     * The request's W3C trace context: its own server span when tracing is on, else the client's
     * `traceparent` as sent (null without one). Events and calls made for the request carry it.
     */
    traceparent: string | null;
    /**
     * Requests admitted by the service's gate: gives the request's slot back while it waits on
     * a party outside the process, until the function it answers is called (`ctx.outside`).
     */
    awayFromGate: (() => () => void) | undefined;
    /** Write requests: callbacks run once the request's transaction committed (wake a worker). */
    afterCommit: Array<() => void> | undefined;
    /**
     * Write requests: moves the request's writes into the shared transaction of a commit group
     * (`CommitGroups`), answering its entity manager; the request's answer is then given once
     * that group committed. Every write of the request must go through the answered manager.
     */
    commitGroup: ((lane: string) => Promise<EntityManager>) | undefined;
    /**
     * Write requests whose handler defers its transaction (`defersTransaction`): begins the
     * request's own transaction (nothing when it runs already). Other write requests have one
     * from the start.
     */
    beginOwn: (() => Promise<void>) | undefined;
    /** Write requests: an error with what it says of the request's transaction (a lost connection that ended it) as its cause. */
    explainFailure: ((err: unknown) => Promise<unknown>) | undefined;
    /**
     * Write requests: queues an event to be written with the others of the transaction `em`
     * belongs to, in one statement just before its commit (the request's own or its commit
     * group's); false when the unit of work does not write through `em`.
     */
    emitAtCommit: ((em: EntityManager, event: PreparedEvent) => boolean) | undefined;
    /**
     * Write requests: runs the request's last write through `em` (`OperationContext.writeLast`):
     * alone with the request's events in one statement that commits them when the request holds
     * no transaction, else in the transaction `em` belongs to.
     */
    writeLast: ((em: EntityManager, sql: string, params: readonly unknown[], opts?: LastWriteOptions) => Promise<Array<Record<string, unknown>>>) | undefined;
  };
};

/**
 * Seals the stored answer of a secret-bearing write so that an Idempotency-Key replay can give it
 * back to the same credential without the secret resting in plaintext. `aad` binds the sealed
 * answer to its organisation, credential and key.
 */
export interface AnswerSealer {
  seal(plaintext: string, aad: string): string;
  open(sealed: string, aad: string): string;
}
