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
export function closeAfterSending(match: RegExp, on: pg.Client | typeof pg.Client.prototype = pg.Client.prototype): void {
  const original = on.query;
  (on as { query: unknown }).query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
    const sent = (original as (...a: unknown[]) => unknown).call(this, config, ...rest);
    if (typeof text === 'string' && match.test(text)) {
      (on as { query: unknown }).query = original;
      // the statement is already in the socket's buffer: the server receives it, then the end
      (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    }
    return sent;
  };
}
