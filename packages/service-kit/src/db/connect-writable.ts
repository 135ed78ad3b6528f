import pg from 'pg';
import { markDatabaseError } from './connection-loss.js';
import { hostsToTry, rememberWritable, singleHostUrl, standbyError, takesWrites } from './database-url.js';

/**
 * A client connected to the server of `url` that takes writes, tried host by host. The error of
 * the last host tried is thrown, marked as the database's (503) when none could be had.
 */
export async function connectWritable(url: string, config: Omit<pg.ClientConfig, 'connectionString'> = {}): Promise<pg.Client> {
  const hosts = hostsToTry(url);
  let last: unknown = new Error('DATABASE_URL names no server');
  for (const host of hosts) {
    const client = new pg.Client({ ...config, connectionString: singleHostUrl(url, host) });
    // A session ended by the server just as it began (an operator's pg_terminate_backend, a
    // failover) can send its FATAL in the same read as the ReadyForQuery that resolves connect():
    // the driver emits it at once, before the caller could listen, and an 'error' nobody listens
    // to is an uncaught exception that ends the process. Listened to from the start: the client is
    // then not queryable, and the caller's next statement fails as on any lost connection.
    client.on('error', () => undefined);
    try {
      await client.connect();
      if (hosts.length > 1 && !(await takesWrites(client))) {
        await client.end().catch(() => undefined);
        last = standbyError(host);
        continue;
      }
      if (hosts.length > 1) rememberWritable(url, host);
      return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      last = err;
    }
  }
  throw markDatabaseError(last);
}
