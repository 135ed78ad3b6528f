import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';

/*
 * Database connections lost on purpose, for the tests of what a service answers then
 * (decision 142).
 */

/** The pg connection a transaction runs on (the query builder's client lends the one it holds). */
export async function transactionConnection(em: EntityManager): Promise<pg.Client> {
  const trx = em.getTransactionContext<{ client: { acquireConnection(): Promise<pg.Client> } }>();
  if (!trx) throw new Error('no transaction');
  return trx.client.acquireConnection();
}

/** Closes the socket of the connection that sends the next statement matching `match`, just after sending it. */
export function closeAfterSending(match: RegExp, on: pg.Client | typeof pg.Client.prototype = pg.Client.prototype, how: 'end' | 'reset' = 'end'): void {
  const original = on.query;
  (on as { query: unknown }).query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
    const sent = (original as (...a: unknown[]) => unknown).call(this, config, ...rest);
    if (typeof text === 'string' && match.test(text)) {
      (on as { query: unknown }).query = original;
      // Nothing more is read, the statement's messages (a parameterised one is several, which
      // Node may still hold) go out followed by the end, and the socket is closed a moment
      // later: the server receives the whole statement and carries it out, and its answer is never
      // read. (Closed at once, Node would drop what it still held; closed while the answer sat
      // unread, the reset could reach the server before it had read the statement's end.)
      // `reset`: the socket fails as on a reset by the peer (ECONNRESET) rather than ending.
      const stream = (this as unknown as { connection: { stream: { pause(): void; end(): void; destroy(err?: Error): void } } }).connection.stream;
      stream.pause();
      stream.end();
      setTimeout(() => stream.destroy(how === 'reset' ? Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }) : undefined), 100);
    }
    return sent;
  };
}
